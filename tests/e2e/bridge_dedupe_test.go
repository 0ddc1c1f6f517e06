//go:build e2e

package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// alreadyLoaded is the start of the skill tool's answer when the identical
// body is visible (lifecycle.AlreadyLoadedText).
const alreadyLoaded = `Skill "tide-tables" is already loaded`

// TestBridgeAlreadyLoadedPi16: a second skill(x) for an unchanged skill
// answers "already loaded"; the request holds one copy of the body and the
// earlier messages are sent unchanged (the prompt cache is untouched).
func TestBridgeAlreadyLoadedPi16(t *testing.T) {
	t.Parallel()
	pi := Pi16(t)
	env, prov, _ := bridgeEnv(t, pi, Steps([]Reply{
		Do(Call{Name: "skill", Args: map[string]any{"name": "tide-tables"}}),
		Do(Call{Name: "skill", Args: map[string]any{"name": "tide-tables"}}),
		Say("Done."),
	}), `{"dedupe": "already-loaded"}`)
	res := env.RunOK(t, RunOpts{Prompts: []string{"When is high tide tomorrow?"}, Approve: true})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	if len(reqs) != 3 {
		t.Fatalf("provider got %d requests, want 3", len(reqs))
	}
	second := reqs[2].LastToolResults()
	if len(second) != 1 || !strings.HasPrefix(second[0].Text(), alreadyLoaded) {
		t.Fatalf("second skill(tide-tables) answered %+v, want %q…", second, alreadyLoaded)
	}
	if n := CountInMessages(reqs[2], "TIDE-BODY-41c7"); n != 1 {
		t.Errorf("request 3 holds the body %d times, want 1", n)
	}
	if n := CountInBody(reqs[2], "TIDE-BODY-41c7"); n != 1 {
		t.Errorf("request 3's payload holds the body %d times, want 1", n)
	}
	// Nothing before the new tool call changed: request 2's messages are a
	// prefix of request 3's.
	if d := cmp.Diff(reqs[1].Messages, reqs[2].Messages[:len(reqs[1].Messages)]); d != "" {
		t.Errorf("request 3 rewrote earlier messages (-request 2 +request 3):\n%s", d)
	}
	recs := records(t, MustReadSession(t, res.SessionFile))
	loads := 0
	for _, r := range recs {
		if r["action"] == "load" && r["skill"] == "tide-tables" {
			loads++
		}
		if r["action"] == "archive" {
			t.Errorf("a body was archived: %v", r)
		}
	}
	if loads != 1 {
		t.Errorf("%d load records for tide-tables, want 1: %v", loads, recs)
	}
}

// TestBridgeEditedSkillPi16: the SKILL.md is edited between two loads of the
// same run; the second load delivers the new body and the old copy is
// archived; at the next prompt the sidecar tells the user, once, which skill
// changed.
func TestBridgeEditedSkillPi16(t *testing.T) {
	t.Parallel()
	pi := Pi16(t)
	var paths map[string]string
	edit := func() {
		b, err := os.ReadFile(paths["tide-tables"])
		if err != nil {
			t.Error(err)
			return
		}
		nb := strings.Replace(string(b), "TIDE-BODY-41c7", "TIDE-BODY-v2-5b3e", 1)
		if err := os.WriteFile(paths["tide-tables"], []byte(nb), 0o644); err != nil {
			t.Error(err)
		}
		// An edit made well before the next check (the sidecar waits until
		// a written file has been still for a moment).
		old := time.Now().Add(-time.Minute)
		_ = os.Chtimes(paths["tide-tables"], old, old)
	}
	script := func(r *Request) Reply {
		switch {
		case r.UserTurn == 1 && r.Step == 0:
			return Do(Call{Name: "skill", Args: map[string]any{"name": "tide-tables"}})
		case r.UserTurn == 1 && r.Step == 1:
			edit()
			return Do(Call{Name: "skill", Args: map[string]any{"name": "tide-tables"}})
		case r.UserTurn == 1:
			// The next prompt comes after the sidecar's check interval.
			return Reply{Text: "Done.", Delay: 2500 * time.Millisecond}
		}
		return Say("Noted.")
	}
	// Relevance-only archiving: the superseded copy goes at the next
	// request (cache-aware timing is tested elsewhere).
	env, prov, p := bridgeEnv(t, pi, script, `{"dedupe": "already-loaded", "cacheAware": {"enabled": false}}`)
	paths = p
	res := env.RunOK(t, RunOpts{Prompts: []string{"When is high tide tomorrow?", "And the day after tomorrow?"}, Approve: true})
	reqs := prov.Requests()
	if len(reqs) < 4 {
		t.Fatalf("provider got %d requests, want 4", len(reqs))
	}
	second := reqs[2].LastToolResults()
	if len(second) != 1 || !strings.Contains(second[0].Text(), "TIDE-BODY-v2-5b3e") {
		t.Fatalf("the load after the edit answered %+v, want the new body", second)
	}
	if n := CountInMessages(reqs[2], "TIDE-BODY-41c7"); n != 0 {
		t.Errorf("request 3 still holds the old body (%d times)", n)
	}
	if n := CountInMessages(reqs[2], placeholderTide); n != 1 {
		t.Errorf("request 3 holds %d placeholders for the old copy, want 1", n)
	}
	recs := records(t, MustReadSession(t, res.SessionFile))
	var hashes []string
	for _, r := range recs {
		if r["action"] == "load" && r["skill"] == "tide-tables" {
			h, _ := r["hash"].(string)
			hashes = append(hashes, h)
		}
	}
	if len(hashes) != 2 || hashes[0] == "" || hashes[0] == hashes[1] {
		t.Errorf("load hashes %q: want two different hashes", hashes)
	}
	if !hasRecord(recs, "archive", "tide-tables") {
		t.Errorf("the old copy was not archived: %v", recs)
	}
	const notice = "skill-lifecycle: skill files changed on disk (changed: tide-tables)"
	if n := strings.Count(res.Stderr, notice); n != 1 {
		t.Errorf("the change notice appears %d times on stderr, want 1:\n%s", n, res.Stderr)
	}
	for _, line := range strings.Split(res.Stderr, "\n") {
		if strings.Contains(line, "skill-lifecycle:") && !strings.HasPrefix(line, notice) || strings.Contains(line, "xtension error") {
			t.Errorf("stderr reports a problem: %q", line)
		}
	}
}
