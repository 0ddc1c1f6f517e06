//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestBridgeDeltas (issue 28's wire, issue 30 item 5): the bridge sends
// each request's messages in deltas. The fault scenario runs with the
// sidecar lost with the answer of the third before_request: the first
// call to every sidecar (the first, and the one restarted inside that
// call) sends every message (from 0); every later call to the same
// sidecar sends only what the request appends (from > 0, a few
// messages); and the scenario's own checks hold (every body the model
// asks for reaches it, every placeholder stands for its own result).
func TestBridgeDeltas(t *testing.T) {
	t.Parallel()
	for _, pi := range piLines {
		t.Run(pi.name, func(t *testing.T) {
			t.Parallel()
			faults := faultScenario(t, pi.get(t), "before_request:3:drop", false)
			b, err := os.ReadFile(filepath.Join(faults.Dir, "trace"))
			if err != nil {
				t.Fatalf("no before_request trace: %v", err)
			}
			seen := map[string]int{} // proxy pid -> calls so far
			deltas, sidecars := 0, 0
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				f := strings.Fields(line)
				if len(f) != 3 {
					t.Fatalf("trace line %q", line)
				}
				from, _ := strconv.Atoi(f[1])
				n, _ := strconv.Atoi(f[2])
				first := seen[f[0]] == 0
				seen[f[0]]++
				switch {
				case first:
					sidecars++
					if from != 0 {
						t.Errorf("%s: the first before_request to a sidecar sent from %d, want 0 (a full resync)", line, from)
					}
				case from == 0:
					t.Errorf("%s: a later before_request to the same sidecar resent everything", line)
				default:
					deltas++
					if n > 4 {
						t.Errorf("%s: a delta of %d messages, want the few the request appends", line, n)
					}
				}
			}
			if sidecars < 2 || deltas < 3 {
				t.Errorf("%d sidecars, %d deltas; want a restart and deltas around it:\n%s", sidecars, deltas, b)
			}
		})
	}
}
