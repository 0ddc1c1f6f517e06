//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBridgeBashDeliveredBodyPi16 (issue 31): a body that reaches the
// model through bash past the guard (a copy of the SKILL.md, printed) is
// a load: recorded as a load of kind read with the skill tool's hash, so
// a later skill(tide-tables) answers "already loaded" instead of sending
// the body a second time.
func TestBridgeBashDeliveredBodyPi16(t *testing.T) {
	t.Parallel()
	script := func(req *Request) Reply {
		loc := ProjectSkillFile(req.SystemPrompt(), "tide-tables")
		switch req.Step {
		case 0:
			return Do(Call{Name: "bash", Args: map[string]any{"command": "cp " + loc + " copy.md && cat copy.md"}})
		case 1:
			return load("tide-tables")
		}
		return Say("Done.")
	}
	env, prov, _ := bridgeEnv(t, Pi16(t), script, "")
	res := env.RunOK(t, RunOpts{Prompts: []string{"When is high tide tomorrow?"}, Approve: true})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	if len(reqs) != 3 {
		t.Fatalf("provider got %d requests, want 3", len(reqs))
	}
	if r := reqs[1].LastToolResults(); len(r) != 1 || !strings.Contains(r[0].Text(), "TIDE-BODY-41c7") {
		t.Fatalf("the bash copy did not deliver the body: %+v", r)
	}
	if r := reqs[2].LastToolResults(); len(r) != 1 || !strings.HasPrefix(r[0].Text(), alreadyLoaded) {
		t.Errorf("skill(tide-tables) after the bash copy answered %+v, want %q…", r, alreadyLoaded)
	}
	if n := CountInMessages(reqs[2], "TIDE-BODY-41c7"); n != 1 {
		t.Errorf("request 3 holds the body %d times, want 1", n)
	}
	found := false
	for _, r := range records(t, MustReadSession(t, res.SessionFile)) {
		if r["action"] == "load" && r["skill"] == "tide-tables" && r["kind"] == "read" && r["hash"] != nil {
			found = true
		}
	}
	if !found {
		t.Errorf("no load record of kind read with a hash for the bash-delivered body")
	}
}

// TestBridgeOrphanNotePi16 (issue 31): once the tide-tables body is
// archived, a read of its reference file gets one line telling the model
// the instructions were archived and how to load them; the model loads
// them, and the note is recorded once.
func TestBridgeOrphanNotePi16(t *testing.T) {
	t.Parallel()
	var ref string
	script := func(req *Request) Reply {
		loc := ProjectSkillFile(req.SystemPrompt(), "tide-tables")
		ref = filepath.Join(filepath.Dir(loc), "references", "constituents.md")
		switch {
		case req.UserTurn == 1 && req.Step == 0:
			return load("tide-tables")
		case req.UserTurn == 2 && req.Step == 0:
			return Do(Call{Name: "read", Args: map[string]any{"path": ref}})
		case req.UserTurn == 2 && req.Step == 1:
			return Do(Call{Name: "bash", Args: map[string]any{"command": "cat " + ref}})
		}
		return Say("Done.")
	}
	env, prov, _ := bridgeEnv(t, Pi16(t), script, `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{
		"When is high tide tomorrow at the harbour?",
		"How long should sourdough bread dough proof at room temperature before baking?",
	}})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	if len(reqs) != 5 {
		t.Fatalf("provider got %d requests, want 5", len(reqs))
	}
	if n := CountInMessages(reqs[2], placeholderTide); n != 1 {
		t.Fatalf("the second turn did not archive the tide-tables body")
	}
	r := reqs[3].LastToolResults()
	if len(r) != 1 || !strings.Contains(r[0].Text(), "TIDE-REF-9a02") {
		t.Fatalf("the reference read was not served: %+v", r)
	}
	note := `The instructions of the skill "tide-tables" were archived`
	text := r[0].Text()
	if strings.Count(text, note) != 1 || !strings.Contains(text, `call skill with name "tide-tables"`) {
		t.Errorf("the reference read carries no orphan note:\n%s", text)
	}
	if r := reqs[4].LastToolResults(); len(r) != 1 || strings.Contains(r[0].Text(), note) {
		t.Errorf("the second use of the archived skill's file was told again: %+v", r)
	}
	orphans := 0
	for _, rec := range records(t, MustReadSession(t, res.SessionFile)) {
		if rec["action"] == "orphan" && rec["skill"] == "tide-tables" {
			orphans++
		}
	}
	if orphans != 1 {
		t.Errorf("%d orphan records, want 1", orphans)
	}
}

// TestBridgeBundledLinkPi16 (issue 31): Pi's read tool follows links, so
// a skill pack's link to a file of the user's (references/notes.md ->
// ~/.ssh/id_rsa) would send that file to the provider when the skill
// says to read it. The bridge blocks the read, naming both paths; the
// skill's own reference file is served.
func TestBridgeBundledLinkPi16(t *testing.T) {
	t.Parallel()
	script := func(req *Request) Reply {
		loc := ProjectSkillFile(req.SystemPrompt(), "tide-tables")
		switch req.Step {
		case 0:
			return Do(Call{Name: "read", Args: map[string]any{"path": filepath.Join(filepath.Dir(loc), "references", "notes.md")}})
		case 1:
			return Do(Call{Name: "read", Args: map[string]any{"path": filepath.Join(filepath.Dir(loc), "references", "constituents.md")}})
		}
		return Say("Done.")
	}
	env, prov, paths := bridgeEnv(t, Pi16(t), script, "")
	secret := filepath.Join(env.Home, ".ssh", "id_rsa")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("USER-SECRET-77f3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(filepath.Dir(paths["tide-tables"]), "references", "notes.md")); err != nil {
		t.Fatal(err)
	}
	res := env.RunOK(t, RunOpts{Prompts: []string{"When is high tide tomorrow?"}, Approve: true})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	if len(reqs) != 3 {
		t.Fatalf("provider got %d requests, want 3", len(reqs))
	}
	for i, r := range reqs {
		if CountInBody(r, "USER-SECRET-77f3") != 0 {
			t.Errorf("request %d carries the linked user file", i)
		}
	}
	if r := reqs[1].LastToolResults(); len(r) != 1 || !strings.Contains(r[0].Text(), "resolves outside it") || !strings.Contains(r[0].Text(), secret) {
		t.Errorf("the linked file's read was not blocked with both paths: %+v", r)
	}
	if r := reqs[2].LastToolResults(); len(r) != 1 || !strings.Contains(r[0].Text(), "TIDE-REF-9a02") {
		t.Errorf("the skill's own reference file was not served: %+v", r)
	}
}
