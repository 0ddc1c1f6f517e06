package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/session"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// writeSession writes session lines to a temporary file.
func writeSession(t *testing.T, lines ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

const (
	bHeader = `{"type":"session","version":3,"id":"b","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`
	bU1     = `{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"load alpha"}],"timestamp":1767225601000}}`
	// a1 reads alpha's SKILL.md; its recorded output is the scripted
	// provider's count, ceil((4 + 43) / 4) = 12.
	bA1 = `{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"/p/.agents/skills/alpha/SKILL.md"}}],"provider":"fake","model":"a","usage":{"input":0,"output":12,"cacheRead":0,"cacheWrite":0,"totalTokens":12},"stopReason":"toolUse","timestamp":1767225602000}}`
	bR1 = `{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"---\nname: alpha\ndescription: Alpha things.\n---\n\nALPHA BODY\n"}],"isError":false,"timestamp":1767225603000}}`
	bA2 = `{"type":"message","id":"a2","parentId":"r1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"provider":"fake","model":"a","usage":{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1},"stopReason":"stop","timestamp":1767225604000}}`
)

func bridgePack() *Pack {
	return &Pack{Names: map[string]bool{"alpha": true, "beta": true},
		Listing:   []skills.ListedSkill{{Name: "alpha", Description: "Alpha things."}, {Name: "beta", Description: "Beta's."}},
		Files:     map[string][]string{"alpha": {"SKILL.md"}},
		Locations: map[string]string{"alpha": "/pack/alpha/SKILL.md", "beta": "/pack/beta/SKILL.md"}}
}

// A bridge strategy on a session recorded without the extension sees the
// requests the bridge would have sent: its listing and the skill tool in
// the header, alpha loaded through the tool.
func TestBridgeRequests(t *testing.T) {
	// Pi 1.6's section lists both skills at their SKILL.md (beta beside
	// alpha, which the session read); the bridge's has no locations.
	const (
		pi = "The following skills provide specialized instructions for specific tasks.\n" +
			"Use the read tool to load a skill's file when the task matches its description.\n" +
			"Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.\n\n" +
			"<available_skills>\n" +
			"  <skill>\n    <name>alpha</name>\n    <description>Alpha things.</description>\n    <location>/p/.agents/skills/alpha/SKILL.md</location>\n  </skill>\n" +
			"  <skill>\n    <name>beta</name>\n    <description>Beta&#39;s.</description>\n    <location>/p/.agents/skills/beta/SKILL.md</location>\n  </skill>\n" +
			"</available_skills>"
		bridge = "\n\n<available_skills>\n" +
			"  <skill>\n    <name>alpha</name>\n    <description>Alpha things.</description>\n  </skill>\n" +
			"  <skill>\n    <name>beta</name>\n    <description>Beta's.</description>\n  </skill>\n" +
			"</available_skills>"
		toolLine = "- skill: Load a skill's instructions by name, or search skills by query\n"
		toolJSON = `,{"type":"function","function":{"name":"skill","description":"Load a skill's instructions (its SKILL.md body in a <skill_content> block, with its base directory and top-level files). Call it when a task matches a skill in <available_skills>, and again if its instructions were archived. Given a query instead of a name, it searches every installed skill.","parameters":{"additionalProperties":false,"properties":{"name":{"description":"The skill's name, as listed in <available_skills> or found by a query.","type":"string"},"query":{"description":"Instead of a name: words about the task; answers the best-matching skills.","type":"string"}},"type":"object"}}}`
		u1       = `,{"role":"user","content":[{"type":"text","text":"load alpha"}]}`
		a1       = `,{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"/p/.agents/skills/alpha/SKILL.md\"}"}}]}`
		r1       = `,{"role":"tool","content":"---\nname: alpha\ndescription: Alpha things.\n---\n\nALPHA BODY\n","tool_call_id":"c1"}`
		a1b      = `,{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"skill","arguments":"{\"name\":\"alpha\"}"}}]}`
		r1b      = `,{"role":"tool","content":"<skill_content name=\"alpha\">\nALPHA BODY\n\nBase directory: /p/.agents/skills/alpha\nResolve relative paths in these instructions against the base directory.\nTop-level files: SKILL.md\n</skill_content>","tool_call_id":"c1"}`
		content  = "<skill_content name=\"alpha\">\nALPHA BODY\n\nBase directory: /p/.agents/skills/alpha\nResolve relative paths in these instructions against the base directory.\nTop-level files: SKILL.md\n</skill_content>"
	)
	// Lengths as the request carries them: each newline is written "\n".
	jl := func(s string) int { return n(s) + strings.Count(s, "\n") }
	delta := jl(skills.BridgeIntro+bridge) - jl(pi) + jl(toolLine) + n(toolJSON)

	file := writeSession(t, bHeader, bU1, bA1, bR1, bA2)
	plain, bridged := &recorder{}, &recorder{}
	var loads []lifecycle.Load
	spy := &loadSpy{recorder: bridged, loads: &loads}
	specs := []StrategySpec{
		{Name: "plain", New: func() Strategy { return plain }},
		{Name: "bridge", Bridge: true, New: func() Strategy { return spy }},
	}
	r := NewRunner(Options{Pack: bridgePack(), Strategies: specs, Prices: testPrices()})
	if err := r.AddFile(file); err != nil {
		t.Fatal(err)
	}
	rep := r.Report()
	total := func(rec *recorder) []int64 {
		var out []int64
		for _, q := range rec.reqs {
			out = append(out, q.Total)
		}
		return out
	}
	// No recorded prompt sizes: the header is 0 characters.
	if d := cmp.Diff([]int64{int64(n(u1, trail)), int64(n(u1, a1, r1, trail))}, total(plain)); d != "" {
		t.Errorf("plain request sizes (-want +got):\n%s", d)
	}
	// The bridge strategy is told the sizes the bridge counts: the system
	// prompt (0 here: the header is too small to hold Pi's tools), then
	// the text of each message and each tool call's name and arguments.
	call := len("skill") + len(`{"name":"alpha"}`)
	if d := cmp.Diff([]int64{int64(len("load alpha")), int64(len("load alpha") + call + n(content))}, total(bridged)); d != "" {
		t.Errorf("bridge request sizes (-want +got):\n%s", d)
	}
	wantBodies := []lifecycle.BodyPosition{{ID: "c1", Offset: int64(len("load alpha") + call), Size: int64(n(content))}}
	if d := cmp.Diff(wantBodies, bridged.reqs[1].Bodies); d != "" {
		t.Errorf("bridge body positions (-want +got):\n%s", d)
	}
	// Priced, the bridge's requests carry its header difference.
	if got, want := rep.Strategies[2].PromptTokens-rep.Strategies[1].PromptTokens, (2*delta+n(a1b, r1b)-n(a1, r1)+3)/4; got < want-1 || got > want+1 {
		t.Errorf("bridge prompt tokens - plain = %d, want about %d", got, want)
	}
	wantLoad := []lifecycle.Load{{ID: "c1", Skill: "alpha", Size: int64(n(content)), Kind: lifecycle.ByTool, Hash: lifecycle.HashBody(content)}}
	if d := cmp.Diff(wantLoad, loads); d != "" {
		t.Errorf("loads the engine saw (-want +got):\n%s", d)
	}
	// Output: a1's call is ceil((5 + 16) / 4) = 6 tokens through the tool.
	if got := []int{rep.Strategies[1].OutputTokens, rep.Strategies[2].OutputTokens}; !cmp.Equal(got, []int{13, 7}) {
		t.Errorf("output tokens plain, bridge = %v, want [13 7]", got)
	}
}

// loadSpy records the loads it is told about.
type loadSpy struct {
	*recorder
	loads *[]lifecycle.Load
}

func (s *loadSpy) Observe(ev Event) {
	if ev.Type == lifecycle.EvLoad {
		*s.loads = append(*s.loads, *ev.Load)
	}
	s.recorder.Observe(ev)
}

// The bridge is modelled only on sessions recorded without it, and only
// when the pack says which skills Pi listed.
func TestBridgeViewWhen(t *testing.T) {
	viaTool := strings.NewReplacer(`"name":"read","arguments":{"path":"/p/.agents/skills/alpha/SKILL.md"}`, `"name":"skill","arguments":{"name":"alpha"}`,
		`"toolName":"read"`, `"toolName":"skill"`, `"text":"---\nname: alpha\ndescription: Alpha things.\n---\n\nALPHA BODY\n"`, `"text":"<skill_content name=\"alpha\">\nALPHA BODY\n</skill_content>"`)
	tests := []struct {
		name  string
		pack  *Pack
		lines []string
		want  bool
	}{
		{"read of SKILL.md, pack listed", bridgePack(), []string{bHeader, bU1, bA1, bR1, bA2}, true},
		{"no pack listing", &Pack{Names: map[string]bool{"alpha": true}}, []string{bHeader, bU1, bA1, bR1, bA2}, false},
		{"no pack", nil, []string{bHeader, bU1, bA1, bR1, bA2}, false},
		{"recorded with the skill tool", bridgePack(), []string{bHeader, bU1, viaTool.Replace(bA1), viaTool.Replace(bR1), bA2}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			spec := StrategySpec{Name: "bridge", Bridge: true, New: func() Strategy { rec.reqs = nil; return rec }}
			r := NewRunner(Options{Pack: tc.pack, Strategies: []StrategySpec{spec}, Prices: testPrices()})
			if err := r.AddFile(writeSession(t, tc.lines...)); err != nil {
				t.Fatal(err)
			}
			rep := r.Report()
			// The bridge's requests carry its header difference: they
			// are priced above keep-all's.
			k, b := rep.Strategies[0].PromptTokens, rep.Strategies[1].PromptTokens
			if got := b != k; got != tc.want {
				t.Errorf("bridge view applied = %v, want %v (prompt tokens %d, keep-all %d)", got, tc.want, b, k)
			}
		})
	}
}

// fixedRanker ranks by a table: prompt -> results, best first.
type fixedRanker map[string][]relevance.Result

func (f fixedRanker) Rank(text string, minSignal float64) relevance.Ranking {
	rs := f[text]
	r := relevance.Ranking{Results: rs}
	if len(rs) > 0 {
		r.Best = rs[0].Score
	}
	r.Signal = r.Best >= minSignal
	return r
}

func TestWantedBy(t *testing.T) {
	cfg := rules.Default() // topK 3, minSignal 2
	cfg.RelativeScore = 0.5
	rk := fixedRanker{
		"strong": {{Skill: "a", Score: 8}, {Skill: "b", Score: 4}, {Skill: "c", Score: 3.9}, {Skill: "d", Score: 2.5}},
		"wide":   {{Skill: "a", Score: 4}, {Skill: "b", Score: 3}, {Skill: "c", Score: 2.5}, {Skill: "d", Score: 2.1}},
		"weak":   {{Skill: "a", Score: 1.9}},
		"close":  {{Skill: "a", Score: 3}, {Skill: "b", Score: 1.9}},
		"router": {{Skill: "b", Score: 5}, {Skill: "r", Score: 4}},
		"route":  {{Skill: "r", Score: 5}, {Skill: "b", Score: 1}},
	}
	tests := []struct {
		prompt string
		want   []string
	}{
		{"strong", []string{"a", "b", "c"}},    // d fourth, under half the best
		{"wide", []string{"a", "b", "c", "d"}}, // d fourth, within half
		{"weak", nil},                          // the best under minSignal
		{"close", []string{"a"}},               // b within half, but under minSignal
		{"unknown", nil},
		{"router", []string{"b"}}, // the entry skill r is not a comeback next to b
		{"route", []string{"r"}},  // alone, it is
	}
	w := WantedBy(rk, cfg, "r", nil)
	for _, tc := range tests {
		if d := cmp.Diff(tc.want, w(tc.prompt)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.prompt, d)
		}
	}
	// A helper asked for by a word of its name, under minSignal; another
	// helper matched by other words is not.
	helpers := WantedBy(fixedRanker{"commit": {{Skill: "a", Score: 5}, {Skill: "format-commit-message", Score: 1.5, Terms: []string{"commit"}},
		{Skill: "write-notes", Score: 1.4, Terms: []string{"commit"}}, {Skill: "tag-release", Score: 1.3, Terms: []string{"commit"}}}},
		cfg, "r", func(s string) bool { return s != "a" && s != "write-notes" })
	if d := cmp.Diff([]string{"a", "format-commit-message"}, helpers("commit")); d != "" {
		t.Errorf("helpers (-want +got):\n%s", d)
	}
	if WantedBy(nil, cfg, "", nil) != nil {
		t.Error("no ranker: want no comeback model")
	}
}

// The agent comes back to the best-ranked archived skill that does the
// work, and to every archived helper the prompt asks for; to the helpers
// alone when the recorded turn only took helpers' steps; with all, to
// every archived skill asked for.
func TestPickComebacks(t *testing.T) {
	archived := func(names ...string) func(string) bool {
		return func(s string) bool { return slices.Contains(names, s) }
	}
	helper := func(s string) bool { return s == "h" }
	tests := []struct {
		name   string
		asked  []string
		gone   []string
		helper func(string) bool
		only   bool // helpersOnly
		all    bool
		want   []string
	}{
		{"the best ranked of two", []string{"a", "b"}, []string{"a", "b"}, helper, false, false, []string{"a"}},
		{"the best ranked not archived", []string{"a", "b"}, []string{"b"}, helper, false, false, nil},
		{"none archived", []string{"a", "b"}, nil, helper, false, false, nil},
		{"a helper beside the skill not archived", []string{"a", "h"}, []string{"h"}, helper, false, false, []string{"h"}},
		{"all, beside the skill not archived", []string{"a", "b"}, []string{"b"}, nil, false, true, []string{"b"}},
		{"a helper as well", []string{"h", "a", "b"}, []string{"a", "b", "h"}, helper, false, false, []string{"h", "a"}},
		{"a helper alone", []string{"a", "h"}, []string{"h"}, helper, false, false, []string{"h"}},
		{"no helpers known", []string{"h", "a"}, []string{"a", "h"}, nil, false, false, []string{"h"}},
		{"the turn only took the helper's step", []string{"a", "h"}, []string{"a", "h"}, helper, true, false, []string{"h"}},
		{"only helpers' steps, none asked for", []string{"a", "b"}, []string{"a", "b"}, helper, true, false, nil},
		{"only helpers' steps, no helpers known", []string{"a", "b"}, []string{"a", "b"}, nil, true, false, []string{"a"}},
		{"only helpers' steps, all", []string{"a", "h"}, []string{"a", "h"}, helper, true, true, []string{"a", "h"}},
		{"all", []string{"a", "b", "h"}, []string{"a", "b", "h"}, helper, false, true, []string{"a", "b", "h"}},
		{"all, archived only", []string{"a", "b"}, []string{"b"}, nil, false, true, []string{"b"}},
	}
	for _, tc := range tests {
		got := PickComebacks(tc.asked, archived(tc.gone...), tc.helper, tc.only, tc.all)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

// A comeback: the third prompt asks for alpha, archived at the second; the
// agent loads it again with one more request at the turn's start, unless
// the session shows it loading a skill of its own there.
func TestComebacks(t *testing.T) {
	const (
		u2 = `{"type":"message","id":"u2","parentId":"a2","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"other topic"}],"timestamp":1767225605000}}`
		a3 = `{"type":"message","id":"a3","parentId":"u2","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"fake","model":"a","usage":{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1},"stopReason":"stop","timestamp":1767225606000}}`
		u3 = `{"type":"message","id":"u3","parentId":"a3","timestamp":"2026-01-01T00:00:07.000Z","message":{"role":"user","content":[{"type":"text","text":"alpha again"}],"timestamp":1767225607000}}`
		a4 = `{"type":"message","id":"a4","parentId":"u3","timestamp":"2026-01-01T00:00:08.000Z","message":{"role":"assistant","content":[{"type":"text","text":"fin"}],"provider":"fake","model":"a","usage":{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1},"stopReason":"stop","timestamp":1767225608000}}`
		// a4 reading beta's SKILL.md instead: the agent picks its skill.
		a4b = `{"type":"message","id":"a4","parentId":"u3","timestamp":"2026-01-01T00:00:08.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c4","name":"read","arguments":{"path":"/p/.agents/skills/beta/SKILL.md"}}],"provider":"fake","model":"a","usage":{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1},"stopReason":"toolUse","timestamp":1767225608000}}`
	)
	comebacks := func(p string, archived func(string) bool, only, all bool) []string {
		if strings.Contains(p, "alpha") {
			return PickComebacks([]string{"alpha"}, archived, nil, only, all)
		}
		return nil
	}
	tests := []struct {
		name  string
		last  string
		want  []int // requests, comebacks, reloads
		model bool
		off   bool // Options.NoComebacks
	}{
		{"prompt asks for the archived skill", a4, []int{5, 1, 1}, true, false},
		{"the agent loads another skill first", a4b, []int{4, 0, 0}, true, false},
		{"no comeback model", a4, []int{4, 0, 0}, false, false},
		{"comeback model switched off (--no-comebacks)", a4, []int{4, 0, 0}, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := StrategySpec{Name: "scripted", Bridge: true, New: func() Strategy { return &scripted{} }}
			if tc.model {
				spec.Comebacks = comebacks
			}
			r := NewRunner(Options{Pack: bridgePack(), Strategies: []StrategySpec{spec}, Prices: testPrices(), NoComebacks: tc.off})
			if err := r.AddFile(writeSession(t, bHeader, bU1, bA1, bR1, bA2, u2, a3, u3, tc.last)); err != nil {
				t.Fatal(err)
			}
			s := r.Report().Strategies[1]
			if d := cmp.Diff(tc.want, []int{s.Requests, s.Comebacks, s.Reloads}); d != "" {
				t.Errorf("requests, comebacks, reloads (-want +got):\n%s", d)
			}
		})
	}
}

// A turn whose recorded work is a helper's step alone (a commit) brings
// back no skill that does the work, though its prompt asks for one
// ("Commit the index migration."); a turn that does more (a tag) does.
func TestComebacksHelperOnlyTurn(t *testing.T) {
	const (
		u2 = `{"type":"message","id":"u2","parentId":"a2","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"other topic"}],"timestamp":1767225605000}}`
		a3 = `{"type":"message","id":"a3","parentId":"u2","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"fake","model":"a","usage":{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1},"stopReason":"stop","timestamp":1767225606000}}`
		u3 = `{"type":"message","id":"u3","parentId":"a3","timestamp":"2026-01-01T00:00:07.000Z","message":{"role":"user","content":[{"type":"text","text":"commit the alpha work"}],"timestamp":1767225607000}}`
		a4 = `{"type":"message","id":"a4","parentId":"u3","timestamp":"2026-01-01T00:00:08.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c4","name":"bash","arguments":{"command":%q}}],"provider":"fake","model":"a","usage":{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1},"stopReason":"toolUse","timestamp":1767225608000}}`
		r4 = `{"type":"message","id":"r4","parentId":"a4","timestamp":"2026-01-01T00:00:09.000Z","message":{"role":"toolResult","toolCallId":"c4","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":1767225609000}}`
		a5 = `{"type":"message","id":"a5","parentId":"r4","timestamp":"2026-01-01T00:00:10.000Z","message":{"role":"assistant","content":[{"type":"text","text":"fin"}],"provider":"fake","model":"a","usage":{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1},"stopReason":"stop","timestamp":1767225610000}}`
	)
	const fcm = "format-commit-message"
	helper := func(s string) bool { return s == fcm }
	comebacks := func(p string, archived func(string) bool, only, all bool) []string {
		if strings.Contains(p, "alpha") {
			return PickComebacks([]string{"alpha", fcm}, archived, helper, only, all)
		}
		return nil
	}
	tests := []struct {
		name, command string
		all           bool
		want          []int // requests, comebacks, reloads
	}{
		{"the turn only commits", "git add -A && git commit -q -m 'feat: alpha'", false, []int{5, 0, 0}},
		{"the turn also tags", "git tag v1.0.0", false, []int{6, 1, 1}},
		{"only commits, every comeback", "git commit -q -m 'feat: alpha'", true, []int{6, 1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pack := bridgePack()
			pack.Names[fcm] = true
			spec := StrategySpec{Name: "scripted", Bridge: true, New: func() Strategy { return &scripted{} }, Comebacks: comebacks, Helper: helper}
			r := NewRunner(Options{Pack: pack, Strategies: []StrategySpec{spec}, Prices: testPrices(), AllComebacks: tc.all})
			if err := r.AddFile(writeSession(t, bHeader, bU1, bA1, bR1, bA2, u2, a3, u3, fmt.Sprintf(a4, tc.command), r4, a5)); err != nil {
				t.Fatal(err)
			}
			s := r.Report().Strategies[1]
			if d := cmp.Diff(tc.want, []int{s.Requests, s.Comebacks, s.Reloads}); d != "" {
				t.Errorf("requests, comebacks, reloads (-want +got):\n%s", d)
			}
		})
	}
}

// The bridge counts JavaScript's characters of each message's content
// (extension/loads.ts, messageSize), not the request's JSON.
func TestBridgeSize(t *testing.T) {
	ph := func(string) string { return "[archived]" }
	block := "<skill name=\"beta\" location=\"/pack/beta/SKILL.md\">\nBETA\n</skill>"
	tests := []struct {
		name       string
		cm         *session.ContextMessage
		m          *session.Message
		replace    func(string) string
		size, body int
	}{
		{"user text", nil, &session.Message{Role: session.RoleUser, Blocks: []session.Block{{Type: "text", Text: "héllo"}, {Type: "image"}}}, nil, 5, 0},
		{"astral characters count two", nil, &session.Message{Role: session.RoleUser, Blocks: []session.Block{{Type: "text", Text: "a😀"}}}, nil, 3, 0},
		{"assistant text, thinking and call", nil, &session.Message{Role: session.RoleAssistant, Blocks: []session.Block{
			{Type: "thinking", Thinking: "hmm"}, {Type: "text", Text: "ok"},
			{Type: "toolCall", Name: "read", Arguments: `{"path": "a b"}`}}}, nil, 3 + 2 + 4 + len(`{"path":"a b"}`), 0},
		{"tool result", nil, &session.Message{Role: session.RoleToolResult, Blocks: []session.Block{{Type: "text", Text: "BODY\n"}}}, nil, 5, 5},
		{"archived tool result", nil, &session.Message{Role: session.RoleToolResult, Blocks: []session.Block{{Type: "text", Text: "BODY\n"}}}, ph, 10, 10},
		{"/skill: block", nil, &session.Message{Role: session.RoleUser, Blocks: []session.Block{{Type: "text", Text: block + "\n\nplease"}}}, nil, len(block) + 8, len(block)},
		{"/skill: block archived", nil, &session.Message{Role: session.RoleUser, Blocks: []session.Block{{Type: "text", Text: block + "\n\nplease"}}},
			func(t string) string { return replaceSkillBlock(t, "[archived]") }, 10 + 8, 10},
		{"compaction summary", &session.ContextMessage{Kind: session.FromCompaction, Entry: &session.Entry{}},
			&session.Message{Role: session.RoleUser, Blocks: []session.Block{{Type: "text", Text: "summary"}}}, nil, 0, 0},
		{"bash execution", &session.ContextMessage{Kind: session.FromMessage, Entry: &session.Entry{Message: &session.Message{Role: "bashExecution"}}},
			&session.Message{Role: session.RoleUser, Blocks: []session.Block{{Type: "text", Text: "Ran `ls`"}}}, nil, 0, 0},
	}
	for _, tc := range tests {
		size, body := bridgeSize(tc.cm, tc.m, tc.replace)
		if size != tc.size || body != tc.body {
			t.Errorf("%s: size, body = %d, %d, want %d, %d", tc.name, size, body, tc.size, tc.body)
		}
	}
	// The system prompt: the header less Pi 1.6's tools, the skill tool
	// and the JSON around the prompt.
	if got, want := bridgeBase(10000, false), 10000-piToolsChars-systemFraming; got != want {
		t.Errorf("bridgeBase without the skill tool = %d, want %d", got, want)
	}
	if got, want := bridgeBase(10000, true), 10000-piToolsChars-systemFraming-n(skillToolJSON()); got != want {
		t.Errorf("bridgeBase with the skill tool = %d, want %d", got, want)
	}
	if got := bridgeBase(100, true); got != 0 {
		t.Errorf("bridgeBase of a small header = %d, want 0", got)
	}
}

// TestReusedToolCallIDs (issue 27, item 3): a provider that returns the
// same tool call id for every call. Replay names the loads as the bridge
// does: by the id the bridge recorded (details.loadId), else, for a
// session recorded without it, "<id>#<n>" for each repeat, so that two
// loads never share a name and a placeholder replaces only its own result.
func TestReusedToolCallIDs(t *testing.T) {
	msg := func(id, parent, ts string, m string) string {
		return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-01-01T00:00:0` + ts + `.000Z","message":` + m + `}`
	}
	read := func(skill string) string {
		return `{"role":"assistant","content":[{"type":"toolCall","id":"call_0","name":"read","arguments":{"path":"/p/.agents/skills/` + skill + `/SKILL.md"}}],"provider":"fake","model":"a","stopReason":"toolUse"}`
	}
	call := func(skill string) string {
		return `{"role":"assistant","content":[{"type":"toolCall","id":"call_0","name":"skill","arguments":{"name":"` + skill + `"}}],"provider":"fake","model":"a","stopReason":"toolUse"}`
	}
	result := func(tool, text, details string) string {
		return `{"role":"toolResult","toolCallId":"call_0","toolName":"` + tool + `","content":[{"type":"text","text":"` + text + `"}],` + details + `"isError":false}`
	}
	user := `{"role":"user","content":[{"type":"text","text":"go"}]}`
	for _, tc := range []struct {
		name  string
		lines []string
		want  []string // the load ids, in order
	}{
		{"recorded without the bridge", []string{
			msg("u1", "null", "1", user),
			msg("a1", `"u1"`, "2", read("alpha")), msg("r1", `"a1"`, "3", result("read", "ALPHA BODY", "")),
			msg("a2", `"r1"`, "4", read("beta")), msg("r2", `"a2"`, "5", result("read", "BETA BODY", "")),
			msg("a3", `"r2"`, "6", read("alpha")), msg("r3", `"a3"`, "7", result("read", "ALPHA BODY", "")),
		}, []string{"call_0", "call_0#2", "call_0#3"}},
		{"recorded with the bridge", []string{
			msg("u1", "null", "1", user),
			msg("a1", `"u1"`, "2", call("alpha")), msg("r1", `"a1"`, "3", result("skill", "<skill_content name=\\\"alpha\\\">ALPHA</skill_content>", `"details":{"skill":"alpha","loadId":"call_0"},`)),
			msg("a2", `"r1"`, "4", call("beta")), msg("r2", `"a2"`, "5", result("skill", "<skill_content name=\\\"beta\\\">BETA</skill_content>", `"details":{"skill":"beta","loadId":"call_0#7"},`)),
		}, []string{"call_0", "call_0#7"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := session.ReadFile(writeSession(t, append([]string{bHeader}, tc.lines...)...), nil)
			if err != nil {
				t.Fatal(err)
			}
			r := NewRunner(Options{Prices: testPrices()})
			b := r.newBranch(s.Branch(s.Leaf()), "/p")
			var ids []string
			var results []*session.Entry
			for _, e := range b.br {
				for _, l := range b.info.loads[e] {
					ids = append(ids, l.ID)
				}
				if e.Message != nil && e.Message.Role == session.RoleToolResult {
					results = append(results, e)
				}
			}
			if d := cmp.Diff(tc.want, ids); d != "" {
				t.Fatalf("load ids (-want +got):\n%s", d)
			}
			// Archiving the first load replaces its result only.
			arch := map[string]string{tc.want[0]: "[gone]"}
			for i, e := range results {
				lm := llmMessage{cm: &session.ContextMessage{Entry: e, Kind: session.FromMessage, Message: e.Message}, key: e}
				gone := strings.Contains(b.msgSegment(lm, arch, nil).seg.Text, "[gone]")
				if gone != (i == 0) {
					t.Errorf("result %d replaced: %v", i, gone)
				}
				if id := b.bodyID(lm); id != tc.want[i] {
					t.Errorf("result %d: body id %q, want %q", i, id, tc.want[i])
				}
			}
		})
	}
}

// A shell command taking a helper's step ("git commit" for
// format-commit-message) uses the helper: with its body archived, the
// agent loads it first, as it does on a file of the skill's folder.
func TestHelperStepIsAUse(t *testing.T) {
	const (
		u2 = `{"type":"message","id":"u2","parentId":"a2","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"other topic"}],"timestamp":1767225605000}}`
		a3 = `{"type":"message","id":"a3","parentId":"u2","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c3","name":"bash","arguments":{"command":"git alpha -m 'x'"}}],"provider":"fake","model":"a","usage":{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1},"stopReason":"toolUse","timestamp":1767225606000}}`
		r3 = `{"type":"message","id":"r3","parentId":"a3","timestamp":"2026-01-01T00:00:06.500Z","message":{"role":"toolResult","toolCallId":"c3","toolName":"bash","content":[{"type":"text","text":"ok"}],"isError":false,"timestamp":1767225606500}}`
		a4 = `{"type":"message","id":"a4","parentId":"r3","timestamp":"2026-01-01T00:00:07.000Z","message":{"role":"assistant","content":[{"type":"text","text":"fin"}],"provider":"fake","model":"a","usage":{"input":0,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":1},"stopReason":"stop","timestamp":1767225607000}}`
	)
	for _, tc := range []struct {
		name   string
		helper func(string) bool
		want   []int // requests, orphan uses, reloads
	}{
		{"alpha a helper", func(s string) bool { return s == "alpha" }, []int{5, 1, 1}},
		{"no helper", func(s string) bool { return s == "beta" }, []int{4, 0, 0}},
	} {
		spec := StrategySpec{Name: "scripted", Bridge: true, New: func() Strategy { return &scripted{} }, Helper: tc.helper}
		r := NewRunner(Options{Pack: bridgePack(), Strategies: []StrategySpec{spec}, Prices: testPrices()})
		if err := r.AddFile(writeSession(t, bHeader, bU1, bA1, bR1, bA2, u2, a3, r3, a4)); err != nil {
			t.Fatal(err)
		}
		s := r.Report().Strategies[1]
		if d := cmp.Diff(tc.want, []int{s.Requests, s.OrphanUses, s.Reloads}); d != "" {
			t.Errorf("%s: requests, orphan uses, reloads (-want +got):\n%s", tc.name, d)
		}
	}
}
