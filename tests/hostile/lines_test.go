package hostile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// linesSession plays four turns against the sidecar: a migration,
// release notes, the migration again (its first copy and the release
// notes are archived), the release notes again (they come back). It returns the host/line notifications and the
// footer status of each request.
func linesSession(t *testing.T, config string, pin bool) (lines []protocol.LineParams, status []string, archived bool) {
	t.Helper()
	p := newPack(t)
	body := "# Migrations\n\n" + strings.Repeat("Write the up and down SQL; create indexes concurrently.\n", 150)
	p.skills[0].Path = writeSkill(t, p.dir, "sql-migration", p.skills[0].Description, body)
	if err := os.WriteFile(filepath.Join(p.agentDir, "skill-lifecycle.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	ip := p.initParams()
	price := func(v float64) *float64 { return &v }
	ip.Models = []protocol.HostModel{{Provider: "p", ID: "m", Input: price(3), Output: price(15), CacheRead: price(0.3), CacheWrite: price(3.75)}}
	ip.CurrentModel = &protocol.ModelRef{Provider: "p", ID: "m"}
	s.ok(s.call(protocol.MethodInitialize, ip), nil)

	const base = 4000 // the system prompt and the messages before the first load
	var loads []protocol.LoadRef
	var total, prevTotal int64 = base, 0
	request := func() protocol.BeforeRequestResult {
		m, notes := callNotes(s.wire, protocol.MethodBeforeRequest, protocol.BeforeRequestParams{
			Loads: loads, SincePreviousMs: 2000, Total: total, PreviousSize: prevTotal,
		})
		prevTotal = total
		var br protocol.BeforeRequestResult
		s.ok(m, &br)
		for _, a := range br.Archive {
			if a.ID == "c1" {
				archived = true
			}
		}
		for _, n := range notes {
			if n.Method != protocol.NotifyLine {
				continue
			}
			var l protocol.LineParams
			if err := json.Unmarshal(n.Params, &l); err != nil {
				t.Fatal(err)
			}
			checkTerminal(t, "host/line", l.Text)
			lines = append(lines, l)
		}
		status = append(status, br.Status)
		return br
	}
	turn := func(prompt, skill, id string) protocol.BeforeRequestResult {
		s.ok(s.call(protocol.MethodUserPrompt, protocol.UserPromptParams{Text: prompt}), nil)
		var r protocol.SkillLoadResult
		s.ok(s.call(protocol.MethodSkillLoad, protocol.SkillLoadParams{Name: skill, CallID: id}), &r)
		loads = append(loads, protocol.LoadRef{ID: id, Skill: skill, Kind: "tool", Size: int64(len(r.Text)), Hash: r.Hash, Offset: total})
		total += int64(len(r.Text)) + 500
		return request()
	}
	turn("write a postgres migration that adds an index on orders.created_at", "sql-migration", "c1")
	turn("write the release notes for the merged pull requests of this week", "release-notes", "c2")
	turn("now a postgres migration that drops the old orders index", "sql-migration", "c3")
	if pin {
		// Pinning an archived skill restores its body: the next request
		// carries it whole again.
		s.ok(s.call(protocol.MethodCommand, protocol.CommandParams{Name: "skills-pin", Args: "release-notes"}), nil)
		total += 500
		request()
		return lines, status, archived
	}
	turn("and the release notes again, with the index change", "release-notes", "c4")
	return lines, status, archived
}

// TestHostileSidecarLines: each archive and comeback is one host/line
// (the bridge draws it in Pi's transcript), saying which body, the
// context it saves and what the cache rewrite costs; the footer status
// counts the bodies and the saving; verbose:false silences the lines
// but not the status.
func TestHostileSidecarLines(t *testing.T) {
	lines, status, archived := linesSession(t, `{"minKeep": 0, "cacheAware": {"enabled": false}}`, false)
	if !archived {
		t.Fatalf("the engine did not archive the migration's body; lines %+v", lines)
	}
	for _, l := range lines {
		t.Logf("%s: %s", l.Kind, l.Text)
	}
	t.Logf("status: %q", status)
	kinds := map[string]protocol.LineParams{}
	for _, l := range lines {
		kinds[l.Kind] = l
		if strings.Contains(l.Text, "\n") {
			t.Errorf("a line spans lines: %q", l.Text)
		}
	}
	a, ok := kinds["archive"]
	if !ok {
		t.Fatalf("no archive line: %+v", lines)
	}
	if len(a.Skills) == 0 || a.Skills[0] != "sql-migration" || !strings.Contains(a.Text, "archived sql-migration") {
		t.Errorf("archive line does not name the body: %+v", a)
	}
	// The body is 8k characters: about 2k tokens saved each request; what
	// the previous request cached after it is written again.
	if a.Tokens < 1500 || a.RewriteTokens <= 0 || a.RewriteUSD <= 0 {
		t.Errorf("archive line figures: %+v", a)
	}
	if !strings.Contains(a.Text, "tokens a request") || !strings.Contains(a.Text, "cache rewrite") || !strings.Contains(a.Text, "$") {
		t.Errorf("archive line text: %q", a.Text)
	}
	c, ok := kinds["comeback"]
	if !ok || len(c.Skills) != 1 || c.Skills[0] != "release-notes" || !strings.Contains(c.Text, "release-notes came back after its archive") {
		t.Errorf("no comeback line for the release notes: %+v", lines)
	}
	if len(status) != 4 || !strings.Contains(status[0], "1 loaded, 0 archived") || !strings.Contains(status[2], "1 loaded, 2 archived") || strings.Contains(status[3], "~0 tokens") {
		t.Errorf("footer status: %q", status)
	}

	quiet, qstatus, qarchived := linesSession(t, `{"minKeep": 0, "cacheAware": {"enabled": false}, "verbose": false}`, false)
	if !qarchived {
		t.Fatal("with verbose false the engine did not archive")
	}
	if len(quiet) != 0 {
		t.Errorf("verbose:false still sends lines: %+v", quiet)
	}
	if len(qstatus) != 4 || !strings.Contains(qstatus[2], "2 archived") {
		t.Errorf("verbose:false: footer status %q", qstatus)
	}
}

// TestHostileSidecarRestoreLine: a body restored (here by /skills-pin)
// is one line, naming it, at the request that carries it again.
func TestHostileSidecarRestoreLine(t *testing.T) {
	lines, status, _ := linesSession(t, `{"minKeep": 0, "cacheAware": {"enabled": false}}`, true)
	for _, l := range lines {
		t.Logf("%s: %s", l.Kind, l.Text)
	}
	var restored []protocol.LineParams
	for _, l := range lines {
		if l.Kind == "restore" {
			restored = append(restored, l)
		}
	}
	if len(restored) != 1 || len(restored[0].Skills) != 1 || restored[0].Skills[0] != "release-notes" ||
		!strings.HasPrefix(restored[0].Text, "skill-lifecycle: restored release-notes: adds ~") {
		t.Errorf("restore lines %+v (all: %+v)", restored, lines)
	}
	if len(status) != 4 || !strings.Contains(status[3], "2 loaded, 1 archived") {
		t.Errorf("footer status: %q", status)
	}
}

// TestHostileSidecarStatsBadFiles: /skills-stats on a session file that
// is missing, a named pipe, a folder, not a session, or empty answers a
// warning naming the file (or saying there is nothing to re-cost); it
// never hangs, and the sidecar goes on answering.
func TestHostileSidecarStatsBadFiles(t *testing.T) {
	sc := startSidecar(t)
	p := newPack(t)
	sc.initialize(p)
	dir := t.TempDir()
	notSession := write(t, filepath.Join(dir, "log.jsonl"), []byte("{\"method\":\"POST\"}\n"))
	empty := write(t, filepath.Join(dir, "empty.jsonl"), nil)
	pipe := mkfifo(t, filepath.Join(dir, "pipe.jsonl"))
	for _, tc := range []struct{ name, file, want string }{
		{"no-session-file", "", "keeps no session file"},
		{"missing", filepath.Join(dir, "gone.jsonl"), "gone.jsonl"},
		{"named-pipe", pipe, "pipe.jsonl"},
		{"folder", dir, dir},
		{"not-a-session", notSession, "log.jsonl"},
		{"empty", empty, "empty.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res protocol.CommandResult
			sc.ok(sc.call(protocol.MethodCommand, protocol.CommandParams{Name: "skills-stats", SessionFile: tc.file}), &res)
			if res.Level != "warning" || !strings.Contains(res.Text, tc.want) {
				t.Errorf("answer %+v, want a warning naming %q", res, tc.want)
			}
			t.Logf("%s", res.Text)
			checkTerminal(t, "/skills-stats", res.Text)
			if !strings.Contains(sc.listText(), "3 skills") {
				t.Error("the sidecar stopped answering")
			}
		})
	}
}
