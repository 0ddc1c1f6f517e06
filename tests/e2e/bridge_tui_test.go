//go:build e2e

package e2e

import (
	"os"
	"strings"
	"testing"
	"time"
)

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
