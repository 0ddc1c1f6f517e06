//go:build e2e

package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sidecarPIDs lists the running `skill-lifecycle serve` processes started
// for agentDir (found through /proc: their command line and their
// PI_CODING_AGENT_DIR).
func sidecarPIDs(t *testing.T, agentDir string) []int {
	t.Helper()
	bin := SkillLifecycleBin(t)
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("cannot list processes: %v", err)
	}
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
		if len(args) < 2 || args[0] != bin || args[1] != "serve" {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte("\x00PI_CODING_AGENT_DIR="+agentDir+"\x00")) && !bytes.HasPrefix(env, []byte("PI_CODING_AGENT_DIR="+agentDir+"\x00")) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// TestBridgeSidecarKilled (scenario 10): the sidecar is killed mid-session.
// The run completes, the next request is still correct (the archived body
// stays archived), the user is told once, and the bridge restarts the
// sidecar with its state restored from the session's records.
func TestBridgeSidecarKilled(t *testing.T) {
	t.Parallel()
	scenarioSidecarKilled(t, Pi16(t))
}

func TestBridgeSidecarKilledPi073(t *testing.T) {
	t.Parallel()
	scenarioSidecarKilled(t, Pi073(t))
}

func scenarioSidecarKilled(t *testing.T, pi PiInstall) {
	var env *Env
	killed := 0
	script := func(req *Request) Reply {
		switch {
		case req.UserTurn == 1 && req.Step == 0:
			return load("tide-tables")
		case req.UserTurn == 2 && req.Step == 0:
			// The body was archived for this request; kill the sidecar now.
			for _, pid := range sidecarPIDs(t, env.AgentDir) {
				if err := syscall.Kill(pid, syscall.SIGKILL); err == nil {
					killed++
				}
			}
			loc := ProjectSkillFile(req.SystemPrompt(), "tide-tables")
			return Do(Call{Name: "read", Args: map[string]any{"path": loc}})
		}
		return Say("Done.")
	}
	env, prov, _ := bridgeEnv(t, pi, script, `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	res := env.RunOK(t, RunOpts{Approve: pi.TrustGated, Prompts: []string{
		"When is high tide tomorrow at the harbour?",
		"How long should sourdough bread dough proof at room temperature before baking?",
		"And how warm should the kitchen be for the bread dough?",
	}})
	if killed == 0 {
		t.Fatal("no sidecar process was found to kill")
	}
	reqs := prov.Requests()
	if len(reqs) != 5 {
		t.Fatalf("provider got %d requests, want 5 (load, answer, read, answer, answer)", len(reqs))
	}
	if n := CountInMessages(reqs[2], placeholderTide); n != 1 {
		t.Fatalf("before the kill: placeholder %d times, want 1", n)
	}
	// The read issued after the kill is blocked by the restarted sidecar.
	read := reqs[3].LastToolResults()
	if len(read) != 1 || !strings.Contains(read[0].Text(), `call skill with name "tide-tables"`) {
		t.Errorf("read after the kill = %+v, want it blocked by the restarted sidecar", read)
	}
	for i := 3; i < len(reqs); i++ {
		if n := CountInMessages(reqs[i], "TIDE-BODY-41c7"); n != 0 {
			t.Errorf("request %d carries the archived body again", i)
		}
		if n := CountInMessages(reqs[i], placeholderTide); n != 1 {
			t.Errorf("request %d holds the placeholder %d times, want 1 (state restored)", i, n)
		}
	}
	if n := strings.Count(res.Stderr, "skill-lifecycle: the sidecar stopped"); n != 1 {
		t.Errorf("the user was told %d times of the crash, want once; stderr:\n%s", n, res.Stderr)
	}
	RecordSession(t, env, res.SessionFile, "bridge-sidecar-killed-"+piTag(pi))
}

// TestBridgeResumeAndFork (scenario 11): a resumed session (--continue) and a
// forked one come back with the same archive state.
func TestBridgeResumeAndFork(t *testing.T) {
	t.Parallel()
	env, prov, _ := bridgeEnv(t, Pi16(t), Steps(
		[]Reply{load("tide-tables"), Say("High tide is at 06:12.")},
		[]Reply{Say("About two hours.")},
	), `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	first := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{
		"When is high tide tomorrow at the harbour?",
		"How long should sourdough bread dough proof at room temperature before baking?",
	}})
	checkNoBridgeErrors(t, first)
	if n := len(prov.Requests()); n != 3 {
		t.Fatalf("first run: %d requests, want 3", n)
	}
	if n := CountInMessages(prov.Requests()[2], placeholderTide); n != 1 {
		t.Fatalf("first run did not archive the body")
	}
	prov.SetScript(func(*Request) Reply { return Say("Noted.") })

	resumed := env.RunOK(t, RunOpts{Approve: true, Continue: true, Prompts: []string{"Thanks, and what flour should I use for the bread?"}})
	checkNoBridgeErrors(t, resumed)
	forked := env.RunOK(t, RunOpts{Approve: true, Args: []string{"--fork", first.SessionFile}, Prompts: []string{"Which flour gives the most open crumb for the bread?"}})
	checkNoBridgeErrors(t, forked)
	if forked.SessionFile == first.SessionFile {
		t.Fatalf("--fork wrote to the original session")
	}
	reqs := prov.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d requests in all, want 5", len(reqs))
	}
	for i, what := range map[int]string{3: "resumed", 4: "forked"} {
		if n := CountInMessages(reqs[i], "TIDE-BODY-41c7"); n != 0 {
			t.Errorf("%s session sends the archived body again", what)
		}
		if n := CountInMessages(reqs[i], placeholderTide); n != 1 {
			t.Errorf("%s session holds the placeholder %d times, want 1", what, n)
		}
	}
}

// TestBridgeMissingBinary (scenario 12): without the binary Pi works as
// without the extension (its own listing, reads of SKILL.md served) and the
// user is told once.
func TestBridgeMissingBinary(t *testing.T) {
	t.Parallel()
	pi := Pi16(t)
	env, prov, _ := bridgeEnv(t, pi, readSkillScript("tide-tables"), "")
	res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{"When is high tide tomorrow?", "And the day after?"},
		Env: []string{BinEnv + "=" + filepath.Join(t.TempDir(), "no-such-skill-lifecycle")}})
	reqs := prov.Requests()
	if len(reqs) < 2 {
		t.Fatalf("provider got %d requests", len(reqs))
	}
	if strings.Contains(reqs[0].SystemPrompt(), protocolLine) {
		t.Errorf("the bridge's listing is in the prompt without a sidecar")
	}
	if !strings.Contains(reqs[0].SystemPrompt(), "Use the read tool to load a skill's file") {
		t.Errorf("Pi's own listing is missing")
	}
	if contains(reqs[0].ToolNames(), "skill") {
		t.Errorf("the skill tool is declared without a sidecar")
	}
	if r := reqs[1].LastToolResults(); len(r) != 1 || !strings.Contains(r[0].Text(), "TIDE-BODY-41c7") {
		t.Errorf("reading SKILL.md was not served: %+v", r)
	}
	if n := strings.Count(res.Stderr, "skill-lifecycle:"); n != 1 || !strings.Contains(res.Stderr, "running without it") {
		t.Errorf("the user was told %d times; stderr:\n%s", n, res.Stderr)
	}
}

// TestBridgeConfigProblems (scenario 13): an invalid skill-lifecycle.json is
// reported and the defaults apply; an untrusted project's config is ignored.
func TestBridgeConfigProblems(t *testing.T) {
	t.Parallel()
	pi := Pi16(t)
	t.Run("invalid user file", func(t *testing.T) {
		env, prov, _ := bridgeEnv(t, pi, Steps([]Reply{load("tide-tables"), Say("Done.")}), `{"minKeep": "none",}`)
		res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{"When is high tide tomorrow?", "/skills-list"}})
		if !strings.Contains(res.Stderr, filepath.Join(env.AgentDir, "skill-lifecycle.json")) {
			t.Errorf("the invalid file is not reported; stderr:\n%s", res.Stderr)
		}
		if !strings.Contains(res.Stdout+res.Stderr, "archiving on") {
			t.Errorf("defaults do not apply (archiving should be on):\n%s", res.Stderr)
		}
		if r := prov.Requests(); len(r) != 2 || !strings.HasPrefix(r[1].LastToolResults()[0].Text(), "<skill_content") {
			t.Errorf("the skill tool did not work with a bad config")
		}
	})
	t.Run("untrusted project file", func(t *testing.T) {
		env, _, _ := bridgeEnv(t, pi, Steps([]Reply{Say("Done.")}), "")
		dir := filepath.Join(env.ProjectDir, ".pi")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "skill-lifecycle.json"), []byte(`{"enabled": false}`), 0o644); err != nil {
			t.Fatal(err)
		}
		// Without -a the project is not trusted in print mode.
		untrusted := env.RunOK(t, RunOpts{Prompts: []string{"/skills-list"}})
		out := untrusted.Stdout + untrusted.Stderr
		if !strings.Contains(out, "ignored: the project is not trusted") || !strings.Contains(out, "archiving on") {
			t.Errorf("untrusted project config applied or not reported:\n%s", out)
		}
		trusted := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{"/skills-list"}})
		if out := trusted.Stdout + trusted.Stderr; !strings.Contains(out, "archiving off") {
			t.Errorf("trusted project config not applied:\n%s", out)
		}
	})
}

// TestBridgeSidecarHangs: the sidecar stops answering (SIGSTOP) mid-session.
// The bridge times out (SKILL_LIFECYCLE_TIMEOUT_MS), fails open for that
// event (the read is served, nothing blocked), tells the user once, and the
// next event runs on a restarted sidecar with the archive state restored.
func TestBridgeSidecarHangs(t *testing.T) {
	t.Parallel()
	var env *Env
	var stopped []int
	script := func(req *Request) Reply {
		switch {
		case req.UserTurn == 1 && req.Step == 0:
			return load("tide-tables")
		case req.UserTurn == 2 && req.Step == 0:
			for _, pid := range sidecarPIDs(t, env.AgentDir) {
				if err := syscall.Kill(pid, syscall.SIGSTOP); err == nil {
					stopped = append(stopped, pid)
				}
			}
			return Do(Call{Name: "read", Args: map[string]any{"path": filepath.Join(filepath.Dir(ProjectSkillFile(req.SystemPrompt(), "tide-tables")), "references", "constituents.md")}})
		}
		return Say("Done.")
	}
	env, prov, _ := bridgeEnv(t, Pi16(t), script, `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	t.Cleanup(func() {
		for _, pid := range stopped {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	res := env.RunOK(t, RunOpts{Approve: true, Env: []string{"SKILL_LIFECYCLE_TIMEOUT_MS=400"}, Prompts: []string{
		"When is high tide tomorrow at the harbour?",
		"How long should sourdough bread dough proof at room temperature before baking?",
		"And how warm should the kitchen be for the bread dough?",
	}})
	if len(stopped) == 0 {
		t.Fatal("no sidecar process was found to stop")
	}
	reqs := prov.Requests()
	if len(reqs) != 5 {
		t.Fatalf("provider got %d requests, want 5", len(reqs))
	}
	if r := reqs[3].LastToolResults(); len(r) != 1 || !strings.Contains(r[0].Text(), "TIDE-REF-9a02") {
		t.Errorf("the read during the hang was not served: %+v", r)
	}
	for i := 2; i < len(reqs); i++ {
		if n := CountInMessages(reqs[i], "TIDE-BODY-41c7"); n != 0 {
			t.Errorf("request %d carries the archived body", i)
		}
	}
	if n := CountInMessages(reqs[4], placeholderTide); n != 1 {
		t.Errorf("after the restart the placeholder is there %d times, want 1", n)
	}
	if n := strings.Count(res.Stderr, "skill-lifecycle:"); n != 1 || !strings.Contains(res.Stderr, "no answer within 400 ms") {
		t.Errorf("the user was told %d times; stderr:\n%s", n, res.Stderr)
	}
}

// TestBridgeSlowStart: the sidecar's first start takes longer than an
// event waits for it (as a first start on a catalogue of many thousands of
// skills does, with no start-up cache yet: a proxy holds the answer to
// initialize for 8 s, past the 3 s wait). The session goes on without the
// extension meanwhile (the first prompt is answered from Pi's own listing,
// the SKILL.md read directly), the user is told once, and the slow
// sidecar is not killed but taken up when it answers: the second prompt
// runs with the skill tool on that same process, never a second start.
// Before, the bridge killed it at the wait's end and started another, as
// slow, in a loop.
func TestBridgeSlowStart(t *testing.T) {
	t.Parallel()
	faults := NewFaults(t, "initialize:1:late")
	script := func(r *Request) Reply {
		switch {
		case r.UserTurn == 1 && r.Step == 0:
			// The first turn outlasts the held answer: it waits until the
			// bridge, having taken the answer up, restores the session.
			restored := filepath.Join(faults.Dir, "count-session_restore")
			for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if _, err := os.Stat(restored); err == nil {
					break
				}
			}
			time.Sleep(200 * time.Millisecond)
			return Do(Call{Name: "read", Args: map[string]any{"path": ProjectSkillFile(r.SystemPrompt(), "tide-tables")}})
		case r.UserTurn == 2 && r.Step == 0:
			return load("bread-proofing")
		}
		return Say("Done.")
	}
	env, prov, _ := bridgeEnv(t, Pi16(t), script, "")
	res := env.RunOK(t, RunOpts{Approve: true, Env: append(faults.Env(t), "SKILL_LIFECYCLE_TIMEOUT_MS=1500", "FAULT_DELAY=8s"), Prompts: []string{
		"When is high tide tomorrow at the harbour?",
		"How long should sourdough bread dough proof at room temperature before baking?",
	}})
	reqs := prov.Requests()
	if got := faults.Injected(); !slices.Equal(got, []string{"initialize_1_late"}) {
		t.Errorf("injected %v, want the first initialize held", got)
	}
	if b, _ := os.ReadFile(filepath.Join(faults.Dir, "count-initialize")); strings.TrimSpace(string(b)) != "1" {
		t.Errorf("initialize was sent %q times, want once: the slow sidecar was killed and another started", b)
	}
	first := firstOfTurn(t, reqs, 1)
	if slices.Contains(first.ToolNames(), "skill") {
		t.Error("the first prompt offered the skill tool before the sidecar answered")
	}
	second := firstOfTurn(t, reqs, 2)
	if !slices.Contains(second.ToolNames(), "skill") {
		t.Errorf("the second prompt, after the sidecar answered, offers no skill tool (tools %v)", second.ToolNames())
	}
	last := reqs[len(reqs)-1]
	if last.UserTurn != 2 || CountInMessages(last, "BREAD-BODY-5e18") != 1 {
		t.Errorf("the skill tool did not bring the body of bread-proofing in the last request")
	}
	if !strings.Contains(res.Stderr, "still starting") || strings.Contains(res.Stderr, "did not start") {
		t.Errorf("want one notice that the sidecar is still starting, no failure; stderr:\n%s", res.Stderr)
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", res.Stderr)
	}
	b, _ := os.ReadFile(filepath.Join(faults.Dir, "trace"))
	pids := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			pids[f[0]] = true
		}
	}
	if len(pids) != 1 {
		t.Errorf("before_request went to %d sidecars, want the one that started slowly; trace:\n%s", len(pids), b)
	}
}
