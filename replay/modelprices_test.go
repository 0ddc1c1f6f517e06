package replay

import (
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// TestReplayGivesTheModelsPrices: replay tells the engine the cache prices
// of each request's model from its price table, as the bridge does from
// Pi's registry. The same session, the same rules: alpha (20,000
// characters) is dropped at turn 8 with 8 turns of long command output
// after it. Under Anthropic's prices the rewrite does not pay and the
// body stays; with reads at the input price it is free and the body goes,
// unless fromModel is off.
func TestReplayGivesTheModelsPrices(t *testing.T) {
	file := foresightSessionPrompts(t, map[int]string{8: "now do the beta work, all of the beta work"}, 12, 20000, 20000, time.Minute)
	cat := alphaBetaCatalog()
	table := func(read, write float64) *pricing.Table {
		tb := pricing.NewTable()
		tb.Default = pricing.Prices{Input: 1, Output: 2, CacheRead: read, CacheWrite: write}
		return tb
	}
	cfg := rules.Default()
	cfg.MinKeep = 0
	off := cfg
	off.CacheAware.FromModel = false
	for _, tc := range []struct {
		name     string
		prices   *pricing.Table
		cfg      rules.Config
		archives int
	}{
		{"Anthropic's prices: kept", table(0.1, 1.25), cfg, 0},
		{"reads at the input price: archived", table(1, 1), cfg, 1},
		{"reads at the input price, fromModel off: kept", table(1, 1), off, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := replayFile(t, file, Options{Prices: tc.prices, Strategies: []StrategySpec{EngineSpec("defaults", world(cat, tc.cfg))}})
			if got := rep.Strategies[1].Archives; got != tc.archives {
				t.Errorf("archives %d, want %d", got, tc.archives)
			}
		})
	}
}
