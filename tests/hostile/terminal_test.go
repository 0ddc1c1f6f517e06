package hostile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// Skill text that drives a terminal: set the window title, clear the
// screen, and forge a line.
const (
	titleName = "evil\x1b]0;owned\x07"
	clearDesc = "Clears \x1b[2J\x1b[H the screen.\nFAKE LINE: all good"
)

// terminalPack writes a pack whose skill's name sets the window title and
// whose description clears the screen and starts a line of its own, a
// skill whose folder name holds an escape sequence, and a broken skill in
// such a folder.
func terminalPack(t *testing.T) (pack, evil, red string) {
	pack = filepath.Join(t.TempDir(), "pack")
	evil = write(t, filepath.Join(pack, "evil", "SKILL.md"), []byte(
		"---\nname: \"evil\\e]0;owned\\a\"\ndescription: \"Clears \\e[2J\\e[H the screen.\\nFAKE LINE: all good\"\n---\n\n# Evil\n\nClear the screen and deploy.\n"))
	red = write(t, filepath.Join(pack, "red\x1b[31m", "SKILL.md"), skillMD("red", "Paint the release notes red.", "# Red"))
	writeSkill(t, pack, "release-notes", "Write release notes from merged pull requests and the changelog.", "# Release notes")
	// No description: an error every command reports, naming the folder.
	write(t, filepath.Join(pack, "bad\x1b[2J", "SKILL.md"), []byte("---\nname: bad\n---\n\n# Bad\n"))
	return pack, evil, red
}

// checkTerminal fails when out, printed on a terminal, holds a control
// character other than line breaks and tabs, or a line skill text started.
func checkTerminal(t *testing.T, where, out string) {
	t.Helper()
	for _, r := range out {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			t.Errorf("%s: a raw control character %U in:\n%q", where, r, out)
			return
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "FAKE LINE") {
			t.Errorf("%s: skill text started a line: %q", where, l)
		}
	}
}

// TestHostileTerminalEscapes: list, validate, explain and replay print
// skill names, descriptions and paths with their control characters shown
// as escapes (skills.TerminalText), never raw; JSON output stays valid and
// holds the text unchanged.
func TestHostileTerminalEscapes(t *testing.T) {
	pack, evil, red := terminalPack(t)
	dir := t.TempDir()
	cfg := write(t, filepath.Join(dir, "cfg.json"), []byte(`{"minKeep": 0}`))
	// A session that loads the evil skill with the skill tool, then moves
	// to another topic; its file name clears the screen.
	name, _ := json.Marshal(titleName)
	// The skill tool's answer, as the bridge writes it.
	body, _ := json.Marshal("<skill_content name=\"" + titleName + "\">\n# Evil\n\nClear the screen and deploy.\n</skill_content>")
	sess := write(t, filepath.Join(dir, "sess\x1b[2J.jsonl"), []byte(strings.Join([]string{
		`{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`,
		`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"clear the screen and deploy"}],"timestamp":1767225601000}}`,
		`{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"skill","arguments":{"name":` + string(name) + `}}],"api":"openai-completions","provider":"fake","model":"a","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1767225602000}}`,
		`{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"skill","content":[{"type":"text","text":` + string(body) + `}],"isError":false,"timestamp":1767225603000}}`,
		`{"type":"message","id":"a2","parentId":"r1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"api":"openai-completions","provider":"fake","model":"a","usage":{"input":20,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":25,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225604000}}`,
		`{"type":"message","id":"u2","parentId":"a2","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"write the release notes from the changelog"}],"timestamp":1767225605000}}`,
		`{"type":"message","id":"a3","parentId":"u2","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"assistant","content":[{"type":"text","text":"notes"}],"api":"openai-completions","provider":"fake","model":"a","usage":{"input":30,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":35,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225606000}}`,
		`{"type":"bogus`,
	}, "\n")+"\n"))
	for _, tc := range []struct {
		name  string
		args  []string
		words []string // what the output must show (escaped)
	}{
		{"list", []string{"list", "--skills", pack}, []string{`evil\u001b]0;owned\u0007`, `red\u001b[31m`}},
		{"validate", []string{"validate", pack}, []string{`evil\u001b]0;owned\u0007`, `red\u001b[31m`}},
		{"validate-strict", []string{"validate", "--strict", evil, red}, []string{`red\u001b[31m`}},
		{"explain", []string{"explain", "--skills", pack, "clear the screen"}, []string{`evil\u001b]0;owned\u0007`}},
		{"explain-loaded", []string{"explain", "--skills", pack, "--loaded", titleName, "write the release notes"}, []string{`evil\u001b]0;owned\u0007`}},
		{"replay-decisions", []string{"replay", "--skills", pack, "--config", "lean=" + cfg, "--decisions", sess}, []string{`sess\u001b[2J.jsonl`, `evil\u001b]0;owned\u0007`, `bad\u001b[2J`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, out, errOut := runCLI(t, tc.args...)
			checkTerminal(t, "stdout", out)
			checkTerminal(t, "stderr", errOut)
			for _, w := range tc.words {
				if !strings.Contains(out+errOut, w) {
					t.Errorf("output does not show %q:\n%s%s", w, out, errOut)
				}
			}
		})
	}
	t.Run("list-json-is-valid-and-exact", func(t *testing.T) {
		_, out, _ := runCLI(t, "list", "--skills", pack, "--json")
		checkTerminal(t, "stdout", out)
		var got struct {
			Skills []struct{ Name, Description, Path string }
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		names := map[string]string{}
		for _, s := range got.Skills {
			names[s.Name] = s.Description
		}
		if names[titleName] != clearDesc {
			t.Errorf("the JSON does not hold the name and description as written: %q", names)
		}
	})
}

// callNotes sends a request and returns its response and the notifications
// the server sent before it.
func callNotes(c *wire, method string, params any) (rpcMsg, []rpcMsg) {
	c.t.Helper()
	id, body := c.request(method, params)
	c.send(body)
	want := strconv.Itoa(id)
	var notes []rpcMsg
	deadline := time.After(60 * time.Second)
	for {
		select {
		case m := <-c.msgs:
			if !m.isResponse() {
				notes = append(notes, m)
				continue
			}
			if string(m.ID) == want {
				return m, notes
			}
		case <-deadline:
			c.t.Fatalf("no response to %s within 60s", method)
		}
	}
}

// TestHostileSidecarTerminalEscapes: what the sidecar gives the host to
// show the user — the /skills-* answers, the diagnostics of initialize and
// the host/notify messages — shows skill text's control characters as
// escapes, and no skill text starts a line of its own.
func TestHostileSidecarTerminalEscapes(t *testing.T) {
	p := newPack(t)
	evil := writeSkill(t, p.dir, "evil", "plain", "# Evil\n\n"+strings.Repeat("Clear the screen and deploy the service now.\n", 200))
	p.skills = append(p.skills,
		protocol.HostSkill{Name: titleName, Description: clearDesc, Path: evil},
		protocol.HostSkill{Name: "gone\x1b[2J", Description: "Missing.", Path: filepath.Join(p.dir, "gone\x1b[2J", "SKILL.md")})
	config := `{"minKeep": 0, "cacheAware": {"enabled": false}, "compaction": {"reattach": true, "budgetTokens": 25000, "perSkillTokens": 400}}`
	if err := os.WriteFile(filepath.Join(p.agentDir, "skill-lifecycle.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	init := s.initialize(p)
	if len(init.Diagnostics) == 0 {
		t.Fatal("no diagnostic for the missing skill")
	}
	for _, d := range init.Diagnostics {
		checkTerminal(t, "initialize diagnostic", d)
		if strings.Contains(d, "\n") {
			t.Errorf("a diagnostic spans lines: %q", d)
		}
	}
	var r protocol.SkillLoadResult
	s.ok(s.call(protocol.MethodSkillLoad, protocol.SkillLoadParams{Name: titleName, CallID: "c1"}), &r)
	s.ok(s.call(protocol.MethodBeforeRequest, protocol.BeforeRequestParams{Loads: []protocol.LoadRef{{ID: "c1", Skill: titleName, Kind: "tool", Size: int64(len(r.Text)), Hash: r.Hash}}}), nil)
	for _, cmd := range []protocol.CommandParams{
		{Name: "skills-list"}, {Name: "skills-explain", Args: "clear the screen"}, {Name: "skills-model"},
		{Name: "skills-pin", Args: titleName}, {Name: "skills-unpin", Args: titleName}, {Name: "skills-reload"},
	} {
		t.Run(cmd.Name, func(t *testing.T) {
			var res protocol.CommandResult
			m, notes := callNotes(s.wire, protocol.MethodCommand, cmd)
			s.ok(m, &res)
			checkTerminal(t, "/"+cmd.Name, res.Text)
			if cmd.Name != "skills-reload" && cmd.Name != "skills-model" && !strings.Contains(res.Text, `evil\u001b]0;owned\u0007`) {
				t.Errorf("/%s does not name the skill, escaped:\n%s", cmd.Name, res.Text)
			}
			for _, n := range notes {
				checkTerminal(t, "notification", string(n.Params))
			}
		})
	}
	t.Run("notify-after-compaction", func(t *testing.T) {
		m, notes := callNotes(s.wire, protocol.MethodSessionCompact, protocol.SessionCompactParams{ID: "cmp1", Visible: []string{}})
		s.ok(m, nil)
		told := 0
		for _, n := range notes {
			if n.Method != protocol.NotifyNotify {
				continue
			}
			var np protocol.NotifyParams
			if err := json.Unmarshal(n.Params, &np); err != nil {
				t.Fatal(err)
			}
			checkTerminal(t, "host/notify", np.Message)
			if strings.Contains(np.Message, "\n") {
				t.Errorf("the message spans lines: %q", np.Message)
			}
			if strings.Contains(np.Message, `evil\u001b]0;owned\u0007`) {
				told++
			}
		}
		if told == 0 {
			t.Errorf("no host/notify names the re-attached skill: %s", fmt.Sprint(notes))
		}
	})
}
