package replay

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/session"
)

// Replay finds the loads the sidecar finds in the same messages (the
// bridge's before_request with messages): a skill tool answer that is no
// <skill_content> block ("already loaded") is no load, and a result named
// by a tool call id an earlier result that is no load used keeps it.
func TestDetectFindsTheSidecarsLoads(t *testing.T) {
	lines := []string{
		`{"type":"session","version":3,"id":"f","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`,
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"load them"}],"timestamp":1767225601000}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"skill","arguments":{"name":"gamma"}},{"type":"toolCall","id":"c2","name":"read","arguments":{"path":"/pack/beta/SKILL.md"}}],"provider":"fake","model":"a","usage":{"input":0,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":5},"stopReason":"toolUse","timestamp":1767225602000}}`,
		`{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"skill","content":[{"type":"text","text":"Skill \"gamma\" is already loaded above; use it."}],"isError":false,"timestamp":1767225603000}}`,
		`{"type":"message","id":"r2","parentId":"r1","timestamp":"2026-01-01T00:00:03.500Z","message":{"role":"toolResult","toolCallId":"c2","toolName":"read","content":[{"type":"text","text":"---\nname: beta\ndescription: Beta.\n---\n\nBETA BODY\n"}],"isError":false,"timestamp":1767225603500}}`,
		`{"type":"message","id":"a2","parentId":"r2","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"x","name":"bash","arguments":{"command":"ls"}}],"provider":"fake","model":"a","usage":{"input":0,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":5},"stopReason":"toolUse","timestamp":1767225604000}}`,
		`{"type":"message","id":"r3","parentId":"a2","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"toolResult","toolCallId":"x","toolName":"bash","content":[{"type":"text","text":"refs"}],"isError":false,"timestamp":1767225605000}}`,
		`{"type":"message","id":"a3","parentId":"r3","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"x","name":"read","arguments":{"path":"/pack/beta/refs/guide.md"}}],"provider":"fake","model":"a","usage":{"input":0,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":5},"stopReason":"toolUse","timestamp":1767225606000}}`,
		`{"type":"message","id":"r4","parentId":"a3","timestamp":"2026-01-01T00:00:07.000Z","message":{"role":"toolResult","toolCallId":"x","toolName":"read","content":[{"type":"text","text":"GUIDE"}],"isError":false,"timestamp":1767225607000}}`,
		`{"type":"message","id":"a4","parentId":"r4","timestamp":"2026-01-01T00:00:08.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"provider":"fake","model":"a","usage":{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1},"stopReason":"stop","timestamp":1767225608000}}`,
	}
	type place struct {
		ID   string
		Kind lifecycle.LoadKind
	}
	// The sidecar: the messages as the bridge forwards them, in one request.
	w := host.NewWorld([]host.HostSkill{{Name: "beta", Description: "Beta.", Path: "/pack/beta/SKILL.md"}, {Name: "gamma", Description: "Gamma.", Path: "/pack/gamma/SKILL.md"}}, nil, rules.Default(), nil)
	sess := host.New(w, host.InitializeParams{}, &EngineStrategy{}, host.Options{})
	var msgs []host.Message
	for _, l := range lines[1:] {
		var e struct{ Message host.Message }
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, e.Message)
	}
	res, err := sess.BeforeRequest(host.BeforeRequestParams{Messages: msgs, Cwd: "/p", Places: true})
	if err != nil {
		t.Fatal(err)
	}
	var want []place
	for _, p := range res.Places {
		want = append(want, place{p.ID, p.Kind})
	}
	// Replay.
	s, err := session.ReadFile(writeSession(t, lines...), nil)
	if err != nil {
		t.Fatal(err)
	}
	br := s.Branch(s.Leaf())
	info := detect(&Pack{Names: map[string]bool{"beta": true, "gamma": true}}, br, s.Header.Cwd)
	var got []place
	for _, e := range br {
		for _, l := range info.loads[e] {
			got = append(got, place{l.ID, l.Kind})
		}
		for _, r := range info.resources[e] {
			got = append(got, place{r.ID, host.KindResource})
		}
	}
	if d := cmp.Diff([]place{{"c2", "read"}, {"x", "resource"}}, want); d != "" {
		t.Fatalf("the sidecar's loads (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("replay's loads against the sidecar's (-sidecar +replay):\n%s", d)
	}
}
