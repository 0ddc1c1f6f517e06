//go:build e2e

package e2e

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// tui is Pi running interactive in a tmux session of its own (a private
// socket), read with capture-pane.
type tui struct {
	t    *testing.T
	tmux string
	sock string
}

// startTUI starts Pi interactive (the bridge loaded) in tmux, in a
// terminal of cols × rows.
func startTUI(t *testing.T, env *Env, cols, rows int) *tui {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal("this test drives Pi's terminal UI with tmux, which is not installed (scripts/setup-pi.sh installs it: apt-get install tmux)")
	}
	u := &tui{t: t, tmux: tmux, sock: t.TempDir() + "/tmux.sock"}
	args := []string{"new-session", "-d", "-s", "pi", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "-c", env.ProjectDir, "env", "-i"}
	args = append(args, env.environ([]string{"TERM=xterm-256color"})...)
	args = append(args, env.Pi.Node, env.Pi.CLI, "--offline", "-a", "-e", env.Bridge)
	u.run(args...)
	t.Cleanup(func() { _ = exec.Command(tmux, "-S", u.sock, "kill-server").Run() })
	return u
}

func (u *tui) run(args ...string) string {
	u.t.Helper()
	out, err := exec.Command(u.tmux, append([]string{"-S", u.sock}, args...)...).CombinedOutput()
	if err != nil {
		u.t.Fatalf("tmux %s: %v\n%s", args[0], err, out)
	}
	return string(out)
}

// screen is what the terminal shows, with its scrollback.
func (u *tui) screen() string {
	return u.run("capture-pane", "-p", "-t", "pi", "-S", "-500")
}

// waitFor waits until the screen holds every one of want.
func (u *tui) waitFor(d time.Duration, want ...string) string {
	u.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := u.screen()
		ok := true
		for _, w := range want {
			if !strings.Contains(s, w) {
				ok = false
			}
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			u.t.Fatalf("the screen does not show %q after %v:\n%s", want, d, s)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// send types text and Enter.
func (u *tui) send(text string) {
	u.t.Helper()
	u.run("send-keys", "-t", "pi", "-l", text)
	time.Sleep(200 * time.Millisecond)
	u.run("send-keys", "-t", "pi", "Enter")
}

// TestContextEditTUI: what a user of Pi 1.6's interactive mode sees of an
// archive made through a context edit. Pi draws the transcript from the
// entries as recorded (interactive-mode.js renderSessionEntries), so the
// body still shows as delivered; the edit shows only in /tree with every
// entry listed (the "all" filter), as "[context replace: <target id>]"
// (tree-selector.js). The provider receives the placeholder.
func TestContextEditTUI(t *testing.T) {
	t.Parallel()
	env, prov := packEnv(t, Steps(
		[]Reply{load("write-sql-migration"), Say("Migration added.")},
		[]Reply{load("trace-failing-request"), load("format-commit-message"), Say("Fixed and committed.")},
	), `{"cacheAware": {"enabled": false}, "archiveVia": "context_edit"}`)
	u := startTUI(t, env, 100, 72)
	u.waitFor(30*time.Second, "scripted-model")
	u.send("Add a migration with an index on orders.customer_id.")
	u.waitFor(60*time.Second, "Migration added.")
	u.send("Some requests to /orders fail with a 500 since this morning; find out why and commit the fix.")
	u.waitFor(60*time.Second, "Fixed and committed.")
	reqs := prov.Requests()
	if len(reqs) != 5 || CountInBody(reqs[3], placeholderSQL) != 1 || CountInMessages(reqs[3], bodySQL) != 0 {
		t.Fatalf("%d requests; the fourth should hold the SQL placeholder, not the body", len(reqs))
	}
	screen := u.screen()
	t.Logf("the transcript:\n%s", screen)
	if !strings.Contains(screen, `<skill_content name="write-sql-migration">`) || !strings.Contains(screen, "# Write a SQL migration") {
		t.Errorf("the transcript no longer shows the SQL body as delivered")
	}
	s := MustReadSession(t, env.LatestSession())
	edits := contextEdits(t, s)
	if len(edits) != 1 {
		t.Fatalf("context_edit entries %+v, want 1", edits)
	}
	u.send("/tree")
	u.waitFor(10*time.Second, "Session Tree")
	if strings.Contains(u.screen(), "[context replace") {
		t.Errorf("/tree lists the context edit in its default view")
	}
	u.run("send-keys", "-t", "pi", "C-a") // every entry
	tree := u.waitFor(10*time.Second, "[context replace: "+edits[0].Target+"]")
	t.Logf("/tree, every entry:\n%s", tree)
	u.run("send-keys", "-t", "pi", "Escape")
}
