//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// countOf is how many requests of method the fault proxies saw so far.
func (f *Faults) countOf(method string) int {
	b, _ := os.ReadFile(filepath.Join(f.Dir, "count-"+strings.ReplaceAll(method, "/", "_")))
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// TestBridgeSkillToolFallback (issue 27, item 4): the skill load fails
// (the sidecar dies before answering), is tried again on a restarted
// sidecar, and fails again; the tool then tells the model to read the
// SKILL.md. By the time the model reads it the sidecar is back, and the
// read is served, not blocked, and counts as a load of the skill.
func TestBridgeSkillToolFallback(t *testing.T) {
	t.Parallel()
	scenarioSkillToolFallback(t, Pi16(t))
}

func TestBridgeSkillToolFallbackPi073(t *testing.T) {
	t.Parallel()
	scenarioSkillToolFallback(t, Pi073(t))
}

func scenarioSkillToolFallback(t *testing.T, pi PiInstall) {
	faults := NewFaults(t, "skill/load:1-2:drop")
	var fallback, readPath string
	script := func(r *Request) Reply {
		last := ""
		if res := r.LastToolResults(); len(res) > 0 {
			last = res[len(res)-1].Text()
		}
		switch {
		case r.UserTurn == 1 && r.Step == 0:
			return load("tide-tables")
		case r.UserTurn == 1 && r.Step == 1:
			fallback = last
			if m := readInstead.FindStringSubmatch(last); m != nil {
				readPath = m[1]
			}
			// Something else first, late enough for the bridge's back-off
			// to let the sidecar start again.
			return Reply{Calls: []Call{{Name: "bash", Args: map[string]any{"command": "echo checking"}}}, Delay: 6 * time.Second}
		case r.UserTurn == 1 && r.Step == 2:
			// The sidecar is up again (restarted and restored) before the
			// read.
			for deadline := time.Now().Add(20 * time.Second); faults.countOf("session/restore") < 3 && time.Now().Before(deadline); {
				time.Sleep(100 * time.Millisecond)
			}
			time.Sleep(500 * time.Millisecond)
			return Do(Call{Name: "read", Args: map[string]any{"path": readPath}})
		}
		return Say("Done.")
	}
	env, prov, paths := bridgeEnv(t, pi, script, `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	res := env.RunOK(t, RunOpts{Approve: pi.TrustGated, Env: append(faults.Env(t), "SKILL_LIFECYCLE_TIMEOUT_MS=1500"), Prompts: []string{
		"When is high tide tomorrow at the harbour?",
	}})
	if !strings.Contains(fallback, "The skill tool is unavailable right now; read "+paths["tide-tables"]+" with the read tool instead") {
		t.Fatalf("after two failed loads the tool answered %q, want it to point to %s", fallback, paths["tide-tables"])
	}
	if n := faults.countOf("skill/load"); n != 2 {
		t.Errorf("skill/load sent %d times, want 2 (tried again once on a restarted sidecar)", n)
	}
	if n := faults.countOf("session/restore"); n < 3 {
		t.Errorf("%d restores: the sidecar was not back before the read", n)
	}
	reqs := prov.Requests()
	if len(reqs) != 4 {
		t.Fatalf("provider got %d requests, want 4", len(reqs))
	}
	if r := reqs[3].LastToolResults(); len(r) != 1 || !strings.Contains(r[0].Text(), "TIDE-BODY-41c7") {
		var got []string
		for _, m := range r {
			got = append(got, m.Text())
		}
		t.Errorf("the read the tool asked for was not served: %q", got)
	}
	// The read is a load of the skill (recorded by the restarted sidecar
	// at the next request).
	found := false
	for _, r := range records(t, MustReadSession(t, res.SessionFile)) {
		if r["action"] == "load" && r["skill"] == "tide-tables" && r["kind"] == "read" {
			found = true
		}
	}
	if !found {
		t.Errorf("the read was not recorded as a load of tide-tables; stderr:\n%s", res.Stderr)
	}
}

// TestBridgeHungBinary (issue 27, item 11): a binary that never answers.
// The first start is waited for 3 s, then goes on in the background (a
// minute, then backed off), so Pi's events do not wait for it: in a short
// session it is started at most twice (it was started, and waited for,
// at every event until the budget of five a minute ran out).
func TestBridgeHungBinary(t *testing.T) {
	t.Parallel()
	faults := NewFaults(t, "initialize:*:hang")
	env, prov, paths := bridgeEnv(t, Pi16(t), readSkillScript("tide-tables"), "")
	start := time.Now()
	res := env.RunOK(t, RunOpts{Approve: true, Env: append(faults.Env(t), "SKILL_LIFECYCLE_TIMEOUT_MS=1500"), Prompts: []string{
		"When is high tide tomorrow?", "And the day after?",
	}})
	took := time.Since(start)
	n := faults.countOf("initialize")
	t.Logf("binary started %d times in a run of %v with %d requests", n, took.Round(time.Millisecond), len(prov.Requests()))
	if n > 2 {
		t.Errorf("the hung binary was started %d times, want at most 2", n)
	}
	if r := prov.Requests(); len(r) < 2 || !strings.Contains(r[1].LastToolResults()[0].Text(), "TIDE-BODY-41c7") {
		t.Errorf("the read of %s was not served while the sidecar hung", paths["tide-tables"])
	}
	if c := strings.Count(res.Stderr, "skill-lifecycle:"); c != 1 {
		t.Errorf("the user was told %d times, want once; stderr:\n%s", c, res.Stderr)
	}
}

// TestBridgeWrongBinary (issue 27, item 12): a binary that ends before
// answering initialize is named, with how it ended and the last line it
// wrote on stderr, not with the JSON-RPC library's internal message.
func TestBridgeWrongBinary(t *testing.T) {
	t.Parallel()
	pi := Pi16(t)
	script := filepath.Join(t.TempDir(), "not-skill-lifecycle")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'note: starting up' >&2\necho 'fatal: no such subcommand' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ bin, want string }{
		{"/bin/true", "skill-lifecycle: /bin/true exited with code 0 before answering initialize; running without it"},
		{script, "skill-lifecycle: " + script + " exited with code 3 before answering initialize (its last words: fatal: no such subcommand); running without it"},
	} {
		env, _, _ := bridgeEnv(t, pi, Steps([]Reply{Say("Done.")}), "")
		res := env.RunOK(t, RunOpts{Approve: true, Env: []string{BinEnv + "=" + c.bin}, Prompts: []string{"When is high tide tomorrow?"}})
		if !strings.Contains(res.Stderr, c.want) || strings.Contains(res.Stderr, "Pending response rejected") {
			t.Errorf("SKILL_LIFECYCLE_BIN=%s: stderr:\n%s\nwant %q", c.bin, res.Stderr, c.want)
		}
	}
}

// TestBridgeCommandBadArgument (issue 27, item 12): a slash command with a
// bad argument shows one clean line, and does not then claim that the
// sidecar is not running.
func TestBridgeCommandBadArgument(t *testing.T) {
	t.Parallel()
	env, _, _ := bridgeEnv(t, Pi16(t), Steps([]Reply{Say("Done.")}), "")
	res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{"/skills-pin nosuch-skill", "/skills-explain"}})
	var lines []string
	for _, l := range strings.Split(res.Stderr, "\n") {
		if strings.Contains(l, "skill-lifecycle") {
			lines = append(lines, l)
		}
	}
	want := []string{
		`skill-lifecycle: /skills-pin: unknown skill "nosuch-skill"`,
		`skill-lifecycle: /skills-explain: an argument is needed (usage: /skills-explain <prompt>)`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("stderr lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
