//go:build e2e

package e2e

import (
	"os"
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

// TestBridgeLinesInTUIPi16: in Pi 1.6's terminal UI the archive shows as
// a line of the transcript, the footer holds the status, and
// /skills-stats answers on screen. With E2E_SCREEN_OUT=FILE the final
// screen is written to FILE (docs/session-screen.txt is one).
func TestBridgeLinesInTUIPi16(t *testing.T) {
	t.Parallel()
	env, _ := packEnv(t, Steps(
		[]Reply{load("write-sql-migration"), Say("Migration 0042 adds the index concurrently.")},
		[]Reply{load("trace-failing-request"), load("format-commit-message"), Say("A nil map in the orders handler; fixed and committed.")},
	), `{"cacheAware": {"enabled": false}}`)
	u := startTUI(t, env, 120, 100)
	wait := 60 * time.Second
	u.waitFor(wait, "scripted-model") // the footer: Pi is ready
	u.send("Add a migration with an index on orders.customer_id.")
	u.waitFor(wait, "Migration 0042 adds the index concurrently.")
	u.send("Some requests to /orders fail with a 500 since this morning; find out why and commit the fix.")
	s := u.waitFor(wait, "A nil map in the orders handler", "skill-lifecycle: archived write-sql-migration")
	if !strings.Contains(s, "skills: 2 loaded, 1 archived") {
		t.Errorf("the footer has no status:\n%s", s)
	}
	u.send("/skills-stats")
	s = u.waitFor(wait, "without skill-lifecycle", "with skill-lifecycle")
	if out := os.Getenv("E2E_SCREEN_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(strings.TrimRight(s, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
