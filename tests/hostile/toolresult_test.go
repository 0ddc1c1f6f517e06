package hostile

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// toolResult sends a tool_result and returns its answer.
func toolResult(t *testing.T, s *served, tool string, input map[string]any, text string) protocol.ToolResultResult {
	t.Helper()
	in, _ := json.Marshal(input)
	var r protocol.ToolResultResult
	s.ok(s.call(protocol.MethodToolResult, protocol.ToolResultParams{ToolName: tool, Input: in, Text: text}), &r)
	return r
}

// TestHostileToolResultBody: a skill's body that reaches the model in a
// tool's output past the guard (bash base64 -d, a copy read back) is
// recognised, with the skill tool's hash, and once the host lists it as a
// load it counts as one: the skill tool answers "already loaded". A part
// of the body, a failed call and the skill tool's own result are not
// loads (issue 31).
func TestHostileToolResultBody(t *testing.T) {
	p := newPack(t)
	body := "# Decoded skill\n\n" + strings.Repeat("Follow the decoded steps carefully.\n", 8)
	file := writeSkill(t, p.dir, "decoded", "A skill the model decodes.", body)
	p.skills = append(p.skills, protocol.HostSkill{Name: "decoded", Description: "A skill the model decodes.", Path: file})
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(p)
	var load protocol.SkillLoadResult
	s.ok(s.call(protocol.MethodSkillLoad, protocol.SkillLoadParams{Name: "decoded"}), &load)

	out := "$ base64 -d skill.b64\n" + body + "\n"
	r := toolResult(t, s, "bash", map[string]any{"command": "base64 -d skill.b64"}, out)
	if r.Body == nil || r.Body.Skill != "decoded" || r.Body.Hash != load.Hash {
		t.Fatalf("body in bash output: got %+v, want skill decoded with hash %s", r.Body, load.Hash)
	}
	if r := toolResult(t, s, "read", map[string]any{"path": "/tmp/copy.md"}, "---\nname: decoded\n---\n"+body); r.Body == nil || r.Body.Skill != "decoded" {
		t.Errorf("copy read back: got %+v", r.Body)
	}
	for name, text := range map[string]string{"half": body[:len(body)/2], "other": "ok\n"} {
		if r := toolResult(t, s, "bash", map[string]any{"command": "x"}, text); r.Body != nil {
			t.Errorf("%s: found %+v", name, r.Body)
		}
	}
	in, _ := json.Marshal(map[string]any{"command": "x"})
	var bad protocol.ToolResultResult
	s.ok(s.call(protocol.MethodToolResult, protocol.ToolResultParams{ToolName: "bash", Input: in, Text: out, IsError: true}), &bad)
	if bad.Body != nil {
		t.Errorf("failed call: found %+v", bad.Body)
	}
	if r := toolResult(t, s, "skill", map[string]any{"name": "decoded"}, load.Text); r.Body != nil {
		t.Errorf("skill tool result: found %+v", r.Body)
	}
	// The host lists the result as a load of kind read with its hash: it
	// is recorded, and the skill tool answers "already loaded".
	s.ok(s.call(protocol.MethodBeforeRequest, protocol.BeforeRequestParams{Loads: []protocol.LoadRef{{ID: "b1", Skill: "decoded", Kind: "read", Size: int64(len(out)), Hash: r.Body.Hash}}}), nil)
	var again protocol.SkillLoadResult
	s.ok(s.call(protocol.MethodSkillLoad, protocol.SkillLoadParams{Name: "decoded", CallID: "c2"}), &again)
	if !again.AlreadyLoaded {
		t.Errorf("skill tool after the bash-delivered body: not already loaded: %+v", again)
	}
}

// TestHostileOrphanNote: a tool call that uses a file of a skill whose
// body is archived gets one line saying the instructions were archived
// and how to load them, once per archived copy, recorded (an orphan
// record) and remembered across a restore; calls on the skill's SKILL.md,
// on a live skill's files or elsewhere get none (issue 31).
func TestHostileOrphanNote(t *testing.T) {
	p := newPack(t)
	dir := filepath.Dir(p.skills[1].Path) // go-tests
	ref := write(t, filepath.Join(dir, "references", "indexes.md"), []byte("# indexes\n"))
	write(t, filepath.Join(p.agentDir, "skill-lifecycle.json"), []byte(`{"minKeep": 0, "cacheAware": {"enabled": false}}`))
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(p)
	loads := []protocol.LoadRef{{ID: "c1", Skill: "go-tests", Kind: "tool", Size: 6000}}
	s.ok(s.call(protocol.MethodBeforeRequest, protocol.BeforeRequestParams{Loads: loads}), nil)
	if r := toolResult(t, s, "read", map[string]any{"path": ref}, "# indexes\n"); r.Note != "" {
		t.Fatalf("live skill's file: note %q", r.Note)
	}
	s.ok(s.call(protocol.MethodUserPrompt, protocol.UserPromptParams{Text: "write the release notes from the changelog"}), nil)
	var br protocol.BeforeRequestResult
	s.ok(s.call(protocol.MethodBeforeRequest, protocol.BeforeRequestParams{Loads: loads}), &br)
	if len(br.Archive) != 1 {
		t.Fatalf("archive = %+v, want the go-tests body", br.Archive)
	}
	s.notes = nil
	for _, tc := range []struct {
		name, tool string
		input      map[string]any
	}{
		{"its SKILL.md", "read", map[string]any{"path": p.skills[1].Path}},
		{"another skill's file", "read", map[string]any{"path": filepath.Join(filepath.Dir(p.skills[0].Path), "x.md")}},
		{"elsewhere", "bash", map[string]any{"command": "ls -la"}},
	} {
		if r := toolResult(t, s, tc.tool, tc.input, "x"); r.Note != "" {
			t.Errorf("%s: note %q", tc.name, r.Note)
		}
	}
	r := toolResult(t, s, "bash", map[string]any{"command": "python3 " + filepath.Join(dir, "scripts", "check.py")}, "ok\n")
	if !strings.Contains(r.Note, `skill "go-tests" were archived`) || !strings.Contains(r.Note, `call skill with name "go-tests"`) || strings.Contains(r.Note, "\n") {
		t.Fatalf("orphan use: note %q, want one line pointing to the skill tool", r.Note)
	}
	var records []json.RawMessage
	for _, n := range s.notes {
		var e struct {
			Data json.RawMessage `json:"data"`
		}
		if n.Method == "host/appendEntry" && json.Unmarshal(n.Params, &e) == nil {
			records = append(records, e.Data)
			if strings.Contains(string(e.Data), `"action":"orphan"`) && !strings.Contains(string(e.Data), `"id":"c1"`) {
				t.Errorf("orphan record without the body's id: %s", e.Data)
			}
		}
	}
	if len(records) != 1 || !strings.Contains(string(records[0]), `"action":"orphan"`) {
		t.Fatalf("records = %s, want one orphan record", records)
	}
	if r := toolResult(t, s, "read", map[string]any{"path": ref}, "# indexes\n"); r.Note != "" {
		t.Errorf("second use of the same archived copy: note %q", r.Note)
	}
	// A restarted sidecar restores the records: it does not tell again.
	s2 := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s2.initialize(p)
	all := []json.RawMessage{
		json.RawMessage(`{"v":1,"action":"load","id":"c1","skill":"go-tests","size":6000,"kind":"tool"}`),
		json.RawMessage(`{"v":1,"action":"archive","id":"c1","skill":"go-tests","placeholder":"[archived]"}`),
		records[0],
	}
	var rr protocol.SessionRestoreResult
	s2.ok(s2.call(protocol.MethodSessionRestore, protocol.SessionRestoreParams{Records: all}), &rr)
	if len(rr.Problems) != 0 || rr.Archived != 1 {
		t.Fatalf("restore: %+v", rr)
	}
	if r := toolResult(t, s2, "read", map[string]any{"path": ref}, "# indexes\n"); r.Note != "" {
		t.Errorf("after a restore: note %q", r.Note)
	}
}
