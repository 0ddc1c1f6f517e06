//go:build e2e

package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxPi runs Pi 1.6 interactively in a tmux session of its own.
type tmuxPi struct {
	t    *testing.T
	name string
}

func startTmuxPi(t *testing.T, env *Env, extra ...string) *tmuxPi {
	t.Helper()
	name := fmt.Sprintf("ctxedit-%d", time.Now().UnixNano())
	envs := append(env.environ(nil), "TERM=xterm-256color", "COLORTERM=")
	envs = append(envs, extra...)
	var q []string
	for _, e := range envs {
		q = append(q, shellQuote(e))
	}
	args := []string{shellQuote(env.Pi.Node), shellQuote(env.Pi.CLI), "--offline", "-a"}
	if env.Bridge != "" {
		args = append(args, "-e", shellQuote(env.Bridge))
	}
	cmd := fmt.Sprintf("cd %s && exec env -i %s %s 2>%s", shellQuote(env.ProjectDir), strings.Join(q, " "), strings.Join(args, " "), shellQuote(filepath.Join(env.Home, "stderr.log")))
	if out, err := exec.Command("tmux", "new-session", "-d", "-s", name, "-x", "100", "-y", "72", cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	tp := &tmuxPi{t: t, name: name}
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-session", "-t", name).Run() })
	return tp
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (p *tmuxPi) keys(k ...string) {
	p.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"send-keys", "-t", p.name}, k...)...).CombinedOutput(); err != nil {
		p.t.Fatalf("send-keys: %v\n%s", err, out)
	}
}

func (p *tmuxPi) capture() string {
	p.t.Helper()
	out, err := exec.Command("tmux", "capture-pane", "-p", "-t", p.name, "-S", "-200").CombinedOutput()
	if err != nil {
		p.t.Fatalf("capture-pane: %v\n%s", err, out)
	}
	return string(out)
}

// waitFor polls the screen until it holds s.
func (p *tmuxPi) waitFor(s string, d time.Duration) string {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		c := p.capture()
		if strings.Contains(c, s) {
			return c
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("screen never showed %q:\n%s", s, c)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// TestContextEditTUI: what a user of Pi 1.6's interactive mode sees of an
// archive made through a context edit. Pi draws the transcript from the
// entries as recorded (interactive-mode.js renderSessionEntries), so the
// body still shows as delivered; the edit shows only in /tree with every
// entry listed (the "all" filter), as "[context replace: <target id>]"
// (tree-selector.js). The provider receives the placeholder.
func TestContextEditTUI(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("this test runs Pi's TUI in tmux, which is not installed: %v", err)
	}
	env, prov := packEnv(t, Steps(
		[]Reply{load("write-sql-migration"), Say("Migration added.")},
		[]Reply{load("trace-failing-request"), load("format-commit-message"), Say("Fixed and committed.")},
	), `{"cacheAware": {"enabled": false}, "archiveVia": "context_edit"}`)
	p := startTmuxPi(t, env)
	p.waitFor("scripted-model", 30*time.Second)
	p.keys("Add a migration with an index on orders.customer_id.", "Enter")
	p.waitFor("Migration added.", 60*time.Second)
	p.keys("Some requests to /orders fail with a 500 since this morning; find out why and commit the fix.", "Enter")
	p.waitFor("Fixed and committed.", 60*time.Second)
	reqs := prov.Requests()
	if len(reqs) != 5 || CountInBody(reqs[3], placeholderSQL) != 1 || CountInMessages(reqs[3], bodySQL) != 0 {
		t.Fatalf("%d requests; the fourth should hold the SQL placeholder, not the body", len(reqs))
	}
	screen := p.capture()
	t.Logf("the transcript:\n%s", screen)
	if !strings.Contains(screen, `<skill_content name="write-sql-migration">`) || !strings.Contains(screen, "# Write a SQL migration") {
		t.Errorf("the transcript no longer shows the SQL body as delivered")
	}
	s := MustReadSession(t, env.LatestSession())
	edits := contextEdits(t, s)
	if len(edits) != 1 {
		t.Fatalf("context_edit entries %+v, want 1", edits)
	}
	p.keys("/tree", "Enter")
	p.waitFor("Session Tree", 10*time.Second)
	if strings.Contains(p.capture(), "[context replace") {
		t.Errorf("/tree lists the context edit in its default view")
	}
	p.keys("C-a") // every entry
	tree := p.waitFor("[context replace: "+edits[0].Target+"]", 10*time.Second)
	t.Logf("/tree, every entry:\n%s", tree)
	p.keys("Escape")
}
