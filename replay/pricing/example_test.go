package pricing_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
)

// A Meter prices requests in order: the part of a request that repeats the
// start of the previous one is read from the cache, the rest written; a
// pause longer than the lifetime finds the cache cold. (Default prices:
// input 3, output 15 USD per million tokens, cache read 0.1 and write 1.25
// times the input price; 4 characters a token.)
func ExampleMeter() {
	m := pricing.NewMeter(pricing.Options{TTL: 5 * time.Minute})
	system := strings.Repeat("s", 40000)
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for i, at := range []time.Duration{0, time.Minute, 10 * time.Minute} {
		segs := pricing.Segments(system, strings.Repeat("u", 4000*(i+1)))
		c := m.Price(pricing.Request{Time: t0.Add(at), Model: "m", Segments: segs, OutputTokens: 100})
		fmt.Printf("read %5d, write %5d tokens, cold %q, $%.4f\n", c.CacheReadTokens, c.CacheWriteTokens, c.Cold, c.Total)
	}
	// Output:
	// read     0, write 11000 tokens, cold "first", $0.0428
	// read 11000, write  1000 tokens, cold "", $0.0086
	// read     0, write 13000 tokens, cold "expired", $0.0503
}
