package replay

import (
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// TestReplayTeachesTheLifetime: replay tells the engine the usage of each
// request as its own pricing has it, as the bridge passes on the
// provider's. Every turn comes 6 minutes after the previous one; alpha
// (20,000 characters) is dropped at turn 8. The engine trusts no pause to
// be cold (coldConfidence 0). Under a 5-minute lifetime the usage after
// the first pause shows a cold cache, so the engine learns that pauses
// past the lifetime are cold and archives alpha at once at turn 8; without
// learning, or when the cache never expires, the hedge keeps it.
func TestReplayTeachesTheLifetime(t *testing.T) {
	file, cat, cfg := alphaBeta(t, 12)
	off := cfg
	off.CacheAware.LearnFromUsage = false
	run := func(ttl time.Duration, cfg rules.Config) StrategyResult {
		t.Helper()
		return replayFile(t, file, Options{TTL: ttl, Strategies: []StrategySpec{EngineSpec("defaults", world(cat, cfg))}}).Strategies[1]
	}
	learned, hedged := run(5*time.Minute, cfg), run(5*time.Minute, off)
	if learned.Archives != 1 {
		t.Errorf("5-minute lifetime, learning: %d archives, want 1", learned.Archives)
	}
	if !(learned.CostUSD < hedged.CostUSD) {
		t.Errorf("5-minute lifetime: learning costs %.6f, not less than the hedge's %.6f", learned.CostUSD, hedged.CostUSD)
	}
	never, neverOff := run(0, cfg), run(0, off)
	if never.CostUSD != neverOff.CostUSD || never.Archives != neverOff.Archives {
		t.Errorf("no lifetime: learning changed the run (%.6f, %d archives) from the hedge's (%.6f, %d): the cache never went cold",
			never.CostUSD, never.Archives, neverOff.CostUSD, neverOff.Archives)
	}
	t.Logf("5 min: learned %.6f (%d archives), hedged %.6f (%d); none: %.6f (%d)", learned.CostUSD, learned.Archives, hedged.CostUSD, hedged.Archives, never.CostUSD, never.Archives)
}

// alphaBeta is a session of the given number of turns, 6 minutes apart:
// alpha (20,000 characters) is read in turn 1 and turn 8 asks for beta,
// so the rules drop alpha there. cfg keeps no body for being recent and
// trusts no pause to be cold (coldConfidence 0).
func alphaBeta(t *testing.T, turns int) (file string, cat lifecycle.Catalog, cfg rules.Config) {
	t.Helper()
	file = foresightSessionPrompts(t, map[int]string{8: "now do the beta work, all of the beta work"}, turns, 20000, 20000, 6*time.Minute)
	cat = alphaBetaCatalog()
	cfg = rules.Default()
	cfg.MinKeep = 0
	cfg.CacheAware.ColdConfidence = 0
	return file, cat, cfg
}

// alphaBetaCatalog is the catalog of foresightSession's skills.
func alphaBetaCatalog() lifecycle.Catalog {
	return lifecycle.CatalogOf([]skills.Skill{{Name: "alpha", Description: "Alpha things."}, {Name: "beta", Description: "Beta's work."}}, nil)
}

// replayFile replays file with opts, under the bridge's pack and, unless
// opts names others, the test prices, and fails on any diagnostic.
func replayFile(t *testing.T, file string, opts Options) *Report {
	t.Helper()
	opts.Pack = bridgePack()
	if opts.Prices == nil {
		opts.Prices = testPrices()
	}
	r := NewRunner(opts)
	if err := r.AddFile(file); err != nil {
		t.Fatal(err)
	}
	rep := r.Report()
	if len(rep.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %v", rep.Diagnostics)
	}
	return rep
}
