//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// probeEvent is one line the probe extension logs.
type probeEvent struct {
	Event        string          `json:"event"`
	Reason       *string         `json:"reason"`
	Text         string          `json:"text"`
	Source       string          `json:"source"`
	Args         string          `json:"args"`
	HasUI        *bool           `json:"hasUI"`
	Mode         string          `json:"mode"`
	Trusted      *bool           `json:"trusted"`
	HasOptions   bool            `json:"hasOptions"`
	SkillsListed bool            `json:"skillsInPrompt"`
	Tool         string          `json:"tool"`
	Input        json.RawMessage `json:"input"`
	Roles        []string        `json:"roles"`
}

func readProbeLog(t *testing.T, path string) []probeEvent {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("probe log: %v", err)
	}
	defer f.Close()
	var out []probeEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var e probeEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, e)
	}
	return out
}

func eventsNamed(evs []probeEvent, name string) []probeEvent {
	var out []probeEvent
	for _, e := range evs {
		if e.Event == name {
			out = append(out, e)
		}
	}
	return out
}

// hostContract checks, with a probe extension that imports nothing from Pi,
// the extension-API behaviour the bridge relies on (docs/pi-host.md): a tool
// with a plain JSON-schema parameters object, tool_call blocking with a
// reason the model sees, context replacing a tool result in the next request
// only (the session keeps the original), custom entries, commands in print
// mode, and which session events fire in print mode.
func hostContract(t *testing.T, pi PiInstall) {
	prov := NewProvider(t, Steps([]Reply{
		Do(Call{Name: "read", Args: map[string]any{"path": "BLOCKED.md"}}),
		Do(Call{Name: "probe_echo", Args: map[string]any{"text": "hi"}}),
		Do(Call{Name: "read", Args: map[string]any{"path": "ARCHIVE.md"}}),
		Say("Contract done."),
	}))
	env := NewEnv(t, pi, prov)
	env.AddSkills(t, testSkills...)
	for name, text := range map[string]string{"BLOCKED.md": "never shown\n", "ARCHIVE.md": "ARCHIVE-ME body text\n"} {
		if err := os.WriteFile(filepath.Join(env.ProjectDir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logPath := filepath.Join(t.TempDir(), "probe.jsonl")
	ext := filepath.Join(RepoRoot(t), "tests", "e2e", "probe", "index.ts")
	res := env.RunOK(t, RunOpts{
		Prompts: []string{"Probe the host."}, Approve: pi.TrustGated,
		Extensions: []string{ext}, Env: []string{"PROBE_LOG=" + logPath},
	})
	if got := strings.TrimSpace(res.Stdout); got != "Contract done." {
		t.Errorf("stdout = %q\nstderr:\n%s", got, res.Stderr)
	}
	reqs := prov.Requests()
	if len(reqs) != 4 {
		t.Fatalf("provider got %d requests, want 4\nstderr:\n%s", len(reqs), res.Stderr)
	}
	if !contains(reqs[0].ToolNames(), "probe_echo") {
		t.Errorf("probe_echo (plain JSON schema) not declared: %v", reqs[0].ToolNames())
	}
	lastResult := func(r *Request) string {
		rs := r.LastToolResults()
		if len(rs) != 1 {
			t.Fatalf("request %d has %d trailing tool results, want 1", r.Index, len(rs))
		}
		return rs[0].Text()
	}
	if got := lastResult(reqs[1]); !strings.Contains(got, "PROBE-BLOCKED: use probe_echo instead") || strings.Contains(got, "never shown") {
		t.Errorf("blocked read's tool result = %q, want the block reason", got)
	}
	if got := lastResult(reqs[2]); got != "ECHO:hi" {
		t.Errorf("probe_echo result = %q, want ECHO:hi", got)
	}
	if got := lastResult(reqs[3]); got != "[probe placeholder]" {
		t.Errorf("context did not replace the tool result in the next request: %q", got)
	}
	if n := CountInBody(reqs[3], "ARCHIVE-ME"); n != 0 {
		t.Errorf("replaced body still in the request %d times", n)
	}

	sess := MustReadSession(t, res.SessionFile)
	var kept bool
	for _, m := range sess.Messages("toolResult") {
		kept = kept || strings.Contains(m.Text(), "ARCHIVE-ME")
	}
	if !kept {
		t.Errorf("the session lost the original tool result (context must not be destructive)")
	}
	if len(sess.Custom("probe-state")) != 1 {
		t.Errorf("custom entries probe-state: %d, want 1", len(sess.Custom("probe-state")))
	}
	if len(sess.Messages("custom")) != 0 {
		t.Errorf("appendEntry produced a context message")
	}

	evs := readProbeLog(t, logPath)
	if n := len(eventsNamed(evs, "context")); n != 4 {
		t.Errorf("context fired %d times, want once per request (4)", n)
	}
	if in := eventsNamed(evs, "input"); len(in) != 1 || in[0].Text != "Probe the host." {
		t.Errorf("input events = %+v", in)
	}
	if b := eventsNamed(evs, "before_agent_start"); len(b) != 1 || !b[0].SkillsListed {
		t.Errorf("before_agent_start events = %+v, want one whose system prompt lists the skills", b)
	}
	var tools []string
	for _, e := range eventsNamed(evs, "tool_call") {
		tools = append(tools, e.Tool)
	}
	if strings.Join(tools, ",") != "read,probe_echo,read" {
		t.Errorf("tool_call saw %v", tools)
	}
	starts := eventsNamed(evs, "session_start")
	shutdowns := eventsNamed(evs, "session_shutdown")
	if len(starts) != 1 || starts[0].HasUI == nil || *starts[0].HasUI {
		t.Errorf("session_start events = %+v, want one with hasUI false", starts)
	}
	if pi.TrustGated {
		if starts[0].Reason == nil || *starts[0].Reason != "startup" || starts[0].Mode != "print" || starts[0].Trusted == nil || !*starts[0].Trusted {
			t.Errorf("Pi 1.6 session_start = %+v, want reason startup, mode print, trusted", starts[0])
		}
		if len(shutdowns) > 0 && (shutdowns[0].Reason == nil || *shutdowns[0].Reason != "quit") {
			t.Errorf("Pi 1.6 session_shutdown reason = %v, want quit", shutdowns[0].Reason)
		}
		if !eventsNamed(evs, "before_agent_start")[0].HasOptions {
			t.Errorf("Pi 1.6 before_agent_start has no systemPromptOptions")
		}
		if n := len(eventsNamed(evs, "agent_settled")); n != 1 {
			t.Errorf("agent_settled fired %d times, want 1", n)
		}
	}
	// Both lines fire session_shutdown once when a print-mode run ends (the
	// bridge stops its sidecar there).
	if len(shutdowns) != 1 {
		t.Errorf("Pi %s fired session_shutdown %d times in print mode, want 1", pi.Version, len(shutdowns))
	}

	// A command as the prompt of a continued run: no model request, a custom
	// entry, no input event.
	before := len(reqs)
	res2 := env.RunOK(t, RunOpts{
		Prompts: []string{"/probe-cmd alpha"}, Approve: pi.TrustGated, Continue: true,
		Extensions: []string{ext}, Env: []string{"PROBE_LOG=" + logPath},
	})
	if n := len(prov.Requests()); n != before {
		t.Errorf("a command caused %d model requests", n-before)
	}
	sess2 := MustReadSession(t, res2.SessionFile)
	cmds := sess2.Custom("probe-cmd")
	if len(cmds) != 1 || !strings.Contains(string(cmds[0].Data), `"alpha"`) {
		t.Errorf("custom entries probe-cmd = %d (%v)", len(cmds), cmds)
	}
	evs = readProbeLog(t, logPath)
	if c := eventsNamed(evs, "command"); len(c) != 1 || c[0].Args != "alpha" {
		t.Errorf("command events = %+v", c)
	}
	if n := len(eventsNamed(evs, "input")); n != 1 {
		t.Errorf("input fired for the command (%d input events in all)", n)
	}
	if strings.Contains(res2.Stdout+res2.Stderr, "probe-cmd alpha") {
		t.Errorf("ctx.ui.notify printed in print mode:\nstdout %q\nstderr %q", res2.Stdout, res2.Stderr)
	}
}

func TestHostContractPi16(t *testing.T) {
	t.Parallel()
	hostContract(t, Pi16(t))
}

func TestHostContractPi073(t *testing.T) {
	t.Parallel()
	hostContract(t, Pi073(t))
}
