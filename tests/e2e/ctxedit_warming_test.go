//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// sleepExtension is a test-only extension: /e2e-sleep N waits N seconds
// with Pi idle.
const sleepExtension = `export default function (pi: any) {
	pi.registerCommand("e2e-sleep", {
		description: "wait with Pi idle (e2e tests)",
		handler: async (args: string, ctx: any) => {
			await ctx.waitForIdle();
			await new Promise((r) => setTimeout(r, Number(args) * 1000));
		},
	});
}
`

// TestContextEditKeepsWarming: Pi 1.6 stops keeping an idle cache warm
// when its context changes after the request it warms (cache-warmer.js:
// the context is no longer "current"), and a context edit committed at a
// run's last turn_end is such a change. For a model whose cache Pi may
// warm, the bridge proposes edits only in a turn that ran tools, so an
// archive decided at a run's last request leaves Pi warming the pause as
// with the hook.
func TestContextEditKeepsWarming(t *testing.T) {
	t.Parallel()
	refreshes := map[string]int{}
	for _, via := range []string{"hook", "context_edit"} {
		pricey := Model{ID: "pricey-model", Input: 300, Output: 15, CacheRead: 0.3, CacheWrite: 50000}
		prov := NewProvider(t, Steps(
			[]Reply{load("write-sql-migration"), Say("Migration added.")},
			[]Reply{Say("A nil map in the handler.")},
		))
		env := NewEnv(t, Pi16(t), prov, pricey)
		env.UseBridge(t)
		env.ExtraEnv = append(env.ExtraEnv, slowMachineTimeout)
		env.CopyPack(t, filepath.Join(RepoRoot(t), "testdata", "pack"))
		if err := os.WriteFile(filepath.Join(env.AgentDir, "skill-lifecycle.json"), []byte(fmt.Sprintf(`{"minKeep": 0, "cacheAware": {"enabled": false}, "archiveVia": %q}`, via)), 0o644); err != nil {
			t.Fatal(err)
		}
		warmPatchJSON(t, filepath.Join(env.AgentDir, "models.json"), func(v map[string]any) {
			for _, m := range v["providers"].(map[string]any)[ProviderName].(map[string]any)["models"].([]any) {
				m.(map[string]any)["promptCache"] = map[string]any{"short": warmLifetime}
			}
		})
		warmPatchJSON(t, filepath.Join(env.AgentDir, "settings.json"), func(v map[string]any) { v["cacheWarming"] = "idle" })
		ext := filepath.Join(t.TempDir(), "sleep.ts")
		if err := os.WriteFile(ext, []byte(sleepExtension), 0o644); err != nil {
			t.Fatal(err)
		}
		res := env.RunOK(t, RunOpts{Approve: true, Extensions: []string{ext}, Prompts: []string{
			"Add a migration with an index on orders.customer_id.",
			// Another skill's topic: the SQL body goes at this run's only request.
			"Some requests to /orders fail with a 500 since this morning; find out why from the request id.",
			"/e2e-sleep 6",
		}})
		checkNoBridgeErrors(t, res)
		var real []*Request
		for _, r := range prov.Requests() {
			if warmOutputCap(r) == 1 {
				if len(real) == 3 {
					refreshes[via]++
				}
				continue
			}
			real = append(real, r)
		}
		if len(real) != 3 || CountInBody(real[2], placeholderSQL) != 1 {
			t.Fatalf("%s: %d requests, the last one without the SQL placeholder", via, len(real))
		}
	}
	if refreshes["hook"] == 0 {
		t.Fatalf("Pi did not warm the pause after the last request with the hook: the test shows nothing")
	}
	if refreshes["context_edit"] == 0 {
		t.Errorf("Pi stopped warming the cache after the last request with context edits (%d refreshes with the hook)", refreshes["hook"])
	}
}
