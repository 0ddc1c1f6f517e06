//go:build e2e

package e2e

import (
	"path/filepath"
	"testing"
	"time"
)

// TestLearnedLifetime: the bridge passes on the usage Pi records for each
// response, and the sidecar learns from it whether a pause left the cache
// cold (cacheAware.learnFromUsage). The provider's cache expires after 2
// seconds; the file declares a 2-second lifetime but trusts no pause to
// be cold (coldConfidence 0), and Pi keeps no cache warm. A 4-second pause
// in turn 1, before anything is due, ends in a request that reads nothing
// from the cache; so after the 4-second pause of turn 2 the due body is
// archived as cold, the reason naming what was learned. Without learning,
// the hedge keeps it.
func TestLearnedLifetime(t *testing.T) {
	t.Parallel()
	const base = `"minKeep": 0, "inferEntrySkill": false, "cacheAware": {"enabled": true, "cacheTTLSeconds": 2, "coldConfidence": 0, "comebackBase": 0, "comebackLikely": 0`
	cases := []struct {
		name    string
		config  string
		learn   bool
		restart bool // each turn in its own Pi process, the first pause between them
	}{
		{"learned: the second pause archives", `{` + base + `}}`, true, false},
		{"not learned: the hedge keeps the body", `{` + base + `, "learnFromUsage": false}}`, false, false},
		// The pause between two processes: the new sidecar reads the
		// usage of its first request against the size of the previous
		// request the bridge measures (previousSize), and the next
		// process would restore what it learned from the session.
		{"learned across a restart: the second pause archives", `{` + base + `}}`, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			turn1 := []Reply{
				load("trace-failing-request"),
				Do(Call{Name: "bash", Args: map[string]any{"command": "cat access.log"}}),
				Do(Call{Name: "bash", Args: map[string]any{"command": warmPause}}),
				Say("A nil map in the handler."),
			}
			// The requests that come after a pause, and the one after the second.
			paused, second := []int{3, 5}, 5
			if tc.restart {
				turn1 = append(turn1[:2], turn1[3])
				paused, second = []int{3, 4}, 4
			}
			prov := NewProvider(t, Steps(turn1,
				[]Reply{Do(Call{Name: "bash", Args: map[string]any{"command": warmPause}}), Say("Release notes written.")},
			))
			prov.ExpireCache(2*time.Second, nil)
			env := NewEnv(t, Pi16(t), prov, DefaultModel)
			env.UseBridge(t)
			env.ExtraEnv = append(env.ExtraEnv, slowMachineTimeout)
			traceProject(t, env, tc.config)
			warmPatchJSON(t, filepath.Join(env.AgentDir, "settings.json"), func(v map[string]any) { v["cacheWarming"] = "off" })

			prompts := []string{
				"The /orders endpoint returns 500 for some customers since this morning; find out why.",
				"Write the release notes and the changelog entry for version 2.3 from the merged pull requests.",
			}
			var res *Result
			if tc.restart {
				checkNoBridgeErrors(t, env.RunOK(t, RunOpts{Approve: true, Prompts: prompts[:1]}))
				time.Sleep(4 * time.Second)
				res = env.RunOK(t, RunOpts{Approve: true, Prompts: prompts[1:], Continue: true})
			} else {
				res = env.RunOK(t, RunOpts{Approve: true, Prompts: prompts})
			}
			checkNoBridgeErrors(t, res)

			reqs := prov.Requests()
			if len(reqs) != second+1 {
				t.Fatalf("provider got %d requests, want %d", len(reqs), second+1)
			}
			// The provider's word: the request after each pause read
			// nothing from the cache, the one before it did.
			for _, i := range paused {
				if reqs[i].Usage.CachedTokens != 0 {
					t.Fatalf("request %d came after a %q pause but the provider reported %d cached tokens", i, warmPause, reqs[i].Usage.CachedTokens)
				}
			}
			if reqs[2].Usage.CachedTokens == 0 {
				t.Fatalf("request 2 (no pause before it) read nothing from the cache")
			}
			after := reqs[second]
			if after.UserTurn != 2 || after.Step != 1 {
				t.Fatalf("request %d is turn %d step %d, want turn 2 step 1", second, after.UserTurn, after.Step)
			}
			archives := traceArchives(t, MustReadSession(t, res.SessionFile))
			if !tc.learn {
				if CountInMessages(after, bodyTrace) != 1 || len(archives) != 0 {
					t.Errorf("without learning: %s, archives %v; want the body kept", present(after, bodyTrace), archives)
				}
				return
			}
			checkColdArchive(t, after, archives, "earlier in this session confirmed")
		})
	}
}
