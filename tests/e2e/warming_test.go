//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The host contract behind cacheWarm (docs/pi-host.md, "Events the bridge uses"):
// Pi 1.6 keeps a model's prompt cache warm by replaying the last request with
// a one-token output cap shortly before the cache lifetime runs out, and asks
// extensions first with cache_warming_decision. The bridge turns a "warm"
// decision into cacheWarm (with the time since it, sinceWarmedMs) and a
// "stop" into cacheStopped on the next before_request. The sidecar's verdict at the request after a long pause
// shows which flag arrived: a body due for archive is kept when the pause was
// kept warm, and archived as cold otherwise, with the reason naming why.

// warmLifetime is the model's short prompt-cache lifetime in seconds: Pi
// refreshes at min(90%, lifetime − 10 s), i.e. 2 s after a request starts,
// and only for lifetimes above 10 s.
const warmLifetime = 12

// warmPause is the turn-2 tool call: long enough for Pi's refresh (2 s after
// the request) and for the sidecar's lifetime (warmConfig) to pass.
const warmPause = "sleep 4"

// warmConfig: cache-aware archiving that trusts a 3-second lifetime fully
// (coldConfidence 1) and counts no comebacks, so a pause longer than 3 s
// archives a due body unless the host says the cache was kept warm. The
// entry skill is not inferred, so the one loaded skill can become due. The
// file's lifetime and prices win over the model's (fromModel false). Pi
// refreshes about every 2 s during the pause, so its last refresh is less
// than 3 s old when the pause ends, and the bridge says how old
// (sinceWarmedMs): the cache kept warm is still warm.
const warmConfig = `{"minKeep": 0, "inferEntrySkill": false, "cacheAware": {"enabled": true, "cacheTTLSeconds": 3, "coldConfidence": 1, "comebackBase": 0, "comebackLikely": 0, "fromModel": false}}`

// warmConfigFromModel is warmConfig with a 2-second lifetime in the file
// and the model's word winning (the default): the model's 12-second
// lifetime, not the file's 2 seconds.
const warmConfigFromModel = `{"minKeep": 0, "inferEntrySkill": false, "cacheAware": {"enabled": true, "cacheTTLSeconds": 2, "coldConfidence": 1, "comebackBase": 0, "comebackLikely": 0}}`

// warmPlaceholder is the start of the placeholder of an archived trace-failing-request.
const warmPlaceholder = `the instructions of skill "trace-failing-request" were archived`

// warmOutputCap returns the output cap of a request (max_completion_tokens,
// else max_tokens; 0 when neither is set).
func warmOutputCap(r *Request) int {
	var b struct {
		MaxCompletion *int `json:"max_completion_tokens"`
		Max           *int `json:"max_tokens"`
	}
	if json.Unmarshal(r.Body, &b) != nil {
		return 0
	}
	switch {
	case b.MaxCompletion != nil:
		return *b.MaxCompletion
	case b.Max != nil:
		return *b.Max
	}
	return 0
}

// warmMessages returns the raw messages array of a request body.
func warmMessages(t *testing.T, r *Request) json.RawMessage {
	t.Helper()
	var b struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &b); err != nil {
		t.Fatalf("request %d: %v", r.Index, err)
	}
	return b.Messages
}

// warmPatchJSON rewrites a JSON object file through f.
func warmPatchJSON(t *testing.T, path string, f func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	f(v)
	writeJSONFile(t, path, v)
}

// warmUsageEntries counts the session's usage entries of kind cache_warm
// (Pi records one per successful refresh).
func warmUsageEntries(t *testing.T, s *Session) int {
	t.Helper()
	n := 0
	for _, e := range s.Entries {
		if e.Type != "usage" {
			continue
		}
		var u struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(e.Raw, &u); err != nil {
			t.Fatalf("%s:%d: %v", s.Path, e.Line, err)
		}
		if u.Kind == "cache_warm" {
			n++
		}
	}
	return n
}

func TestCacheWarmingDecision(t *testing.T) {
	t.Parallel()
	// The refresh pays for itself when the avoided cache write is worth more
	// than $0.05: ~6,500 prompt tokens at $375/M written against $0.30/M
	// read. At DefaultModel's prices ($3.75/M written) it is worth ~$0.02,
	// so Pi decides "stop".
	pricey := Model{ID: "pricey-model", Input: 300, Output: 15, CacheRead: 0.3, CacheWrite: 375}
	cheap := DefaultModel
	cases := []struct {
		name    string
		warming string // settings.json cacheWarming
		model   Model
		refresh bool   // Pi refreshes the cache during the pause
		coldWhy string // "": the body stays; else the archive's reason names this
		config  string // skill-lifecycle.json
		// long runs Pi with PI_CACHE_RETENTION=long; cache, when set, is
		// the models' promptCache (default: {"short": warmLifetime}).
		long  bool
		cache map[string]any
	}{
		{"warm: the pause is kept warm, the body stays", "streaming", pricey, true, "", warmConfig, false, nil},
		{"stop: past the lifetime the cache is cold for certain", "streaming", cheap, false, "the host stopped keeping it warm", warmConfig, false, nil},
		// Pi decides "stop" 2 s after the request, 10 s before the model's
		// 12-second lifetime runs out: a 4-second pause still finds the
		// cache warm, so the body stays.
		{"stop: within the model's lifetime the cache is still warm", "streaming", cheap, false, "", warmConfigFromModel, false, nil},
		{"off: the lifetime decides", "off", pricey, false, "more than the cache lifetime of 3s", warmConfig, false, nil},
		// The bridge passes the model's promptCache: 4 s is within its 12 s.
		{"off: the model's declared lifetime wins over the file's", "off", pricey, false, "", warmConfigFromModel, false, nil},
		// The retention tier picks the lifetime: 2 s short, 12 s long.
		{"off: the short tier's 2 s", "off", pricey, false, "more than the cache lifetime of 2s", warmConfigFromModel, false, map[string]any{"short": 2, "long": warmLifetime}},
		{"off: PI_CACHE_RETENTION=long picks the long tier's 12 s", "off", pricey, false, "", warmConfigFromModel, true, map[string]any{"short": 2, "long": warmLifetime}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prov := NewProvider(t, Steps(
				[]Reply{
					load("trace-failing-request"),
					// Enough context after the body that rewriting it
					// with a warm cache does not pay: it stays due.
					Do(Call{Name: "bash", Args: map[string]any{"command": "cat access.log"}}),
					Say("A nil map in the handler."),
				},
				[]Reply{Do(Call{Name: "bash", Args: map[string]any{"command": warmPause}}), Say("Release notes written.")},
			))
			env := NewEnv(t, Pi16(t), prov, tc.model)
			env.UseBridge(t)
			env.ExtraEnv = append(env.ExtraEnv, slowMachineTimeout)
			if tc.long {
				env.ExtraEnv = append(env.ExtraEnv, "PI_CACHE_RETENTION=long")
			}
			traceProject(t, env, tc.config)
			warmPatchJSON(t, filepath.Join(env.AgentDir, "models.json"), func(v map[string]any) {
				cache := tc.cache
				if cache == nil {
					cache = map[string]any{"short": warmLifetime}
				}
				for _, m := range v["providers"].(map[string]any)[ProviderName].(map[string]any)["models"].([]any) {
					m.(map[string]any)["promptCache"] = cache
				}
			})
			warmPatchJSON(t, filepath.Join(env.AgentDir, "settings.json"), func(v map[string]any) { v["cacheWarming"] = tc.warming })

			res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{
				"The /orders endpoint returns 500 for some customers since this morning; find out why.",
				"Write the release notes and the changelog entry for version 2.3 from the merged pull requests.",
			}})
			checkNoBridgeErrors(t, res)

			// Pi's refreshes reach the provider as requests with a
			// one-token cap; the agent's own requests are the others.
			var real, refreshes []*Request
			for _, r := range prov.Requests() {
				if warmOutputCap(r) == 1 {
					refreshes = append(refreshes, r)
				} else {
					real = append(real, r)
				}
			}
			if len(real) != 5 {
				t.Fatalf("provider got %d agent requests (and %d refreshes), want 5", len(real), len(refreshes))
			}
			before, after := real[3], real[4] // the pause is between them
			if before.UserTurn != 2 || before.Step != 0 || after.UserTurn != 2 || after.Step != 1 {
				t.Fatalf("requests around the pause: turn %d step %d, turn %d step %d; want turn 2 steps 0 and 1",
					before.UserTurn, before.Step, after.UserTurn, after.Step)
			}
			if CountInMessages(before, bodyTrace) != 1 {
				t.Fatalf("the first request of turn 2 should still carry the due body (warm cache, archiving does not pay): %s",
					present(before, bodyTrace))
			}

			during := 0
			for _, w := range refreshes {
				if w.Time.After(before.Time) && w.Time.Before(after.Time) {
					during++
				}
				// A refresh replays a request the agent sent before it.
				replays := false
				for _, r := range real {
					if r.Time.Before(w.Time) && bytes.Equal(warmMessages(t, r), warmMessages(t, w)) {
						replays = true
					}
				}
				if !replays {
					t.Errorf("refresh (request %d) does not replay an earlier agent request", w.Index)
				}
			}
			sess := MustReadSession(t, res.SessionFile)
			// Pi records a refresh only when it answers while its warming
			// run is still current (cache-warmer.js validateRun): a refresh
			// that races the next agent request, or Pi's exit, is sent but
			// not recorded. So every entry has a refresh, not every refresh
			// an entry; a refresh inside the pause answers long before the
			// pause ends and must be recorded.
			if got := warmUsageEntries(t, sess); got > len(refreshes) || (during > 0 && got == 0) {
				t.Errorf("session has %d cache_warm usage entries, provider got %d refreshes (%d during the pause)", got, len(refreshes), during)
			}
			if tc.refresh && during == 0 {
				t.Fatalf("Pi sent no cache refresh during the %q pause (%d refreshes in all)", warmPause, len(refreshes))
			}
			if !tc.refresh && len(refreshes) != 0 {
				t.Fatalf("Pi sent %d cache refreshes, want none", len(refreshes))
			}

			archives := traceArchives(t, sess)
			if tc.coldWhy == "" {
				if CountInMessages(after, bodyTrace) != 1 || CountInMessages(after, warmPlaceholder) != 0 {
					t.Errorf("after the pause: %s, placeholder=%d; want the body kept (kept warm, or within the model's lifetime)",
						present(after, bodyTrace), CountInMessages(after, warmPlaceholder))
				}
				if len(archives) != 0 {
					t.Errorf("archived although the cache was warm: %v", archives)
				}
				return
			}
			checkColdArchive(t, after, archives, tc.coldWhy)
		})
	}
}

// traceProject sets env up for a trace-failing-request run: the bundled
// pack, an access.log long enough that rewriting the cache after the body
// does not pay on a warm cache, and config as skill-lifecycle.json.
func traceProject(t *testing.T, env *Env, config string) {
	t.Helper()
	env.CopyPack(t, filepath.Join(RepoRoot(t), "testdata", "pack"))
	log := strings.Repeat("GET /orders 500 customer=4411 handler=orders.go:88\n", 300)
	if err := os.WriteFile(filepath.Join(env.ProjectDir, "access.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env.AgentDir, "skill-lifecycle.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
}

// traceArchives returns the session's archive records of
// trace-failing-request.
func traceArchives(t *testing.T, sess *Session) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, r := range records(t, sess) {
		if r["action"] == "archive" && r["skill"] == "trace-failing-request" {
			out = append(out, r)
		}
	}
	return out
}

// checkColdArchive asserts that request after carries the placeholder of
// trace-failing-request instead of its body, archived once (archives) as
// a cold cache for a reason that contains why.
func checkColdArchive(t *testing.T, after *Request, archives []map[string]any, why string) {
	t.Helper()
	if CountInMessages(after, bodyTrace) != 0 || CountInMessages(after, warmPlaceholder) != 1 {
		t.Errorf("after the pause: %s, placeholder=%d; want the body archived",
			present(after, bodyTrace), CountInMessages(after, warmPlaceholder))
	}
	if len(archives) != 1 {
		t.Fatalf("archive records for trace-failing-request: %v, want one", archives)
	}
	timing, _ := archives[0]["timing"].(map[string]any)
	text, _ := timing["text"].(string)
	if timing["code"] != "cache-cold" || !strings.Contains(text, why) {
		t.Errorf("archive timing = %v, want code cache-cold with %q", timing, why)
	}
}
