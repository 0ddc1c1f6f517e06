package rules

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/internal/conf"
)

// CacheAware is the `cacheAware` option: when the bodies that the
// relevance rules drop are archived. Off ("relevance-only"), at once; on
// (the default), they are marked due and archived at a model request when
// that pays under prefix-cache pricing. docs/cache-aware.md gives the
// arithmetic and the policy, and why each default is what it is.
type CacheAware struct {
	Enabled bool `json:"enabled"`
	// ReadPrice and WritePrice are the prices of a cached read and of a
	// cache write, as multiples of the base input price.
	ReadPrice  float64 `json:"readPrice" conf:",min=0,max=1000"`
	WritePrice float64 `json:"writePrice" conf:",min=0,max=1000"`
	// CacheTTLSeconds is the provider's cache lifetime: a request more than
	// this long after the previous one finds the cache cold. 0: the cache
	// never expires.
	CacheTTLSeconds float64 `json:"cacheTTLSeconds" conf:",min=0,max=604800"` // MaxCacheTTLSeconds
	// HorizonTurns bounds how long a due body may stay: it is archived at
	// the latest at the first request of the HorizonTurns-th user turn after
	// the one in which it became due (0: at the first request after it
	// became due, batched with the others).
	HorizonTurns int `json:"horizonTurns" conf:",min=0,max=1000000"`
	// HorizonRequests, when above 0, also archives a due body once it has
	// been kept for this many requests.
	HorizonRequests int `json:"horizonRequests" conf:",min=0,max=1000000"`
	// HorizonWarm makes the horizon archive an overdue body whatever the
	// cache; false (the default): an overdue body is weighed without a
	// comeback.
	HorizonWarm bool `json:"horizonWarm"`
	// MaxDueShare is the context bound: the largest fraction by which due
	// bodies, with their files, may make a request larger than it would be
	// without them.
	MaxDueShare float64 `json:"maxDueShare" conf:",min=0,max=1000"`
	// The number of requests still to come is estimated as the number made
	// so far in the session, clamped to [MinRemainingRequests,
	// MaxRemainingRequests].
	MinRemainingRequests int `json:"minRemainingRequests" conf:",min=0,max=1000000"`
	MaxRemainingRequests int `json:"maxRemainingRequests" conf:",min=0,max=1000000"`
	// BoundMinChars is the size in characters (bodies and their files)
	// below which due material never triggers the context bound.
	BoundMinChars float64 `json:"boundMinChars" conf:",min=0,max=1e12"`
	// ComebackBase is the probability that the agent needs an archived
	// body again when nothing more is known of it; ComebackLikely when
	// something points to it (Comeback says what).
	ComebackBase   float64 `json:"comebackBase" conf:",min=0,max=1"`
	ComebackLikely float64 `json:"comebackLikely" conf:",min=0,max=1"`
	// ColdConfidence is the probability that a request more than
	// cacheTTLSeconds after the previous one finds the cache cold; a cold
	// cache the host reports, or a model change, is certain.
	ColdConfidence float64 `json:"coldConfidence" conf:",min=0,max=1"`
	// FromModel makes the host's word on the model in use win over
	// ReadPrice, WritePrice and CacheTTLSeconds: its cache prices
	// relative to its input price, and the cache lifetime it declares
	// (ModelCache). Those three then only apply where the host says
	// nothing.
	FromModel bool `json:"fromModel"`
	// LearnFromUsage lets the session learn the provider's real lifetime
	// from the cache reads it reports after pauses longer than the
	// declared one (Lifetime): once a pause was found warm or cold, later
	// pauses are judged by that instead of ColdConfidence.
	LearnFromUsage bool `json:"learnFromUsage"`
	// ReleaseRoutedEntry weighs each copy of the entry skill's body, pinned
	// by pinEntrySkill alone, once, at the request after it has routed
	// (docs/cache-aware.md, "The entry skill").
	ReleaseRoutedEntry bool `json:"releaseRoutedEntry"`
	// LargeBodyChars, when above 0, is the size from which a mid-run load
	// keeps an earlier run's body only on its score, a keyword rule or a
	// pin, not on its rank (docs/cache-aware.md, "Large bodies").
	LargeBodyChars int `json:"largeBodyChars" conf:",min=0,max=1000000"`
}

// ModelCache is what the host knows of the prompt cache of the model a
// request goes to. Zero fields are unknown.
type ModelCache struct {
	// Model names it ("provider/id"), for reasons.
	Model string `json:"model,omitempty"`
	// ReadPrice and WritePrice are multiples of the model's input price
	// (ModelCachePrices); both 0 when unknown.
	ReadPrice  float64 `json:"readPrice,omitempty"`
	WritePrice float64 `json:"writePrice,omitempty"`
	// TTLSeconds is the lifetime the host declares for the cache tier in
	// use (Pi 1.6: the model's promptCache.short, or .long with
	// PI_CACHE_RETENTION=long).
	TTLSeconds float64 `json:"ttlSeconds,omitempty"`
	// UnitUSD is the price in USD of one unit of the request (a
	// character, see CacheCase.CharsPerUnit) sent as uncached input; 0:
	// unknown. It only changes how the timing's reasons state costs (in
	// dollars rather than in units of input, CacheCase.Money). Replay
	// sets it from its prices and calibration; the bridge, which does not
	// know the characters per token, does not send it.
	UnitUSD float64 `json:"-"`
}

// ModelCachePrices turns a model's prices per token (any unit, the same
// for the three) into the read and write multiples of its input price.
// A model without an input price or without a cache-read price says
// nothing (ok false): a zero cache-read price cannot tell a free cache
// from an unknown one. A zero cache-write price means writes are billed
// as plain input (OpenAI's API reports no cache writes), so 1.
func ModelCachePrices(input, cacheRead, cacheWrite float64) (r, w float64, ok bool) {
	if !(input > 0) || !(cacheRead > 0) || cacheWrite < 0 || math.IsInf(input+cacheRead+cacheWrite, 0) {
		return 0, 0, false
	}
	r, w = cacheRead/input, 1.0
	if cacheWrite > 0 {
		w = cacheWrite / input
	}
	return r, w, true
}

// ForModel is c with the host's word on the model applied (FromModel), and
// a note saying what came from it ("" when nothing did).
func (c CacheAware) ForModel(m *ModelCache) (CacheAware, string) {
	if !c.FromModel || m == nil {
		return c, ""
	}
	var parts []string
	if m.ReadPrice > 0 && m.WritePrice > 0 {
		c.ReadPrice, c.WritePrice = m.ReadPrice, m.WritePrice
		parts = append(parts, fmt.Sprintf("cache read %s and write %s times its input price", strconv.FormatFloat(m.ReadPrice, 'g', 3, 64), strconv.FormatFloat(m.WritePrice, 'g', 3, 64)))
	}
	if m.TTLSeconds > 0 {
		c.CacheTTLSeconds = m.TTLSeconds
		parts = append(parts, fmt.Sprintf("cache lifetime %gs", m.TTLSeconds))
	}
	if len(parts) == 0 {
		return c, ""
	}
	name := m.Model
	if name == "" {
		name = "the model in use"
	}
	return c, name + ": " + strings.Join(parts, ", ")
}

// TTLFor is the cache lifetime that applies to a request to the model m:
// ForModel's, without building its note.
func (c CacheAware) TTLFor(m *ModelCache) time.Duration {
	if c.FromModel && m != nil && m.TTLSeconds > 0 {
		c.CacheTTLSeconds = m.TTLSeconds
	}
	return c.TTL()
}

// DefaultCacheAware is the `cacheAware` option when no file sets it.
func DefaultCacheAware() CacheAware {
	return CacheAware{
		Enabled:              true,
		ReadPrice:            0.1,
		WritePrice:           1.25,
		CacheTTLSeconds:      300,
		HorizonTurns:         3,
		HorizonRequests:      0,
		MaxDueShare:          0.15,
		MinRemainingRequests: 20,
		MaxRemainingRequests: 20,
		BoundMinChars:        15000,
		ComebackBase:         0.25,
		ComebackLikely:       0.6,
		ColdConfidence:       0.5,
		FromModel:            true,
		LearnFromUsage:       true,
		ReleaseRoutedEntry:   true,
		LargeBodyChars:       8000,
	}
}

// TTL is the cache lifetime as a duration (0: never expires).
func (c CacheAware) TTL() time.Duration {
	return time.Duration(c.CacheTTLSeconds * float64(time.Second))
}

// Timing codes: why a due body is archived at a request, or kept.
const (
	TimeCold    Code = "cache-cold"     // the cache is cold: archiving costs nothing extra
	TimeBroken  Code = "prefix-broken"  // the prefix is rewritten from at or before the body anyway
	TimePays    Code = "pays"           // the savings over the expected requests exceed the rewrite
	TimeHorizon Code = "horizon"        // kept as long as allowed (horizonTurns, horizonRequests)
	TimeBound   Code = "context-bound"  // the due bodies would hold more context than maxDueShare allows
	TimeRouted  Code = "routed-entry"   // the entry skill has routed, and archiving it now pays
	TimeGone    Code = "not-in-request" // the host did not send the body: nothing to rewrite
	TimeNow     Code = "relevance-only" // cacheAware is off: archived at once
	TimeDefer   Code = "deferred"       // kept for now: archiving would not pay yet
)

// Candidate is one body due for archive as the request about to be sent
// holds it. Offset and Size are in the request's unit (characters or
// tokens, the same as Total).
type Candidate struct {
	ID     string `json:"id"`
	Offset int64  `json:"offset"`
	Size   int64  `json:"size"`
	// Placeholder is the size of the text that would replace the body.
	Placeholder int64 `json:"placeholder"`
	// Overdue says the body reached the horizon: it is archived now.
	Overdue bool `json:"overdue,omitempty"`
	// Known is false when the host gave no position for the body.
	Known bool `json:"known"`
	// Routed marks the entry skill's body, due because it has routed
	// (CacheAware.ReleaseRoutedEntry): it is weighed at this request only,
	// alone, with the rewrite charged up to CacheCase.Previous.
	Routed bool `json:"routed,omitempty"`
	// Comeback is the probability (0 to 1) that the agent needs the body
	// again after it is archived (see CacheAware.ComebackBase).
	Comeback float64 `json:"comeback,omitempty"`
	// Files is what the files of the skill's folder that go with the body
	// free when archived (their sizes minus their placeholders). The
	// context bound counts them, the timing does not.
	Files int64 `json:"files,omitempty"`
}

// CacheCase is everything the timing decision looks at for one request.
type CacheCase struct {
	Config     CacheAware
	Candidates []Candidate
	// Total is the size of the whole request as it would be sent with the
	// bodies archived so far (same unit as the offsets). A rewrite is
	// charged from the body to Total, including what this request adds
	// after the previous one, which is written anyway: the margin keeps a
	// body from looking cheap to archive just after a load appended a
	// large body behind it (docs/cache-aware.md, "The arithmetic").
	Total int64
	// Cold says the provider's cache holds nothing of this request; Why
	// says why, for reasons.
	Cold    bool
	ColdWhy string
	// ColdChance, when Cold is false and it is above 0, is the probability
	// that the cache is cold all the same (the lifetime has passed, see
	// CacheAware.ColdConfidence): the gains are weighed by it.
	ColdChance float64
	// Previous is where what this request adds after the previous request
	// begins (the previous request's size; 0: unknown, then Total).
	Previous int64
	// BreakAt is the offset of the earliest change this request already
	// makes to the previously sent prefix (-1: none known).
	BreakAt int64
	// Requests is the number of requests made so far in the session,
	// including this one.
	Requests int
	// CharsPerUnit is the number of characters in a unit of the offsets
	// (0 or 1: characters), for BoundMinChars.
	CharsPerUnit float64
	// UnitUSD is the price of one unit of uncached input in USD
	// (ModelCache.UnitUSD; 0: unknown), for the reasons' figures only.
	UnitUSD float64
}

// Timing is the timing verdict for one candidate.
type Timing struct {
	ID      string `json:"id"`
	Archive bool   `json:"archive"`
	Code    Code   `json:"code"`
	// Cost is the one-time extra cost of archiving now (rewriting the
	// prefix from the body on, in units × input price); Save the saving
	// on each later request; Requests the expected remaining requests.
	Cost     float64 `json:"cost"`
	Save     float64 `json:"save"`
	Requests int     `json:"requests,omitempty"`
	Text     string  `json:"text"`
}

// RemainingRequests estimates how many requests are still to come: as many
// as were made so far (a session half over is the best guess without other
// knowledge), clamped to [lo, hi]; hi ≤ 0 means no cap.
func RemainingRequests(soFar, lo, hi int) int {
	n := soFar
	if hi > 0 && n > hi {
		n = hi
	}
	if n < lo {
		n = lo
	}
	return n
}

// BreakCost is the one-time extra cost of changing the prefix at offset
// from, when the prefix is otherwise intact up to upTo (the request's end,
// or an earlier break): the region [from, upTo) is written at price w
// instead of read at price r, and it shrinks by shrink (the archived bodies
// minus their placeholders) in the process.
func BreakCost(from, upTo, shrink int64, r, w float64) float64 {
	if upTo <= from {
		return 0
	}
	written := upTo - from - shrink
	if written < 0 {
		written = 0
	}
	return w*float64(written) - r*float64(upTo-from)
}

// SavingPerRequest is what archiving bodies of total size freed (bodies
// minus placeholders) saves on each later request with a warm cache.
func SavingPerRequest(freed int64, r float64) float64 {
	if freed < 0 {
		return 0
	}
	return r * float64(freed)
}

// ColdSaving is what archiving saves on a request whose cache is cold:
// the freed size is not written.
func ColdSaving(freed int64, w float64) float64 {
	if freed < 0 {
		return 0
	}
	return w * float64(freed)
}

// ComebackCost is the expected extra cost of archiving a body of size
// units with probability p that the agent needs it again, in a request of
// total units: the comeback is one more request that reads the context
// from the cache (r·total) and writes the body again (w·size).
func ComebackCost(p float64, total, size int64, r, w float64) float64 {
	if p <= 0 {
		return 0
	}
	return min(p, 1) * (r*float64(max(total, 0)) + w*float64(max(size, 0)))
}

// Expected is the expected gain of archiving bodies at once: the one-time
// cost, a saving now (the cold saving, 0 when the cache is hot), the saving
// per later request over n requests, and the comeback costs. Each body
// saves only while it stays archived, so its saving is weighed by
// ArchivedShare(p). PlanArchives keeps the same sums as its batches grow.
func Expected(cost float64, now, perReq []float64, comeback []float64, p []float64, n int) float64 {
	g := -cost
	for i := range perReq {
		g += now[i] + ArchivedShare(p[i])*perReq[i]*float64(n) - comeback[i]
	}
	return g
}

// ArchivedShare is the share of the n expected requests for which a body
// the agent needs again with probability p stays archived. Nothing says
// when a comeback falls, so it is taken to fall anywhere in the n requests
// with equal chance, halfway on average: 1 − p/2. A body whose skill the
// agent already loaded again after an archive (p = 1) counts none: an
// archive the agent undid is not repeated while it has to pay.
func ArchivedShare(p float64) float64 {
	p = min(max(p, 0), 1)
	if p == 1 {
		return 0
	}
	return 1 - p/2
}

// Pays reports whether archiving pays: the saving per request over the
// expected remaining requests exceeds the one-time cost.
func Pays(cost, save float64, requests int) bool {
	return save*float64(requests) > cost
}

// PlanArchives decides, for each candidate, whether it is archived at this
// request. In order: with the cache cold, all are (archiving costs nothing
// extra). Overdue candidates are archived, and so break the prefix at the
// earliest of them; every candidate at or after a break (BreakAt, or an
// overdue one) is archived too, at no extra cost. Of the candidates before
// the break, sorted by offset, the batch that starts at candidate k holds k
// and every candidate after it: its cost is BreakCost from k's offset to the
// break, its saving the freed size of the batch; the batch with the largest
// net gain over the expected remaining requests is archived when that gain
// is positive. The others are kept, each with the figures of the batch it
// would start ("archiving now would cost X and save Y").
func PlanArchives(c CacheCase) []Timing {
	cfg := c.Config
	r, w := cfg.ReadPrice, cfg.WritePrice
	n := RemainingRequests(c.Requests, cfg.MinRemainingRequests, cfg.MaxRemainingRequests)
	out := make([]Timing, len(c.Candidates))
	freed := func(cd Candidate) int64 { return max(cd.Size-cd.Placeholder, 0) }
	back := func(cd Candidate) float64 { return ComebackCost(cd.Comeback, c.Total, cd.Size, r, w) }
	if c.Cold || c.ColdChance >= 1 {
		for i, cd := range c.Candidates {
			if cd.Routed && c.arrivedNow(cd) {
				out[i] = routedUnread(cd, r, n)
				continue
			}
			cs := ColdSaving(freed(cd), w)
			g := Expected(0, []float64{cs}, []float64{SavingPerRequest(freed(cd), r)}, []float64{back(cd)}, []float64{cd.Comeback}, n)
			if cd.Overdue || g >= 0 {
				out[i] = Timing{ID: cd.ID, Archive: true, Code: TimeCold, Save: cs, Requests: n,
					Text: fmt.Sprintf("archived now: the prompt cache is cold (%s), so nothing cached is lost and this request already saves %s", c.ColdWhy, c.Money(cs))}
				continue
			}
			out[i] = Timing{ID: cd.ID, Code: TimeDefer, Save: cs, Requests: n,
				Text: fmt.Sprintf("kept for now: the prompt cache is cold (%s), but the agent is likely to need the body again (comeback probability %s, expected comeback cost %s against a saving of %s now and %s a request)", c.ColdWhy, num(cd.Comeback), c.Money(back(cd)), c.Money(cs), c.Money(SavingPerRequest(freed(cd), r)))}
		}
		return out
	}
	brk := int64(math.MaxInt64)
	brkWhy := ""
	if c.BreakAt >= 0 {
		brk, brkWhy = c.BreakAt, "another change to the context"
	}
	var known, routed []int
	c.Candidates = slices.Clone(c.Candidates)
	for i, cd := range c.Candidates {
		switch {
		case cd.Routed && cd.Known:
			routed = append(routed, i)
		case cd.Overdue && cd.Known && !cfg.HorizonWarm:
			// Past the horizon the rules have dropped the body for long
			// enough that no comeback is counted; a warm rewrite must
			// still pay (the context bound caps what stays).
			c.Candidates[i].Comeback = 0
			known = append(known, i)
		case cd.Overdue:
			out[i] = Timing{ID: cd.ID, Archive: true, Code: TimeHorizon, Save: SavingPerRequest(freed(cd), r), Requests: n,
				Text: "archived now: kept as long as the horizon allows (" + horizonText(cfg) + ")"}
			if cd.Known && cd.Offset < brk {
				brk, brkWhy = cd.Offset, "an overdue body's archive"
			}
		case cd.Known:
			known = append(known, i)
		}
	}
	if !knownAny(c.Candidates) && brk == math.MaxInt64 && hasOverdue(c.Candidates) {
		// Positions unknown: an overdue archive breaks the prefix somewhere,
		// so the others go with it.
		brk, brkWhy = -1, "an overdue body's archive"
	}
	// The cache may be cold (the lifetime has passed): with probability q
	// the rewrite costs nothing and the request saves the write of the
	// bodies; otherwise it is the hot case.
	q := min(max(c.ColdChance, 0), 1)
	for _, i := range routed {
		cd := c.Candidates[i]
		out[i] = routedTiming(c, cd, brk, brkWhy, q, n)
		if out[i].Archive && cd.Offset < brk {
			brk, brkWhy = cd.Offset, "the routed entry skill's archive"
		}
	}
	sort.SliceStable(known, func(a, b int) bool { return c.Candidates[known[a]].Offset < c.Candidates[known[b]].Offset })
	var before []int
	for _, i := range known {
		cd := c.Candidates[i]
		if cd.Offset >= brk {
			out[i] = Timing{ID: cd.ID, Archive: true, Code: TimeBroken, Save: SavingPerRequest(freed(cd), r), Requests: n,
				Text: fmt.Sprintf("archived now: the prompt cache is rewritten from %s on anyway (%s), so archiving costs nothing extra", c.At(brk), brkWhy)}
			continue
		}
		before = append(before, i)
	}
	for i, cd := range c.Candidates {
		if !cd.Known && !cd.Overdue {
			if brk < 0 {
				out[i] = Timing{ID: cd.ID, Archive: true, Code: TimeBroken, Requests: n,
					Text: "archived now: the prompt cache is rewritten anyway (" + brkWhy + ")"}
				continue
			}
			out[i] = Timing{ID: cd.ID, Code: TimeDefer, Requests: n,
				Text: "kept for now: the host gave no position for the body, so it waits for a cold cache or the horizon (" + horizonText(cfg) + ")"}
		}
	}
	upTo := min(brk, c.Total)
	for {
		// The batch starting at each candidate before the break holds it
		// and every later one.
		cost := make([]float64, len(before))
		save := make([]float64, len(before))
		// Per batch start, the terms of Expected summed over the batch as
		// it grows: the expected saving over the n requests and the
		// expected comeback cost (both also for the verdicts' text), and
		// the saving now.
		expSave := make([]float64, len(before))
		comeback := make([]float64, len(before))
		var shrink int64
		var nowSum, expSum, backSum float64
		bestK, bestNet := -1, 0.0
		for k := len(before) - 1; k >= 0; k-- {
			cd := c.Candidates[before[k]]
			shrink += freed(cd)
			cost[k] = (1 - q) * BreakCost(cd.Offset, max(upTo, cd.Offset), shrink, r, w)
			save[k] = SavingPerRequest(shrink, r)
			nowSum += q * ColdSaving(freed(cd), w)
			expSum += ArchivedShare(cd.Comeback) * SavingPerRequest(freed(cd), r) * float64(n)
			backSum += back(cd)
			expSave[k], comeback[k] = expSum, backSum
			if net := nowSum + expSum - backSum - cost[k]; net > 0 && net > bestNet {
				bestK, bestNet = k, net
			}
		}
		// The context bound: if the bodies left due would still hold more
		// than MaxDueShare of the rest of the request, the latest batch
		// start that brings them under it (the cheapest) is taken instead,
		// and the bodies before it are weighed again against that break.
		if from := boundStart(c, out, before, bestK, freed); from < len(before) && (bestK < 0 || from < bestK) {
			for k := from; k < len(before); k++ {
				i := before[k]
				cd := c.Candidates[i]
				out[i] = Timing{ID: cd.ID, Archive: true, Code: TimeBound, Cost: cost[from], Save: save[from], Requests: n,
					Text: fmt.Sprintf("archived now: the bodies due for archive, with the files that go with them, would hold more than maxDueShare %g of the request; rewriting the cache from %s %s and saves %s a request", cfg.MaxDueShare, c.At(c.Candidates[before[from]].Offset), c.once(cost[from]), c.Money(save[from]))}
			}
			upTo = c.Candidates[before[from]].Offset
			before = before[:from]
			continue
		}
		for k, i := range before {
			cd := c.Candidates[i]
			if bestK >= 0 && k >= bestK {
				out[i] = Timing{ID: cd.ID, Archive: true, Code: TimePays, Cost: cost[bestK], Save: save[bestK], Requests: n,
					Text: fmt.Sprintf("archived now: it pays: rewriting the cache from %s %s and saves %s a request, %s over ~%d requests%s%s", c.At(c.Candidates[before[bestK]].Offset), c.once(cost[bestK]), c.Money(save[bestK]), c.Money(expSave[bestK]), n, c.comebackText(comeback[bestK]), maybeCold(c))}
				continue
			}
			out[i] = Timing{ID: cd.ID, Code: TimeDefer, Cost: cost[k], Save: save[k], Requests: n,
				Text: fmt.Sprintf("kept for now: archiving now would %s and save %s a request, %s over ~%d expected requests%s%s; it waits for a cold cache, a rewrite before it, or the horizon (%s)", c.wouldCost(cost[k], cd.Offset), c.Money(save[k]), c.Money(expSave[k]), n, c.comebackText(comeback[k]), maybeCold(c), horizonText(cfg))}
		}
		return out
	}
}

// arrivedNow reports whether body cd is in the part of the request that is
// new since the previous one (known only when Previous is).
func (c CacheCase) arrivedNow(cd Candidate) bool {
	return c.Previous > 0 && cd.Offset >= c.Previous
}

// routedTiming weighs the routed entry body cd at the only request at which
// it is weighed, alone: archived when the prefix is already rewritten from
// at or before it (brk), or when the expected gain is positive with the
// rewrite charged from the body to where this request's new part begins
// (c.Previous), since what the request adds is written anyway. A body that
// arrived with this request is kept: the model has not read it yet.
func routedTiming(c CacheCase, cd Candidate, brk int64, brkWhy string, q float64, n int) Timing {
	r, w := c.Config.ReadPrice, c.Config.WritePrice
	freed := max(cd.Size-cd.Placeholder, 0)
	save := SavingPerRequest(freed, r)
	upTo := c.Total
	if c.Previous > 0 {
		upTo = min(upTo, c.Previous)
	}
	switch {
	case c.arrivedNow(cd):
		return routedUnread(cd, r, n)
	case cd.Offset >= brk:
		return Timing{ID: cd.ID, Archive: true, Code: TimeBroken, Save: save, Requests: n,
			Text: fmt.Sprintf("archived now: the entry skill has routed, and the prompt cache is rewritten from %s on anyway (%s), so archiving costs nothing extra", c.At(brk), brkWhy)}
	}
	upTo = min(upTo, brk)
	cost := (1 - q) * BreakCost(cd.Offset, max(upTo, cd.Offset), freed, r, w)
	back := ComebackCost(cd.Comeback, c.Total, cd.Size, r, w)
	g := Expected(cost, []float64{q * ColdSaving(freed, w)}, []float64{save}, []float64{back}, []float64{cd.Comeback}, n)
	figures := fmt.Sprintf("rewriting the cache from %s to %d %s and saves %s a request, %s over ~%d requests while it stays archived, against an expected comeback of %s (probability %s)%s",
		c.At(cd.Offset), max(upTo, cd.Offset), c.once(cost), c.Money(save), c.Money(ArchivedShare(cd.Comeback)*save*float64(n)), n, c.Money(back), strconv.FormatFloat(cd.Comeback, 'g', 3, 64), maybeCold(c))
	if g > 0 {
		return Timing{ID: cd.ID, Archive: true, Code: TimeRouted, Cost: cost, Save: save, Requests: n,
			Text: "archived now: the entry skill has routed, and archiving it while only this run's work follows it pays: " + figures}
	}
	return Timing{ID: cd.ID, Code: TimeDefer, Cost: cost, Save: save, Requests: n,
		Text: "kept: the entry skill has routed, but archiving it would not pay: " + figures + "; it stays pinned"}
}

// routedUnread keeps the routed entry body cd, which arrived with this
// request, whatever the cache: the model has not read it yet.
func routedUnread(cd Candidate, r float64, n int) Timing {
	return Timing{ID: cd.ID, Code: TimeDefer, Save: SavingPerRequest(max(cd.Size-cd.Placeholder, 0), r), Requests: n,
		Text: "kept: the entry skill has routed, but its body arrived with this request and the model has not read it yet; it stays pinned"}
}

// comebackText says what the expected comebacks of a batch cost, when
// they cost anything: the saving before it is counted only while the
// bodies stay archived (ArchivedShare).
func (c CacheCase) comebackText(cost float64) string {
	if cost <= 0 {
		return ""
	}
	return " while archived, against an expected comeback cost of " + c.Money(cost)
}

// Money states a cost or saving of the timing arithmetic (units of the
// request times multiples of the input price) with its unit: in USD to
// six decimals when the price of a unit is known (UnitUSD), else in units
// of uncached input ("307.9 input chars": what 307.9 characters sent
// uncached would cost).
func (c CacheCase) Money(v float64) string {
	if c.UnitUSD > 0 {
		return "$" + strconv.FormatFloat(v*c.UnitUSD, 'f', 6, 64)
	}
	return num(v) + " input " + c.unitName()
}

// At names a position in the request with its unit ("character 5208").
func (c CacheCase) At(offset int64) string {
	if c.CharsPerUnit > 1 {
		return "token " + strconv.FormatInt(offset, 10)
	}
	return "character " + strconv.FormatInt(offset, 10)
}

// unitName is the unit of the request's sizes: "chars" or "tokens".
func (c CacheCase) unitName() string {
	if c.CharsPerUnit > 1 {
		return "tokens"
	}
	return "chars"
}

// once states the one-time cost of a rewrite ("costs $0.000231 once").
// It is negative when the rewrite costs less than keeping the body would
// (BreakCost: what replaces the body, written, is cheaper than the body,
// read from the cache): archiving then saves at once, and says so.
func (c CacheCase) once(cost float64) string {
	if cost < 0 {
		return "saves " + c.Money(-cost) + " at once (writing the placeholder and what follows the body costs less than reading the body from the cache)"
	}
	return "costs " + c.Money(cost) + " once"
}

// wouldCost is once for a body kept: "cost $X (rewriting the cache after
// character N)", or what it would save at once.
func (c CacheCase) wouldCost(cost float64, offset int64) string {
	if cost < 0 {
		return fmt.Sprintf("save %s at once (rewriting the cache after %s costs less than reading the body from it)", c.Money(-cost), c.At(offset))
	}
	return fmt.Sprintf("cost %s (rewriting the cache after %s)", c.Money(cost), c.At(offset))
}

// boundStart returns the index in before from which the due bodies must go
// so that those left hold at most MaxDueShare of the rest of the request,
// given the verdicts so far and the batch that pays (bestK, -1 for none);
// len(before) when the bound holds as it is.
func boundStart(c CacheCase, out []Timing, before []int, bestK int, freed func(Candidate) int64) int {
	from := len(before)
	if bestK >= 0 {
		from = bestK
	}
	held := func(cd Candidate) int64 { return freed(cd) + max(cd.Files, 0) }
	var archived, left int64
	for i, cd := range c.Candidates {
		if out[i].Archive {
			archived += held(cd)
		}
	}
	for _, i := range before[:from] {
		left += held(c.Candidates[i])
	}
	// The batch that pays goes at this request too: the rest of the
	// request is what is sent without it.
	for _, i := range before[from:] {
		archived += held(c.Candidates[i])
	}
	rest := c.Total - archived - left
	cpu := max(c.CharsPerUnit, 1)
	for from > 0 && overBound(left, rest, c.Config.MaxDueShare) && float64(left)*cpu >= c.Config.BoundMinChars {
		from--
		left -= held(c.Candidates[before[from]])
	}
	if bestK >= 0 && from == bestK {
		return len(before)
	}
	return from
}

// overBound reports whether due bodies freeing left units, in a request
// of rest units besides them, exceed the share allowed.
func overBound(left, rest int64, share float64) bool {
	if left <= 0 {
		return false
	}
	return float64(left) > share*float64(max(rest, 0))
}

// maybeCold notes, for texts, that the cost was weighed by the chance of
// a cold cache.
func maybeCold(c CacheCase) string {
	if c.ColdChance <= 0 || c.Cold {
		return ""
	}
	return fmt.Sprintf(" (the cache is cold with probability %s: %s; the cost is weighed by the chance that it is still warm)", num(c.ColdChance), c.ColdWhy)
}

func knownAny(cs []Candidate) bool {
	for _, c := range cs {
		if c.Known {
			return true
		}
	}
	return false
}

func hasOverdue(cs []Candidate) bool {
	for _, c := range cs {
		if c.Overdue {
			return true
		}
	}
	return false
}

func horizonText(c CacheAware) string {
	s := fmt.Sprintf("horizonTurns %d", c.HorizonTurns)
	if c.HorizonRequests > 0 {
		s += fmt.Sprintf(", horizonRequests %d", c.HorizonRequests)
	}
	return s
}

// Overdue reports whether a body that became due in user turn dueTurn, with
// requestsKept requests sent since, must be archived at a request of turn
// turn.
func Overdue(c CacheAware, dueTurn, turn, requestsKept int) bool {
	if turn-dueTurn >= c.HorizonTurns {
		return true
	}
	return c.HorizonRequests > 0 && requestsKept >= c.HorizonRequests
}

// num writes a cost figure with at most one decimal.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}

// MaxCacheTTLSeconds bounds a cache lifetime, configured
// (cacheTTLSeconds) or declared by the host for a model: a week.
const MaxCacheTTLSeconds = 7 * 24 * 3600

// CheckConf warns of cacheAware values that make no sense together: a
// read price above the write price, a minimum of remaining requests above
// the maximum.
func (c *CacheAware) CheckConf(d *conf.Decoder, key string) {
	if c.ReadPrice > c.WritePrice {
		d.Warn(key+".readPrice", "readPrice %s is above writePrice %s: a cache that costs more to read than to write makes every archive look free", fmtNum(c.ReadPrice), fmtNum(c.WritePrice))
	}
	if c.MaxRemainingRequests > 0 && c.MinRemainingRequests > c.MaxRemainingRequests {
		d.Warn(key+".minRemainingRequests", "minRemainingRequests %d is above maxRemainingRequests %d: the estimate is always %d", c.MinRemainingRequests, c.MaxRemainingRequests, c.MinRemainingRequests)
	}
}

func fmtNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
