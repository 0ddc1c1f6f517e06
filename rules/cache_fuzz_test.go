package rules

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// planCase builds a CacheCase from a seed: up to eight due bodies in a
// request, some without a position, overdue, routed or with files, and a
// configuration drawn within the ranges ParseCacheAware accepts. With sane
// set, positions lie inside the request and do not overlap; otherwise
// offsets, sizes and totals may be anything, negative included.
func planCase(seed1, seed2 uint64, sane bool) CacheCase {
	g := rand.New(rand.NewPCG(seed1, seed2))
	cfg := DefaultCacheAware()
	cfg.ReadPrice = g.Float64() * 2
	cfg.WritePrice = g.Float64() * 3
	cfg.MaxDueShare = g.Float64()
	cfg.BoundMinChars = float64(g.IntN(40000))
	cfg.HorizonWarm = g.IntN(2) == 0
	cfg.MinRemainingRequests = g.IntN(30)
	cfg.MaxRemainingRequests = g.IntN(60)
	c := CacheCase{Config: cfg, BreakAt: -1, Requests: g.IntN(100), CharsPerUnit: float64(g.IntN(5))}
	switch g.IntN(8) {
	case 0:
		c.Cold, c.ColdWhy = true, "a compaction"
	case 1:
		c.ColdChance = g.Float64()
	}
	n := g.IntN(9)
	pos := int64(1000 + g.IntN(30000)) // the system prompt and what precedes the first body
	for i := range n {
		cd := Candidate{ID: fmt.Sprintf("b%d", i), Known: g.IntN(8) != 0, Overdue: g.IntN(5) == 0,
			Routed: g.IntN(6) == 0, Comeback: g.Float64(), Placeholder: int64(g.IntN(200))}
		if g.IntN(4) == 0 {
			cd.Comeback = 0
		}
		if g.IntN(3) == 0 {
			cd.Files = int64(g.IntN(15000))
		}
		if sane {
			cd.Size = int64(200 + g.IntN(25000))
			cd.Offset = pos
			pos += cd.Size + int64(g.IntN(40000))
		} else {
			cd.Size = g.Int64N(1<<40) - 1<<39
			cd.Offset = g.Int64N(1<<40) - 1<<39
			cd.Placeholder = g.Int64N(1<<20) - 1<<19
			cd.Files = g.Int64N(1<<20) - 1<<19
		}
		c.Candidates = append(c.Candidates, cd)
	}
	if sane {
		c.Total = pos + int64(g.IntN(5000))
		if g.IntN(2) == 0 {
			c.Previous = c.Total - int64(g.IntN(int(c.Total)))
		}
		if g.IntN(4) == 0 {
			c.BreakAt = int64(g.IntN(int(c.Total)))
		}
	} else {
		c.Total = g.Int64N(1<<40) - 1<<39
		c.Previous = g.Int64N(1<<40) - 1<<39
		c.BreakAt = g.Int64N(1<<40) - 1<<39
	}
	return c
}

// FuzzPlanArchives checks what holds for any request: one verdict per due
// body, in order, with finite figures; and, for a request whose positions
// make sense and whose cache is not known cold, that an archive rewrites
// the prefix from its body on, so every later body with a position goes
// with it (batching), and that the bodies left due stay within the
// context bound (docs/cache-aware.md, "The policy").
func FuzzPlanArchives(f *testing.F) {
	for i := range uint64(24) {
		f.Add(i, i*7919, i%3 != 0)
	}
	f.Fuzz(func(t *testing.T, seed1, seed2 uint64, sane bool) {
		c := planCase(seed1, seed2, sane)
		out := PlanArchives(c)
		if len(out) != len(c.Candidates) {
			t.Fatalf("%d verdicts for %d bodies", len(out), len(c.Candidates))
		}
		for i, v := range out {
			if v.ID != c.Candidates[i].ID {
				t.Fatalf("verdict %d is for %q, not %q", i, v.ID, c.Candidates[i].ID)
			}
			if bad(v.Cost) || bad(v.Save) {
				t.Fatalf("%s: cost %v, save %v", v.ID, v.Cost, v.Save)
			}
			if v.Code == "" || v.Text == "" {
				t.Fatalf("%s: no code or text: %+v", v.ID, v)
			}
		}
		if !sane || c.Cold || c.ColdChance >= 1 {
			return
		}
		// Batching: the earliest archived body with a position rewrites
		// the prefix from there on.
		first := int64(math.MaxInt64)
		for i, cd := range c.Candidates {
			if out[i].Archive && cd.Known && !cd.Routed {
				first = min(first, cd.Offset)
			}
		}
		for i, cd := range c.Candidates {
			if cd.Known && !cd.Routed && cd.Offset > first && !out[i].Archive {
				t.Fatalf("%s at %d kept behind an archive at %d: %s", cd.ID, cd.Offset, first, out[i].Text)
			}
		}
		// The context bound: the bodies with a position left due, with
		// their files, hold at most MaxDueShare of the rest of the request
		// as it will be sent, unless they free less than BoundMinChars.
		var archived, left int64
		for i, cd := range c.Candidates {
			held := max(cd.Size-cd.Placeholder, 0) + cd.Files
			switch {
			case out[i].Archive:
				archived += held
			case cd.Known && !cd.Routed:
				left += held
			}
		}
		rest := c.Total - archived - left
		if overBound(left, rest, c.Config.MaxDueShare) && float64(left)*max(c.CharsPerUnit, 1) >= c.Config.BoundMinChars {
			t.Fatalf("bodies left due hold %d against %d for the rest of the request (maxDueShare %g, boundMinChars %g)", left, rest, c.Config.MaxDueShare, c.Config.BoundMinChars)
		}
	})
}

func bad(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
