package rules

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Prices of the hand-computed cases: read 0.1, write 1.25 (Anthropic's
// 5-minute cache), placeholders of 100 units, bodies of 1,000.
func caseConfig() CacheAware {
	c := DefaultCacheAware()
	c.Enabled = true
	c.MaxDueShare = 1000       // no context bound, except where a case sets one
	c.MinRemainingRequests = 2 // the estimate follows the requests made so far
	c.MaxRemainingRequests = 40
	c.BoundMinChars = 0 // no absolute floor for the bound, except where a case sets one
	c.HorizonWarm = true
	return c
}

func cand(id string, off int64) Candidate {
	return Candidate{ID: id, Offset: off, Size: 1000, Placeholder: 100, Known: true}
}

func withP(c Candidate, p float64) Candidate { c.Comeback = p; return c }

func withFiles(c Candidate, n int64) Candidate { c.Files = n; return c }

func TestComebackCost(t *testing.T) {
	for _, tc := range []struct {
		p           float64
		total, size int64
		want        float64
	}{
		{0, 10000, 1000, 0},
		{1, 10000, 1000, 2250}, // 0.1 × 10,000 + 1.25 × 1,000
		{0.6, 50000, 3000, 0.6 * (5000 + 3750)},
		{2, 10000, 1000, 2250}, // clamped to 1
	} {
		if got := ComebackCost(tc.p, tc.total, tc.size, 0.1, 1.25); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("ComebackCost(%g, %d, %d) = %g, want %g", tc.p, tc.total, tc.size, got, tc.want)
		}
	}
}

func TestArchivedShare(t *testing.T) {
	for _, tc := range []struct{ p, want float64 }{
		{0, 1},
		{0.25, 0.875}, // a comeback, if any, halfway on average
		{0.6, 0.7},
		{0.999, 0.5005},
		{1, 0},          // reloaded after an archive before: nothing counted
		{-1, 1}, {2, 0}, // clamped
	} {
		if got := ArchivedShare(tc.p); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("ArchivedShare(%g) = %g, want %g", tc.p, got, tc.want)
		}
	}
	// Expected weighs each body's saving by its own share: 100 a request
	// over 10 requests, p 0.5 and 0: 750 + 1,000, less the cost 300 and
	// the comeback 200.
	if got := Expected(300, []float64{0, 0}, []float64{100, 100}, []float64{200, 0}, []float64{0.5, 0}, 10); math.Abs(got-1250) > 1e-9 {
		t.Errorf("Expected = %g, want 1250", got)
	}
}

func TestBreakEvenArithmetic(t *testing.T) {
	tests := []struct {
		name       string
		from, upTo int64
		shrink     int64
		want       float64
	}{
		// Body at 0 of an 11,000-unit request: 11,000−900 written at 1.25
		// instead of 11,000 read at 0.1.
		{"body at the head", 0, 11000, 900, 1.25*10100 - 0.1*11000}, // 11,525
		// Body right at the tail: only the placeholder is written.
		{"body at the tail", 10000, 11000, 900, 1.25*100 - 0.1*1000}, // 25
		{"nothing after the break", 5000, 5000, 0, 0},
		{"a shrink larger than the region writes nothing", 0, 500, 900, -0.1 * 500},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := BreakCost(tc.from, tc.upTo, tc.shrink, 0.1, 1.25); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("BreakCost = %v, want %v", got, tc.want)
			}
		})
	}
	if got := SavingPerRequest(900, 0.1); math.Abs(got-90) > 1e-9 {
		t.Errorf("SavingPerRequest = %v, want 90", got)
	}
	if got := ColdSaving(900, 1.25); got != 1125 {
		t.Errorf("ColdSaving = %v, want 1125", got)
	}
	// Break-even: 25 of cost is repaid by 90 a request at once; 11,525 needs
	// 129 requests (11,525 / 90 = 128.06).
	for _, c := range []struct {
		cost, save float64
		n          int
		want       bool
	}{{25, 90, 1, true}, {11525, 90, 128, false}, {11525, 90, 129, true}, {0, 0, 10, false}} {
		if got := Pays(c.cost, c.save, c.n); got != c.want {
			t.Errorf("Pays(%v, %v, %d) = %v, want %v", c.cost, c.save, c.n, got, c.want)
		}
	}
}

func TestRemainingRequests(t *testing.T) {
	for _, c := range []struct{ soFar, lo, hi, want int }{
		{0, 2, 40, 2}, {1, 2, 40, 2}, {10, 2, 40, 10}, {100, 2, 40, 40}, {100, 2, 0, 100}, {5, 8, 4, 8},
		{1, 20, 20, 20}, {100, 20, 20, 20}, // the defaults: a flat 20
	} {
		if got := RemainingRequests(c.soFar, c.lo, c.hi); got != c.want {
			t.Errorf("RemainingRequests(%d, %d, %d) = %d, want %d", c.soFar, c.lo, c.hi, got, c.want)
		}
	}
}

func TestOverdue(t *testing.T) {
	for _, c := range []struct {
		turns, reqs         int
		dueTurn, turn, kept int
		want                bool
	}{
		{1, 0, 3, 3, 50, false}, // same turn, no request bound
		{1, 0, 3, 4, 0, true},   // the next turn
		{2, 0, 3, 4, 9, false},
		{0, 0, 3, 3, 0, true}, // horizon 0: at the first request
		{1, 5, 3, 3, 4, false},
		{1, 5, 3, 3, 5, true},
	} {
		cfg := caseConfig()
		cfg.HorizonTurns, cfg.HorizonRequests = c.turns, c.reqs
		if got := Overdue(cfg, c.dueTurn, c.turn, c.kept); got != c.want {
			t.Errorf("Overdue(turns %d, requests %d; due %d, turn %d, kept %d) = %v, want %v", c.turns, c.reqs, c.dueTurn, c.turn, c.kept, got, c.want)
		}
	}
}

// want is a timing verdict as the table tests write it.
type want struct {
	archive    bool
	code       Code
	cost, save float64
}

// verdicts turns PlanArchives' verdicts into wants, the figures rounded
// to a thousandth.
func verdicts(ts []Timing) []want {
	var g []want
	for _, v := range ts {
		g = append(g, want{v.Archive, v.Code, math.Round(v.Cost*1000) / 1000, math.Round(v.Save*1000) / 1000})
	}
	return g
}

func TestPlanArchives(t *testing.T) {
	tests := []struct {
		name     string
		cands    []Candidate
		total    int64
		cold     bool
		breakAt  int64
		requests int
		want     []want
		text     string  // in the first verdict's text
		share    float64 // maxDueShare (0: none)
	}{
		{"hot, body at the head: 11,525 once against 90 × 10 requests: kept",
			[]Candidate{cand("a", 0)}, 11000, false, -1, 10,
			[]want{{false, TimeDefer, 11525, 90}}, "archiving now would cost 11525 input chars (rewriting the cache after character 0) and save 90 input chars a request, 900 input chars over ~10", 0},
		{"hot, body at the tail: 25 once against 90 a request: archived",
			[]Candidate{cand("a", 10000)}, 11000, false, -1, 10,
			[]want{{true, TimePays, 25, 90}}, "costs 25 input chars once and saves 90 input chars a request", 0},
		{"cold: archived at no extra cost, saving the write of the body",
			[]Candidate{cand("a", 0)}, 11000, true, -1, 10,
			[]want{{true, TimeCold, 0, 1125}}, "cache is cold", 0},
		{"few requests so far: the floor of 2 keeps a mid-body",
			[]Candidate{cand("a", 9800)}, 11000, false, -1, 0,
			// region 1,200, written 300: 375 − 120 = 255 > 180
			[]want{{false, TimeDefer, 255, 90}}, "over ~2 expected requests", 0},
		{"batching: together they pay more than the tail one alone",
			// Alone b: region 1,500, cost 1.25×600 − 150 = 600, 8 × 90 = 720: net 120.
			// From a: region 3,000, written 1,200: 1,500 − 300 = 1,200; 8 × 180 = 1,440: net 240.
			[]Candidate{cand("a", 8000), cand("b", 9500)}, 11000, false, -1, 8,
			[]want{{true, TimePays, 1200, 180}, {true, TimePays, 1200, 180}}, "from character 8000", 0},
		{"batching: with 6 requests neither pays",
			[]Candidate{cand("a", 8000), cand("b", 9500)}, 11000, false, -1, 6,
			[]want{{false, TimeDefer, 1200, 180}, {false, TimeDefer, 600, 90}}, "kept for now", 0},
		{"another change at 5,000: the body after it goes free, the one before is weighed up to it",
			// a: region [1,000, 5,000), written 3,100: 3,875 − 400 = 3,475.
			[]Candidate{cand("a", 1000), cand("b", 6000)}, 11000, false, 5000, 10,
			[]want{{false, TimeDefer, 3475, 90}, {true, TimeBroken, 0, 90}}, "kept for now", 0},
		{"an overdue body breaks the prefix for those after it",
			[]Candidate{{ID: "a", Offset: 2000, Size: 1000, Placeholder: 100, Known: true, Overdue: true}, cand("b", 0), cand("c", 5000)}, 11000, false, -1, 10,
			[]want{{true, TimeHorizon, 0, 90}, {false, TimeDefer, 1.25*(2000-900) - 0.1*2000, 90}, {true, TimeBroken, 0, 90}}, "horizon", 0},
		{"context bound: two due bodies hold 1,800 of 9,200 (19.6%) > 15%: the tail one goes, 900 left (9.8%) is within",
			// From b: region [9,500, 11,000), written 600: 750 − 150 = 600. Then a
			// is weighed against the break at 9,500: region [8,000, 9,500),
			// written 600: 750 − 150 = 600 against 90 × 2: kept.
			[]Candidate{cand("a", 8000), cand("b", 9500)}, 11000, false, -1, 2,
			[]want{{false, TimeDefer, 600, 90}, {true, TimeBound, 600, 90}}, "kept for now", 0.15},
		{"context bound: after the forced break, the body before it pays against it",
			// As above with 7 requests: b alone would need 600 < 630 (pays,
			// net 30) but the batch from a, 1,200 < 1,260 (net 60), is
			// better; nothing is forced. With 6 requests neither pays (540,
			// 1,080); the bound forces b; a against the break at 9,500 costs
			// 600 > 540: kept.
			[]Candidate{cand("a", 8000), cand("b", 9500)}, 11000, false, -1, 7,
			[]want{{true, TimePays, 1200, 180}, {true, TimePays, 1200, 180}}, "it pays", 0.15},
		{"context bound: with 5% both go, from the first",
			[]Candidate{cand("a", 8000), cand("b", 9500)}, 11000, false, -1, 2,
			[]want{{true, TimeBound, 1200, 180}, {true, TimeBound, 1200, 180}}, "maxDueShare 0.05", 0.05},
		{"context bound: the body before a forced break is weighed against it",
			// 20,000 units, a at 8,000, b at 9,100, 5 requests. From b:
			// region 10,900, written 10,000: 12,500 − 1,090 = 11,410. Nothing
			// pays; 1,800 due > 6% of 18,200 forces b. Then a, up to 9,100:
			// region 1,100, written 200: 250 − 110 = 140 < 90 × 5: it pays.
			[]Candidate{cand("a", 8000), cand("b", 9100)}, 20000, false, -1, 5,
			[]want{{true, TimePays, 140, 90}, {true, TimeBound, 11410, 90}}, "it pays", 0.06},
		{"context bound: 0 allows no due body",
			[]Candidate{cand("a", 0)}, 11000, false, -1, 2,
			[]want{{true, TimeBound, 11525, 90}}, "maxDueShare 0", 0.0001},
		{"context bound: the batch that pays is not part of the rest: 900 due against the 8,200 sent (11%) > 10%: both go",
			// b alone pays: region 1,500, written 600: 750 − 150 = 600
			// against 90 × 10. From a: region 9,000, written 7,200: 9,000 −
			// 900 = 8,100 against 180 × 10: kept, 900 due. With b
			// archived the rest is 10,000 − 900 − 900 = 8,200 (counting b's
			// 900 in it, 9,100, held 9.9%: the bound was missed).
			[]Candidate{cand("a", 1000), cand("b", 8500)}, 10000, false, -1, 10,
			[]want{{true, TimeBound, 8100, 180}, {true, TimeBound, 8100, 180}}, "maxDueShare 0.1", 0.1},
		// Comebacks: a at 8,000 of 10,000, 40 requests. Cost 1.25 × 1,100 −
		// 0.1 × 2,000 = 1,175; saving 90 a request, 3,600 over 40, counted
		// for the share 1 − p/2 of them that the body stays archived. A
		// comeback costs 0.1 × 10,000 + 1.25 × 1,000 = 2,250.
		{"comeback 0.25: 0.875 × 3,600 − 1,175 − 0.25 × 2,250 = 1,412.5 > 0: archived",
			[]Candidate{withP(cand("a", 8000), 0.25)}, 10000, false, -1, 40,
			[]want{{true, TimePays, 1175, 90}}, "saves 90 input chars a request, 3150 input chars over ~40 requests while archived, against an expected comeback cost of 562.5 input chars", 0},
		{"comeback 0.5: 0.75 × 3,600 − 1,175 − 0.5 × 2,250 = 400 > 0: archived",
			[]Candidate{withP(cand("a", 8000), 0.5)}, 10000, false, -1, 40,
			[]want{{true, TimePays, 1175, 90}}, "it pays", 0},
		{"comeback 0.75: 0.625 × 3,600 − 1,175 − 0.75 × 2,250 = −612.5: kept",
			[]Candidate{withP(cand("a", 8000), 0.75)}, 10000, false, -1, 40,
			[]want{{false, TimeDefer, 1175, 90}}, "save 90 input chars a request, 2250 input chars over ~40 expected requests while archived, against an expected comeback cost of 1687.5 input chars", 0},
		{"hot, comeback 1 (archived and reloaded before): no saving counted, −1,175 − 2,250: kept",
			[]Candidate{withP(cand("a", 8000), 1)}, 10000, false, -1, 40,
			[]want{{false, TimeDefer, 1175, 90}}, "0 input chars over ~40 expected requests", 0},
		{"cold, comeback 1 (archived and reloaded before): 1,125 − 2,250 < 0: kept",
			[]Candidate{withP(cand("a", 8000), 1)}, 10000, true, -1, 40,
			[]want{{false, TimeDefer, 0, 1125}}, "likely to need the body again", 0},
		{"cold, comeback 0.5: 1,125 + 0.75 × 3,600 − 0.5 × 2,250 = 2,700: archived",
			[]Candidate{withP(cand("a", 8000), 0.5)}, 10000, true, -1, 40,
			[]want{{true, TimeCold, 0, 1125}}, "cache is cold", 0},
		{"cold, comeback 1 but overdue: the horizon wins",
			[]Candidate{{ID: "a", Offset: 8000, Size: 1000, Placeholder: 100, Known: true, Overdue: true, Comeback: 1}}, 10000, true, -1, 40,
			[]want{{true, TimeCold, 0, 1125}}, "cache is cold", 0},
		{"context bound below boundMinChars: 1,800 due is over 15% but under 2,000 characters: kept",
			[]Candidate{cand("a", 8000), cand("b", 9500)}, 11000, false, -1, 2,
			[]want{{false, TimeDefer, 1200, 180}, {false, TimeDefer, 600, 90}}, "kept for now", -2000},
		{"context bound counts the body's files: 900 freed and 1,500 of files hold 2,400, over the 2,000 floor and over 15% of the 8,600 left: archived",
			// The rewrite from 9,500 costs 1.25 × (1,500 − 900) − 0.1 × 1,500
			// = 600; the timing's saving counts the body alone: 90.
			[]Candidate{withFiles(cand("b", 9500), 1500)}, 11000, false, -1, 2,
			[]want{{true, TimeBound, 600, 90}}, "maxDueShare 0.15", -2000},
		{"context bound without the files: 900 is under the 2,000 floor: kept",
			[]Candidate{cand("b", 9500)}, 11000, false, -1, 2,
			[]want{{false, TimeDefer, 600, 90}}, "kept for now", -2000},
		{"the files do not make an archive pay: 1,500 of files, no bound: kept",
			[]Candidate{withFiles(cand("b", 9500), 1500)}, 11000, false, -1, 2,
			[]want{{false, TimeDefer, 600, 90}}, "kept for now", 0},
		{"positions unknown: waits",
			[]Candidate{{ID: "a", Size: 1000, Placeholder: 100}}, 0, false, -1, 10,
			[]want{{false, TimeDefer, 0, 0}}, "no position", 0},
		{"positions unknown: an overdue one takes the others along",
			[]Candidate{{ID: "a", Placeholder: 100, Overdue: true}, {ID: "b", Placeholder: 100}}, 0, false, -1, 10,
			[]want{{true, TimeHorizon, 0, 0}, {true, TimeBroken, 0, 0}}, "horizon", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := caseConfig()
			if tc.share > 0 {
				cfg.MaxDueShare = tc.share
			}
			if tc.share < 0 { // a bound of 15% with a floor of −share characters
				cfg.MaxDueShare, cfg.BoundMinChars = 0.15, -tc.share
			}
			got := PlanArchives(CacheCase{Config: cfg, Candidates: tc.cands, Total: tc.total, Cold: tc.cold,
				ColdWhy: "test", BreakAt: tc.breakAt, Requests: tc.requests})
			for i := range tc.want {
				tc.want[i].cost = math.Round(tc.want[i].cost*1000) / 1000
			}
			if d := cmp.Diff(tc.want, verdicts(got), cmp.AllowUnexported(want{})); d != "" {
				t.Errorf("verdicts (-want +got):\n%s", d)
			}
			if !strings.Contains(got[0].Text, tc.text) {
				t.Errorf("text %q lacks %q", got[0].Text, tc.text)
			}
			for i, v := range got {
				if v.ID != tc.cands[i].ID {
					t.Errorf("verdict %d is for %q, want %q", i, v.ID, tc.cands[i].ID)
				}
			}
		})
	}
}

func TestParseCacheAware(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		want  *CacheAware
		diags []string // "severity key"
	}{
		{"some keys, the rest default", `{"cacheAware": {"enabled": true, "cacheTTLSeconds": 3600, "writePrice": 2}}`,
			func() *CacheAware {
				c := DefaultCacheAware()
				c.Enabled, c.CacheTTLSeconds, c.WritePrice = true, 3600, 2
				return &c
			}(), nil},
		{"unknown key warns", `{"cacheAware": {"horizonTurn": 2}}`, ptr(DefaultCacheAware()), []string{"warning cacheAware.horizonTurn"}},
		{"read above write warns", `{"cacheAware": {"readPrice": 2}}`,
			func() *CacheAware { c := DefaultCacheAware(); c.ReadPrice = 2; return &c }(), []string{"warning cacheAware.readPrice"}},
		{"min above max warns", `{"cacheAware": {"minRemainingRequests": 50}}`,
			func() *CacheAware { c := DefaultCacheAware(); c.MinRemainingRequests = 50; return &c }(), []string{"warning cacheAware.minRemainingRequests"}},
		{"not an object", `{"cacheAware": true}`, nil, []string{"error cacheAware", "error "}},
		{"fractional turns", `{"cacheAware": {"horizonTurns": 1.5}}`, nil, []string{"error cacheAware.horizonTurns", "error "}},
		{"negative price", `{"cacheAware": {"readPrice": -1}}`, nil, []string{"error cacheAware.readPrice", "error "}},
		{"string for a bool", `{"cacheAware": {"enabled": "yes"}}`, nil, []string{"error cacheAware.enabled", "error "}},
		{"TTL beyond a week", `{"cacheAware": {"cacheTTLSeconds": 1e9}}`, nil, []string{"error cacheAware.cacheTTLSeconds", "error "}},
		{"fromModel off", `{"cacheAware": {"fromModel": false}}`,
			func() *CacheAware { c := DefaultCacheAware(); c.FromModel = false; return &c }(), nil},
		{"fromModel not a bool", `{"cacheAware": {"fromModel": 1}}`, nil, []string{"error cacheAware.fromModel", "error "}},
		{"largeBodyChars off", `{"cacheAware": {"largeBodyChars": 0}}`,
			func() *CacheAware { c := DefaultCacheAware(); c.LargeBodyChars = 0; return &c }(), nil},
		{"largeBodyChars fractional", `{"cacheAware": {"largeBodyChars": 8000.5}}`, nil, []string{"error cacheAware.largeBodyChars", "error "}},
		{"largeBodyChars negative", `{"cacheAware": {"largeBodyChars": -1}}`, nil, []string{"error cacheAware.largeBodyChars", "error "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, ds := Parse([]byte(tc.src), "x.json")
			var got []string
			for _, d := range ds {
				got = append(got, d.Severity.String()+" "+d.Key)
				if d.Key != "" && d.Line != 1 {
					t.Errorf("diagnostic %v: line %d, want 1", d, d.Line)
				}
			}
			if d := cmp.Diff(tc.diags, got); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
			var ca *CacheAware
			if f.Sets("cacheAware") {
				ca = &f.Config.CacheAware
			}
			if d := cmp.Diff(tc.want, ca); d != "" {
				t.Errorf("fragment (-want +got):\n%s", d)
			}
		})
	}
	// Merging replaces the object whole: the project's object, with its
	// defaults, wins over the user's.
	u, _ := Parse([]byte(`{"cacheAware": {"enabled": true, "horizonTurns": 3}}`), "user")
	p, _ := Parse([]byte(`{"cacheAware": {"enabled": true}}`), "project")
	if got := Merge(u, p, Trusted).CacheAware; got.HorizonTurns != DefaultCacheAware().HorizonTurns || !got.Enabled {
		t.Errorf("merged cacheAware %+v: want the project's object with defaults", got)
	}
	if got := Merge(u, Fragment{}, Trusted).CacheAware; got.HorizonTurns != 3 {
		t.Errorf("user cacheAware lost: %+v", got)
	}
}

// TestDueBodiesAndCaps checks that bodies already due neither take a place
// among the minKeep most recent nor count against maxKeep, so the rules
// keep what relevance-only (where they would be archived) keeps.
func TestDueBodiesAndCaps(t *testing.T) {
	cfg := Default()
	cfg.MinKeep, cfg.MaxKeep = 1, 1
	bodies := []Body{{ID: "1", Skill: "a"}, {ID: "2", Skill: "b"}, {ID: "3", Skill: "c", Due: true}}
	out := JudgePrompt(PromptCase{Config: cfg, Bodies: bodies, Prompt: "ok"}) // short: not judged
	got := map[string]Code{}
	for _, v := range out.Verdicts {
		got[v.ID] = v.Reason.Code
	}
	want := map[string]Code{"1": ArchiveOverMaxKeep, "2": KeepRecent, "3": KeepShort}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
	for _, c := range []struct {
		code Code
		want bool
	}{{KeepRelevant, true}, {KeepPinned, true}, {KeepShort, false}, {KeepRecent, false}, {KeepNoSignal, false}, {KeepSameRun, false}} {
		if Revives(c.code) != c.want {
			t.Errorf("Revives(%s) = %v, want %v", c.code, !c.want, c.want)
		}
	}
}

// TestPlanArchivesMaybeCold pins the weighing when the lifetime has passed
// but the cache may still be warm (coldConfidence q): the rewrite costs
// (1 − q) × BreakCost and the request saves q × the write of the body.
func TestPlanArchivesMaybeCold(t *testing.T) {
	tests := []struct {
		name    string
		cand    Candidate
		total   int64
		q       float64
		archive bool
		code    Code
		cost    float64
	}{
		// a at 8,000 of 10,000, 40 requests, comeback 0.25: 0.5 × 1,175 =
		// 587.5 once; 0.5 × 1,125 = 562.5 now; 0.875 × 90 × 40 = 3,150
		// later; comeback 0.25 × 2,250 = 562.5. Net 2,562.5: archived.
		{"near the tail, q 0.5: archived", withP(cand("a", 8000), 0.25), 10000, 0.5, true, TimePays, 587.5},
		// a at 0 of 40,000: BreakCost 1.25 × 39,100 − 0.1 × 40,000 = 44,875,
		// half of it 22,437.5 against 562.5 + 3,150 − 0.25 × 5,250: kept.
		{"at the head, q 0.5: kept", withP(cand("a", 0), 0.25), 40000, 0.5, false, TimeDefer, 22437.5},
		{"at the head, q 1: cold, archived", withP(cand("a", 0), 0.25), 40000, 1, true, TimeCold, 0},
		{"at the head, q 0: the hot case", withP(cand("a", 0), 0.25), 40000, 0, false, TimeDefer, 44875},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := PlanArchives(CacheCase{Config: caseConfig(), Candidates: []Candidate{tc.cand}, Total: tc.total,
				ColdChance: tc.q, ColdWhy: "test", BreakAt: -1, Requests: 40})
			if got[0].Archive != tc.archive || got[0].Code != tc.code || math.Abs(got[0].Cost-tc.cost) > 1e-6 {
				t.Errorf("got %+v, want archive %v code %s cost %g", got[0], tc.archive, tc.code, tc.cost)
			}
		})
	}
}

// TestOverdueWithoutHorizonWarm: with horizonWarm false an overdue body is
// not forced out of a warm cache; it is weighed without a comeback.
func TestOverdueWithoutHorizonWarm(t *testing.T) {
	od := func(off int64, p float64) Candidate {
		c := withP(cand("a", off), p)
		c.Overdue = true
		return c
	}
	tests := []struct {
		name    string
		cand    Candidate
		total   int64
		cold    bool
		archive bool
		code    Code
		cost    float64
	}{
		// BreakCost 44,875 against 90 × 40 = 3,600: kept.
		{"at the head, warm: kept", od(0, 0), 40000, false, false, TimeDefer, 44875},
		// 1,175 against 3,600, the comeback 0.6 not counted: archived.
		{"near the tail, warm, comeback ignored: pays", od(8000, 0.6), 10000, false, true, TimePays, 1175},
		{"cold: goes", od(0, 1), 40000, true, true, TimeCold, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := caseConfig()
			cfg.HorizonWarm = false
			got := PlanArchives(CacheCase{Config: cfg, Candidates: []Candidate{tc.cand}, Total: tc.total,
				Cold: tc.cold, ColdWhy: "test", BreakAt: -1, Requests: 40})
			if got[0].Archive != tc.archive || got[0].Code != tc.code || math.Abs(got[0].Cost-tc.cost) > 1e-6 {
				t.Errorf("got %+v, want archive %v code %s cost %g", got[0], tc.archive, tc.code, tc.cost)
			}
		})
	}
}

// TestModelCachePrices pins how a model's prices per token become the
// multiples of its input price that the break-even arithmetic uses.
func TestModelCachePrices(t *testing.T) {
	for _, tc := range []struct {
		name               string
		input, read, write float64
		wantR, wantW       float64
		wantOK             bool
	}{
		{"Anthropic, 5-minute cache", 3, 0.3, 3.75, 0.1, 1.25, true},
		{"Anthropic, 1-hour cache writes", 3, 0.3, 6, 0.1, 2, true},
		{"OpenAI: no write price, writes billed as input", 1.25, 0.125, 0, 0.1, 1, true},
		{"no cache discount", 2, 2, 2, 1, 1, true},
		{"no input price", 0, 0.3, 3.75, 0, 0, false},
		{"no cache-read price: free or unknown", 3, 0, 3.75, 0, 0, false},
		{"negative write price", 3, 0.3, -1, 0, 0, false},
		{"infinite", math.Inf(1), 0.3, 3.75, 0, 0, false},
		{"not a number", math.NaN(), 0.3, 3.75, 0, 0, false},
	} {
		r, w, ok := ModelCachePrices(tc.input, tc.read, tc.write)
		if ok != tc.wantOK || math.Abs(r-tc.wantR) > 1e-12 || math.Abs(w-tc.wantW) > 1e-12 {
			t.Errorf("%s: ModelCachePrices(%g, %g, %g) = %g, %g, %v; want %g, %g, %v", tc.name, tc.input, tc.read, tc.write, r, w, ok, tc.wantR, tc.wantW, tc.wantOK)
		}
	}
}

// TestForModel checks which figures the host's word on the model replaces.
func TestForModel(t *testing.T) {
	def := DefaultCacheAware()
	off := def
	off.FromModel = false
	both := &ModelCache{Model: "p/m", ReadPrice: 0.5, WritePrice: 1, TTLSeconds: 3600}
	for _, tc := range []struct {
		name     string
		c        CacheAware
		m        *ModelCache
		r, w, tt float64
		note     string
	}{
		{"nothing known", def, nil, 0.1, 1.25, 300, ""},
		{"prices and lifetime", def, both, 0.5, 1, 3600, "p/m: cache read 0.5 and write 1 times its input price, cache lifetime 3600s"},
		{"prices only", def, &ModelCache{Model: "p/m", ReadPrice: 0.25, WritePrice: 1}, 0.25, 1, 300, "p/m: cache read 0.25 and write 1 times its input price"},
		{"lifetime only", def, &ModelCache{TTLSeconds: 60}, 0.1, 1.25, 60, "the model in use: cache lifetime 60s"},
		{"fromModel off", off, both, 0.1, 1.25, 300, ""},
	} {
		got, note := tc.c.ForModel(tc.m)
		if got.ReadPrice != tc.r || got.WritePrice != tc.w || got.CacheTTLSeconds != tc.tt || note != tc.note {
			t.Errorf("%s: read %g write %g ttl %g note %q; want %g %g %g %q", tc.name, got.ReadPrice, got.WritePrice, got.CacheTTLSeconds, note, tc.r, tc.w, tc.tt, tc.note)
		}
	}
}

// TestPlanArchivesRoutedEntry pins the weighing of the entry skill's body
// once it has routed (releaseRoutedEntry): the rewrite is charged only up
// to where the request's new part begins (Previous), since the new part is
// written anyway. The body r is at 1,000 (1,000 units, 900 freed: 90 a
// request at read price 0.1), in a request of 11,000; 20 requests so far.
func TestPlanArchivesRoutedEntry(t *testing.T) {
	routed := func(c Candidate) Candidate { c.Routed = true; return c }
	tests := []struct {
		name      string
		cands     []Candidate
		prev      int64
		breakAt   int64
		cold      bool
		want      []want
		text      string
		alsoWants string // in the second verdict's text
	}{
		{"only the load that routed follows it: region [1,000, 2,300), written 400: 500 − 130 = 370 against 90 × 20: archived",
			[]Candidate{routed(cand("r", 1000))}, 2300, -1, false,
			[]want{{true, TimeRouted, 370, 90}}, "costs 370 input chars once and saves 90 input chars a request, 1800 input chars over ~20 requests", ""},
		{"with comeback 0.25: 0.875 × 1,800 − 370 − 0.25 × (1,100 + 1,250) = 617.5 > 0: archived",
			[]Candidate{withP(routed(cand("r", 1000)), 0.25)}, 2300, -1, false,
			[]want{{true, TimeRouted, 370, 90}}, "1575 input chars over ~20 requests while it stays archived, against an expected comeback of 587.5 input chars (probability 0.25)", ""},
		{"the same body as an ordinary due one is charged to the request's end: 1.25 × 9,100 − 1,000 = 10,375: kept",
			[]Candidate{withP(cand("r", 1000), 0.25)}, 2300, -1, false,
			[]want{{false, TimeDefer, 10375, 90}}, "kept for now", ""},
		{"a long run after it: region [1,000, 10,000), written 8,100: 10,125 − 900 = 9,225: kept, it stays pinned",
			[]Candidate{routed(cand("r", 1000))}, 10000, -1, false,
			[]want{{false, TimeDefer, 9225, 90}}, "it stays pinned", ""},
		{"Previous unknown: charged to the request's end, 10,375: kept",
			[]Candidate{routed(cand("r", 1000))}, 0, -1, false,
			[]want{{false, TimeDefer, 10375, 90}}, "would not pay", ""},
		{"it arrived with this request: the model has not read it: kept",
			[]Candidate{routed(cand("r", 1000))}, 800, -1, false,
			[]want{{false, TimeDefer, 0, 90}}, "has not read it yet", ""},
		{"it arrived with this request, cold cache: kept all the same",
			[]Candidate{routed(cand("r", 1000))}, 800, -1, true,
			[]want{{false, TimeDefer, 0, 90}}, "has not read it yet", ""},
		{"the prefix is already rewritten from 500: archived at no extra cost",
			[]Candidate{routed(cand("r", 1000))}, 10000, 500, false,
			[]want{{true, TimeBroken, 0, 90}}, "rewritten from character 500 on anyway", ""},
		{"its archive takes a later due body along",
			[]Candidate{routed(cand("r", 1000)), cand("b", 5000)}, 2300, -1, false,
			[]want{{true, TimeRouted, 370, 90}, {true, TimeBroken, 0, 90}}, "the entry skill has routed", "the routed entry skill's archive"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := PlanArchives(CacheCase{Config: caseConfig(), Candidates: tc.cands, Total: 11000, Previous: tc.prev,
				Cold: tc.cold, ColdWhy: "test", BreakAt: tc.breakAt, Requests: 20})
			if d := cmp.Diff(tc.want, verdicts(got), cmp.AllowUnexported(want{})); d != "" {
				t.Errorf("verdicts (-want +got):\n%s", d)
			}
			if !strings.Contains(got[0].Text, tc.text) {
				t.Errorf("text %q lacks %q", got[0].Text, tc.text)
			}
			if tc.alsoWants != "" && !strings.Contains(got[1].Text, tc.alsoWants) {
				t.Errorf("second text %q lacks %q", got[1].Text, tc.alsoWants)
			}
		})
	}
}

// TestTimingTextUnits: the timing's reasons state every figure with its
// unit: positions as characters, costs and savings in input chars (what
// that many characters of uncached input cost) or, with the price of a
// character known (UnitUSD), in dollars. A rewrite that costs less than
// keeping the body (what replaces a large body at the end of the cached
// prefix is cheaper to write than the body is to read) says what it saves
// at once, never a negative cost. Large body r at 1,000 (5,000 units,
// 4,900 freed), the request's new part from 6,000: 1.25 × 100 − 0.1 ×
// 5,000 = −375.
func TestTimingTextUnits(t *testing.T) {
	big := func(id string, off int64) Candidate {
		return Candidate{ID: id, Offset: off, Size: 5000, Placeholder: 100, Known: true}
	}
	routed := big("r", 1000)
	routed.Routed = true
	kept := withP(big("k", 6000), 1) // certain to come back: kept whatever it saves
	negative := regexp.MustCompile(`-[0-9]`)
	for _, tc := range []struct {
		name    string
		cand    Candidate
		prev    int64
		unitUSD float64
		cost    float64
		want    []string
	}{
		{"routed, no price", routed, 6000, 0, -375, []string{
			"rewriting the cache from character 1000 to 6000 saves 375 input chars at once (writing the placeholder and what follows the body costs less than reading the body from the cache) and saves 490 input chars a request"}},
		{"routed, in dollars", routed, 6000, 3.0 / 1e6 / 4, -375, []string{
			"rewriting the cache from character 1000 to 6000 saves $0.000281 at once", "and saves $0.000367 a request", "against an expected comeback of $0.000000 (probability 0)"}},
		{"kept, no price", kept, 0, 0, -375, []string{
			"kept for now: archiving now would save 375 input chars at once (rewriting the cache after character 6000 costs less than reading the body from it) and save 490 input chars a request, 0 input chars over ~20 expected requests while archived, against an expected comeback cost of"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := CacheCase{Config: caseConfig(), Candidates: []Candidate{tc.cand}, Total: 11000, Previous: tc.prev, BreakAt: -1, Requests: 20, UnitUSD: tc.unitUSD}
			got := PlanArchives(c)
			if got[0].Cost != tc.cost {
				t.Errorf("cost %g, want %g", got[0].Cost, tc.cost)
			}
			for _, w := range tc.want {
				if !strings.Contains(got[0].Text, w) {
					t.Errorf("text %q lacks %q", got[0].Text, w)
				}
			}
			if negative.MatchString(got[0].Text) {
				t.Errorf("text %q states a negative figure", got[0].Text)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
