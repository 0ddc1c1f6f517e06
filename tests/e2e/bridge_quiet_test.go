//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBridgeQuietRequests (issue 30, item 5): in a tool loop the sidecar
// says quiet and the bridge sends the next requests without waiting for
// their answers; what the model receives stays what the sidecar decided.
// Turn 1 loads tide-tables and reads a file six times: the body stays in
// every later request. Turn 2 is about something else: the body is
// archived at its first request (relevance-only) and every later request,
// sent without waiting, still carries the placeholder alone. The debug
// log counts the requests sent quiet (12 here: the six reads of each
// turn) and no quiet answer may change what the bridge holds.
func TestBridgeQuietRequests(t *testing.T) {
	t.Parallel()
	for _, pi := range piLines {
		t.Run(pi.name, func(t *testing.T) {
			t.Parallel()
			read := Do(Call{Name: "read", Args: map[string]any{"path": "notes.txt"}})
			turn1 := []Reply{load("tide-tables")}
			turn2 := []Reply{}
			for range 6 {
				turn1, turn2 = append(turn1, read), append(turn2, read)
			}
			env, prov, _ := bridgeEnv(t, pi.get(t), Steps(append(turn1, Say("High tide is at 06:12.")), append(turn2, Say("About two hours."))),
				`{"minKeep": 0, "cacheAware": {"enabled": false}}`)
			if err := os.WriteFile(filepath.Join(env.ProjectDir, "notes.txt"), []byte("harbour notes\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := env.RunOK(t, RunOpts{Approve: pi.get(t).TrustGated, Env: []string{"SKILL_LIFECYCLE_DEBUG=1"}, Prompts: []string{
				"When is high tide tomorrow at the harbour?",
				"How long should sourdough bread dough proof at room temperature before baking?",
			}})
			checkNoBridgeErrors(t, res)
			reqs := prov.Requests()
			if len(reqs) != 15 {
				t.Fatalf("provider got %d requests, want 15\nstderr:\n%s", len(reqs), res.Stderr)
			}
			for i, r := range reqs {
				body, ph := CountInMessages(r, "TIDE-BODY-41c7"), CountInMessages(r, placeholderTide)
				switch {
				case i == 0 && body+ph != 0:
					t.Errorf("request 0: body %d, placeholder %d before the load", body, ph)
				case i >= 1 && i <= 7 && (body != 1 || ph != 0):
					t.Errorf("request %d (turn 1): body %d, placeholder %d, want the body once", i, body, ph)
				case i >= 8 && (body != 0 || ph != 1):
					t.Errorf("request %d (turn 2): body %d, placeholder %d, want the placeholder alone", i, body, ph)
				}
			}
			quiet := strings.Count(res.Stderr, ": quiet, sent after the hook without waiting")
			if quiet < 10 {
				t.Errorf("%d requests went quiet, want the reads' 12 (at least 10)\nstderr:\n%s", quiet, res.Stderr)
			}
			if strings.Contains(res.Stderr, "a quiet request's answer changed") {
				t.Errorf("a quiet answer changed what the bridge holds:\n%s", res.Stderr)
			}
			// On Pi 1.6 (context edits) a quiet request over what the last
			// answer left unchanged returns at once: turn 1's reads after
			// the load's request, turn 2's after the first read's.
			fast := strings.Count(res.Stderr, "before_request: quiet over what the last answer left unchanged")
			if fast > quiet || pi.name == "pi16" && fast < 8 {
				t.Errorf("%d quiet requests returned at once (of %d quiet), want on Pi 1.6 at least 8", fast, quiet)
			}
			t.Logf("%d of %d requests went quiet, %d of them returned at once", quiet, len(reqs), fast)
		})
	}
}
