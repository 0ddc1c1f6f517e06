//go:build e2e

package e2e

import (
	"strings"
	"testing"
)

// TestBridgeLoads: Pi 1.6 runs to completion with the bridge loaded and the
// model is offered the `skill` tool.
func TestBridgeLoads(t *testing.T) {
	t.Parallel()
	prov := NewProvider(t, func(*Request) Reply { return Say("Bridge answer.") })
	env := NewEnv(t, Pi16(t), prov)
	env.AddSkills(t, testSkills...)
	env.UseBridge(t)
	res := env.RunOK(t, RunOpts{Prompts: []string{"When is high tide tomorrow?"}, Approve: true})
	if got := strings.TrimSpace(res.Stdout); got != "Bridge answer." {
		t.Errorf("stdout = %q, want the scripted answer\nstderr:\n%s", got, res.Stderr)
	}
	reqs := prov.Requests()
	if len(reqs) != 1 {
		t.Fatalf("provider got %d requests, want 1\nstderr:\n%s", len(reqs), res.Stderr)
	}
	if tools := reqs[0].ToolNames(); !contains(tools, "skill") {
		t.Errorf("tools of the request = %v, want the bridge's `skill` tool\nstderr:\n%s", tools, res.Stderr)
	}
}
