package lifecycle

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

func cacheCfg(on bool) rules.Config {
	c := rules.Default()
	c.MinKeep = 0
	c.CacheAware.Enabled = on
	c.CacheAware.HorizonTurns = 1
	c.CacheAware.MaxDueShare = 1000       // no context bound, except where a case sets one
	c.CacheAware.MinRemainingRequests = 2 // the estimate follows the requests made so far
	c.CacheAware.MaxRemainingRequests = 40
	c.CacheAware.BoundMinChars = 0  // no absolute floor, except where a case sets one
	c.CacheAware.ComebackBase = 0   // no comebacks, except where a case sets them
	c.CacheAware.ComebackLikely = 0 //
	c.CacheAware.ColdConfidence = 1 // a request past the lifetime is cold
	c.CacheAware.HorizonWarm = true
	return c
}

func evPrompt(t string) Event { return Event{Type: EvPrompt, Text: t} }
func evLoad(id, skill string) Event {
	return Event{Type: EvLoad, Load: &Load{ID: id, Skill: skill, Size: 1000, Kind: ByTool}}
}
func evStart() Event         { return Event{Type: EvRunStart} }
func evEnd() Event           { return Event{Type: EvRunEnd} }
func evPin(s string) Event   { return Event{Type: EvPin, Skill: s} }
func evEnable(on bool) Event { return Event{Type: EvEnable, On: on} }

// warmed marks a request as following a pause the host kept warm;
// reported as one the host reports cold.
func warmed(ev Event) Event   { ev.Request.CacheWarm = true; return ev }
func reported(ev Event) Event { ev.Request.CacheCold = true; return ev }

// sinceWarmed says when the host last refreshed the cache.
func sinceWarmed(ev Event, d time.Duration) Event { ev.Request.SinceWarmed = d; return ev }

// priced marks a request as going to a model whose cache the host
// describes: read and write prices as multiples of its input price, and
// its declared lifetime (0: not declared).
func priced(ev Event, r, w, ttl float64) Event {
	ev.Request.Cache = &rules.ModelCache{Model: "p/m", ReadPrice: r, WritePrice: w, TTLSeconds: ttl}
	return ev
}

// evReq is a request with the given bodies laid out one after another
// from offset 100, 1,000 units each, and 500 units after the last.
func evReq(n int, since time.Duration, ids ...string) Event {
	r := &Request{Number: n, SincePrevious: since}
	off := int64(100)
	for _, id := range ids {
		r.Bodies = append(r.Bodies, BodyPosition{ID: id, Offset: off, Size: 1000})
		off += 1000
	}
	r.Total = off + 500
	return Event{Type: EvRequest, Request: r}
}

// line writes a body decision compactly: "due a", "archive a cache-cold",
// "undue a relevant", "archive a not-relevant" (no timing: at once).
func line(d Decision) string {
	switch d.Action {
	case ActDue:
		return "due " + d.ID
	case ActUndue:
		return "undue " + d.ID + " " + string(d.Reason.Code)
	case ActArchive:
		if d.Timing != nil {
			return "archive " + d.ID + " " + string(d.Timing.Code)
		}
		return "archive " + d.ID + " " + string(d.Reason.Code)
	}
	return ""
}

func TestCacheAwareEngine(t *testing.T) {
	hot := 10 * time.Second
	cold := 6 * time.Minute
	// Run 1 loads eda; the prompt of run 2 is about shipping, so eda goes.
	opening := []Event{evStart(), evLoad("a", "eda"), evReq(1, 0, "a"), evEnd(), evPrompt("deploy the release now"), evStart(), evLoad("s", "ship")}
	tests := []struct {
		name     string
		on       bool
		events   []Event
		want     []string
		deferred string // a substring of the last Deferred() text ("" when none)
	}{
		{"relevance-only archives at the judgement", false,
			append(opening, evReq(2, hot, "a", "s")),
			[]string{"archive a not-relevant"}, ""},
		{"cache-aware: a hot cache at the head keeps the body, with the figures", true,
			// The placeholder of eda is 140 characters, so archiving frees 860.
			// a at 100 of 2,600: region 2,500, written 1,640: 2,050 − 250 = 1,800 against 86 × 2.
			append(opening, evReq(2, hot, "a", "s")),
			[]string{"due a"}, "archiving now would cost 1800 input chars (rewriting the cache after character 100) and save 86 input chars a request, 172 input chars over ~2 expected requests"},
		{"cache-aware: a cold cache archives", true,
			append(opening, evReq(2, hot, "a", "s"), evReq(3, cold, "a", "s")),
			[]string{"due a", "archive a cache-cold"}, ""},
		{"cache-aware: a pause the host kept warm is not cold", true,
			append(opening, evReq(2, hot, "a", "s"), warmed(evReq(3, cold, "a", "s"))),
			[]string{"due a"}, "waits for a cold cache"},
		{"cache-aware: a refresh older than the lifetime no longer keeps it warm", true,
			append(opening, evReq(2, hot, "a", "s"), sinceWarmed(warmed(evReq(3, 40*time.Minute, "a", "s")), 31*time.Minute)),
			[]string{"due a", "archive a cache-cold"}, ""},
		{"cache-aware: a recent refresh keeps it warm", true,
			append(opening, evReq(2, hot, "a", "s"), sinceWarmed(warmed(evReq(3, 40*time.Minute, "a", "s")), 4*time.Minute)),
			[]string{"due a"}, "waits for a cold cache"},
		{"cache-aware: a cold report wins over a warm one", true,
			append(opening, evReq(2, hot, "a", "s"), reported(warmed(evReq(3, hot, "a", "s")))),
			[]string{"due a", "archive a cache-cold"}, ""},
		{"cache-aware: a model change makes the cache cold", true,
			append(opening, Event{Type: EvRequest, Request: &Request{Number: 2, ModelChanged: true}}),
			[]string{"due a", "archive a cache-cold"}, ""},
		{"cache-aware: the horizon archives at the next turn", true,
			append(opening, evReq(2, hot, "a", "s"), evReq(3, hot, "a", "s"), evEnd(), evPrompt("ok"), evStart(), evReq(4, hot, "a", "s")),
			[]string{"due a", "archive a horizon"}, ""},
		{"cache-aware: horizonRequests bounds a long run", true,
			append(opening, evReq(2, hot, "a", "s"), evReq(3, hot, "a", "s"), evReq(4, hot, "a", "s"), evReq(5, hot, "a", "s")),
			[]string{"due a", "archive a horizon"}, ""},
		{"cache-aware: judged relevant again, the body stays", true,
			append(opening, evReq(2, hot, "a", "s"), evEnd(), evPrompt("explore the data please"), evStart(), evReq(3, hot, "a", "s")),
			[]string{"due a", "undue a relevant", "due s"}, "after character 1100"},
		{"cache-aware: a short follow-up does not revive it", true,
			append(opening, evReq(2, hot, "a", "s"), evEnd(), evPrompt("ok"), evStart(), evReq(3, cold, "a", "s")),
			[]string{"due a", "archive a cache-cold"}, ""},
		{"cache-aware: a pin revives it", true,
			append(opening, evPin("eda"), evReq(2, cold, "a", "s")),
			[]string{"due a", "undue a pinned"}, ""},
		{"cache-aware: switching off revives it", true,
			append(opening, evEnable(false), evReq(2, cold, "a", "s")),
			[]string{"due a", "undue a disabled"}, ""},
		{"cache-aware: a body missing from the request goes at no cost", true,
			append(opening, evReq(2, hot, "s")),
			[]string{"due a", "archive a not-in-request"}, ""},
		{"cache-aware: near the tail it pays at once", true,
			// Bodies s then a: a at 1,100, 500 after: region 1,500, written 640:
			// 800 − 150 = 650 against 86 × 8 = 688.
			append(opening, evReq(8, hot, "s", "a")),
			[]string{"due a", "archive a pays"}, ""},
		{"cache-aware: maxDueShare bounds the context held by due bodies", true,
			// a frees 860 of a 2,600 request: 860 > 0.4 × 1,740 = 696.
			append(opening, evReq(2, hot, "a", "s")),
			[]string{"due a", "archive a context-bound"}, ""},
		{"cache-aware: the model's prices win: reads at the input price make the rewrite free", true,
			// r = w = 1: region 2,500 read at 1 against 1,640 written at 1: −860.
			append(opening, priced(evReq(2, hot, "a", "s"), 1, 1, 0)),
			[]string{"due a", "archive a pays"}, ""},
		{"cache-aware: fromModel off: the file's prices stand", true,
			append(opening, priced(evReq(2, hot, "a", "s"), 1, 1, 0)),
			[]string{"due a"}, "archiving now would cost 1800 input chars (rewriting the cache after character 100)"},
		{"cache-aware: reads at half the input price and no write premium: it pays at once", true,
			// r = 0.5, w = 1: 1,640 − 0.5 × 2,500 = 390 against 0.5 × 860 = 430 × 2.
			append(opening, priced(evReq(2, hot, "a", "s"), 0.5, 1, 0)),
			[]string{"due a", "archive a pays"}, ""},
		{"cache-aware: the model's lifetime wins: 6 minutes in a 1-hour cache is not cold", true,
			append(opening, evReq(2, hot, "a", "s"), priced(evReq(3, cold, "a", "s"), 0.1, 1.25, 3600)),
			[]string{"due a"}, "waits for a cold cache, a rewrite before it, or the horizon (horizonTurns 1) [p/m: cache read 0.1 and write 1.25 times its input price, cache lifetime 3600s]"},
		{"cache-aware: a model lifetime shorter than the file's makes a short pause cold", true,
			append(opening, evReq(2, hot, "a", "s"), priced(evReq(3, 90*time.Second, "a", "s"), 0.1, 1.25, 60)),
			[]string{"due a", "archive a cache-cold"}, ""},
		{"cache-aware: a superseded copy is due and never revived", true,
			[]Event{evStart(), evLoad("a1", "eda"), evLoad("a2", "eda"), evReq(1, hot, "a1", "a2"), evLoad("s", "ship"), evReq(2, hot, "a1", "a2", "s"), evReq(3, cold, "a1", "a2", "s")},
			[]string{"due a1", "archive a1 cache-cold"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cacheCfg(tc.on)
			if strings.Contains(tc.name, "horizonRequests") {
				c.CacheAware.HorizonRequests = 3
			}
			if strings.Contains(tc.name, "maxDueShare") {
				c.CacheAware.MaxDueShare = 0.4
			}
			if strings.Contains(tc.name, "fromModel off") {
				c.CacheAware.FromModel = false
			}
			e := New(testCatalog(), c)
			all, got, _ := play(t, e, tc.events)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("decisions (-want +got):\n%s", d)
			}
			def := e.Deferred()
			switch {
			case tc.deferred == "" && len(def) != 0:
				t.Errorf("unexpected deferred %v", def)
			case tc.deferred != "" && (len(def) != 1 || !strings.Contains(def[0].Text, tc.deferred)):
				t.Errorf("deferred %v, want a text with %q", def, tc.deferred)
			}
			// Restore brings back the same state, due marks and timings included.
			assertRestores(t, testCatalog(), c, e, all)
		})
	}
}

// assertRestores checks that an engine restored from all, the records e
// made, has e's state.
func assertRestores(t *testing.T, cat Catalog, c rules.Config, e *Engine, all []Decision) {
	t.Helper()
	r := New(cat, c)
	if probs := r.onRestore(roundTrip(t, all)); len(probs) != 0 {
		t.Fatalf("restore problems %v", probs)
	}
	if d := cmp.Diff(e.State(), r.State()); d != "" {
		t.Errorf("restored state (-live +restored):\n%s", d)
	}
}

// TestCacheAwareConfigOff checks that bodies due when cacheAware is
// switched off by a reload are archived at the next request.
func TestCacheAwareConfigOff(t *testing.T) {
	e := New(testCatalog(), cacheCfg(true))
	for _, ev := range []Event{evStart(), evLoad("a", "eda"), evEnd(), evPrompt("deploy the release now")} {
		if _, err := e.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	e.setConfig(cacheCfg(false))
	ds := e.onRequest(Request{})
	if len(ds) != 1 || line(ds[0]) != "archive a relevance-only" {
		t.Errorf("decisions %v, want archive a relevance-only", ds)
	}
}

// TestPlanRequestChangesNothing checks PlanRequest against BeforeRequest.
func TestPlanRequestChangesNothing(t *testing.T) {
	e := New(testCatalog(), cacheCfg(true))
	for _, ev := range []Event{evStart(), evLoad("a", "eda"), evEnd(), evPrompt("deploy the release now"), evStart(), evLoad("s", "ship")} {
		if _, err := e.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	before := e.State()
	plan := e.PlanRequest(*evReq(8, time.Second, "s", "a").Request)
	if d := cmp.Diff(before, e.State()); d != "" {
		t.Fatalf("PlanRequest changed the state:\n%s", d)
	}
	ds := e.onRequest(*evReq(8, time.Second, "s", "a").Request)
	if len(plan) != 1 || !plan[0].Archive || len(ds) != 1 || ds[0].Timing == nil || ds[0].Timing.Text != plan[0].Text {
		t.Errorf("plan %v and decisions %v disagree", plan, ds)
	}
}

// TestComebackEstimate pins the comeback probabilities the engine gives
// PlanArchives (docs/cache-aware.md, "Comebacks"): comebackBase 0.25,
// comebackLikely 0.6.
func TestComebackEstimate(t *testing.T) {
	ld := func(id, skill string, run int) Record {
		return Record{V: 1, Action: ActLoad, ID: id, Skill: skill, Run: run}
	}
	due := func(id string, code rules.Code, run int) Record {
		return Record{V: 1, Action: ActDue, ID: id, Reason: &rules.Reason{Code: code}, Run: run}
	}
	arch := func(id string, code rules.Code) Record {
		return Record{V: 1, Action: ActArchive, ID: id, Reason: &rules.Reason{Code: code}}
	}
	tests := []struct {
		name  string
		recs  []Record
		id    string
		turn  int
		want  float64
		entry bool // triage is the (inferred) entry skill
	}{
		{"nothing known: comebackBase", []Record{ld("a", "eda", 1), due("a", rules.ArchiveNotRelevant, 2)}, "a", 2, 0.25, false},
		{"a helper", []Record{ld("p", "plot", 1), due("p", rules.ArchiveNotRelevant, 2)}, "p", 2, 0.6, false},
		{"named by a live body: a pointer, not a sign", []Record{ld("a", "eda", 1), ld("t", "triage", 1), due("a", rules.ArchiveNotRelevant, 2)}, "a", 2, 0.25, false},
		{"named by the live entry skill: its menu, not a sign", []Record{ld("a", "eda", 1), ld("t", "triage", 1), due("a", rules.ArchiveNotRelevant, 2)}, "a", 2, 0.25, true},
		{"a superseded copy: 0", []Record{ld("a1", "eda", 1), ld("a2", "eda", 1), due("a1", rules.ArchiveSuperseded, 1)}, "a1", 1, 0, false},
		{"loaded twice: likely", []Record{ld("a1", "eda", 1), ld("a2", "eda", 1), arch("a1", rules.ArchiveSuperseded), due("a2", rules.ArchiveNotRelevant, 2)}, "a2", 2, 0.6, false},
		{"archived, then loaded again: certain", []Record{ld("a1", "eda", 1), arch("a1", rules.ArchiveNotRelevant), ld("a2", "eda", 2), due("a2", rules.ArchiveNotRelevant, 3)}, "a2", 3, 1, false},
		{"dropped mid-run in its own run", []Record{ld("a", "eda", 2), due("a", rules.ArchiveMidRun, 2)}, "a", 2, 0.6, false},
		{"dropped mid-run, loaded in an earlier run", []Record{ld("a", "eda", 1), due("a", rules.ArchiveMidRun, 2)}, "a", 2, 0.25, false},
	}
	c := rules.Default()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cat := testCatalog()
			if tc.entry {
				cat.InferredEntry = "triage"
			}
			e := New(cat, c)
			if probs := e.onRestore(tc.recs); len(probs) != 0 {
				t.Fatalf("restore: %v", probs)
			}
			if name, _ := e.Entry(); tc.entry && name != "triage" {
				t.Fatalf("entry %q, want triage", name)
			}
			if got := e.comeback(e.byID[tc.id], tc.turn, map[string]int{}); got != tc.want {
				t.Errorf("comeback = %g, want %g", got, tc.want)
			}
		})
	}
}

// TestRevive: a body due for archive is taken back by a revive (undue,
// loaded-again, and the restored engine agrees); a body not due, archived
// or due as superseded is left alone. (Which copy a repeated load revives
// is the host's gate: host.Session.ToolLoad.)
func TestRevive(t *testing.T) {
	ld := func(id, skill, hash string) Record {
		return Record{V: 1, Action: ActLoad, ID: id, Skill: skill, Hash: hash, Run: 1}
	}
	due := func(id string, code rules.Code) Record {
		return Record{V: 1, Action: ActDue, ID: id, Reason: &rules.Reason{Code: code}, Run: 2}
	}
	tests := []struct {
		name    string
		recs    []Record
		id      string
		revived bool
	}{
		{"due: revived", []Record{ld("a", "eda", "h1"), due("a", rules.ArchiveNotRelevant)}, "a", true},
		{"not due: nothing to revive", []Record{ld("a", "eda", "h1")}, "a", false},
		{"archived: not", []Record{ld("a", "eda", "h1"), {V: 1, Action: ActArchive, ID: "a"}}, "a", false},
		{"a superseded copy: not", []Record{ld("a1", "eda", "h1"), ld("a2", "eda", "h2"), due("a1", rules.ArchiveSuperseded)}, "a1", false},
		{"unknown: not", []Record{ld("a", "eda", "h1"), due("a", rules.ArchiveNotRelevant)}, "b", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := New(testCatalog(), rules.Default())
			if probs := e.onRestore(tc.recs); len(probs) != 0 {
				t.Fatalf("restore: %v", probs)
			}
			ds, err := e.Apply(Event{Type: EvRevive, ID: tc.id})
			if err != nil {
				t.Fatal(err)
			}
			if !tc.revived {
				if len(ds) != 0 {
					t.Errorf("decisions without a revive: %v", ds)
				}
				return
			}
			if len(ds) != 1 || ds[0].Action != ActUndue || ds[0].Reason.Code != rules.KeepReloaded || ds[0].ID != tc.id {
				t.Fatalf("decisions %+v, want one undue loaded-again", ds)
			}
			if got, _ := e.LiveCopy("eda"); got.Due != nil {
				t.Errorf("the copy is still due")
			}
			restored := New(testCatalog(), rules.Default())
			if probs := restored.onRestore(roundTrip(t, append(tc.recs, ds...))); len(probs) != 0 {
				t.Fatal(probs)
			}
			if d := cmp.Diff(e.State(), restored.State()); d != "" {
				t.Errorf("restored state differs (-live +restored):\n%s", d)
			}
		})
	}
}

// play applies evs to e and returns every decision, their lines (line)
// and the last verdict text: an archive's timing, or what Deferred says
// after a request.
func play(t *testing.T, e *Engine, evs []Event) (all []Decision, lines []string, text string) {
	t.Helper()
	for _, ev := range evs {
		ds, err := e.Apply(ev)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, ds...)
		for _, d := range ds {
			if l := line(d); l != "" {
				lines = append(lines, l)
			}
			if d.Action == ActArchive && d.Timing != nil {
				text = d.Timing.Text
			}
		}
		if ev.Type == EvRequest {
			for _, tm := range e.Deferred() {
				text = tm.Text
			}
		}
	}
	return all, lines, text
}

// used marks a request as carrying the provider's usage for the previous
// one.
func used(ev Event, read, write int64) Event {
	ev.Request.PreviousUsage = &rules.Usage{CacheRead: read, CacheWrite: write}
	return ev
}

// TestEngineLearnsLifetime: the usage reported after a pause past the
// declared lifetime replaces the coldConfidence hedge for later pauses
// (cacheAware.learnFromUsage). The requests are 2,600 units; a usage of
// 3,000 tokens is large enough to judge.
func TestEngineLearnsLifetime(t *testing.T) {
	hot := 10 * time.Second
	pause := 6 * time.Minute
	opening := []Event{evStart(), evLoad("a", "eda"), evReq(1, 0, "a"), evEnd(), evPrompt("deploy the release now"), evStart(), evLoad("s", "ship")}
	// A pause before anything is due, then the usage of the request after it.
	early := []Event{evStart(), evLoad("a", "eda"), evReq(1, 0, "a"), used(evReq(2, hot, "a"), 0, 3000),
		used(evReq(3, pause, "a"), 2500, 500), used(evReq(4, hot, "a"), 2600, 0)}
	tests := []struct {
		name       string
		confidence float64 // cacheAware.coldConfidence
		learn      bool
		events     []Event
		want       []string
		text       string // a substring of the last archive's or Deferred() text
	}{
		{"a pause found cold confirms the lifetime: the next one archives", 0, true,
			append(opening, used(evReq(2, hot, "a", "s"), 2500, 500), evReq(3, pause, "a", "s"),
				used(evReq(4, hot, "a", "s"), 0, 3000), evReq(5, pause, "a", "s")),
			[]string{"due a", "archive a cache-cold"}, "which a pause of 6m0s earlier in this session confirmed"},
		{"without learning the hedge stands", 0, false,
			append(opening, used(evReq(2, hot, "a", "s"), 2500, 500), evReq(3, pause, "a", "s"),
				used(evReq(4, hot, "a", "s"), 0, 3000), evReq(5, pause, "a", "s")),
			[]string{"due a"}, "waits for a cold cache"},
		{"no read ever reported: a miss proves nothing", 0, true,
			append(opening, used(evReq(2, hot, "a", "s"), 0, 3000), evReq(3, pause, "a", "s"),
				used(evReq(4, hot, "a", "s"), 0, 3000), evReq(5, pause, "a", "s")),
			[]string{"due a"}, "waits for a cold cache"},
		{"a usage too small to judge teaches nothing", 0, true,
			append(opening, used(evReq(2, hot, "a", "s"), 500, 100), evReq(3, pause, "a", "s"),
				used(evReq(4, hot, "a", "s"), 0, 1000), evReq(5, pause, "a", "s")),
			[]string{"due a"}, "waits for a cold cache"},
		{"a pause the host kept warm teaches nothing", 0, true,
			append(opening, used(evReq(2, hot, "a", "s"), 2500, 500), warmed(evReq(3, pause, "a", "s")),
				used(evReq(4, hot, "a", "s"), 0, 3000), evReq(5, pause, "a", "s")),
			[]string{"due a"}, "waits for a cold cache"},
		{"a pause found warm (learned before anything was due): as long a pause is warm", 1, true,
			append(early, evEnd(), evPrompt("deploy the release now"), evStart(), evLoad("s", "ship"), evReq(5, pause, "a", "s")),
			[]string{"due a"}, "the cache was still warm after a pause of 6m0s earlier in this session"},
		{"a longer pause is hedged again", 1, true,
			append(early, evEnd(), evPrompt("deploy the release now"), evStart(), evLoad("s", "ship"), evReq(5, 2*pause, "a", "s")),
			[]string{"due a", "archive a cache-cold"}, "more than the cache lifetime of 300s"},
		{"without learning that pause is cold", 1, false,
			append(early, evEnd(), evPrompt("deploy the release now"), evStart(), evLoad("s", "ship"), evReq(5, pause, "a", "s")),
			[]string{"due a", "archive a cache-cold"}, "more than the cache lifetime of 300s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cacheCfg(true)
			cfg.CacheAware.ColdConfidence = tc.confidence
			cfg.CacheAware.LearnFromUsage = tc.learn
			_, got, text := play(t, New(testCatalog(), cfg), tc.events)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("decisions (-want +got):\n%s", d)
			}
			if !strings.Contains(text, tc.text) {
				t.Errorf("last verdict %q, want it to contain %q", text, tc.text)
			}
		})
	}
}

// TestLifetimeSurvivesARestart: what the usage taught is recorded
// (cache-lifetime) and restored, and a fresh engine judges its first
// request against the previous request's size the host measured
// (Previous).
func TestLifetimeSurvivesARestart(t *testing.T) {
	hot := 10 * time.Second
	pause := 6 * time.Minute
	cfg := cacheCfg(true)
	cfg.CacheAware.ColdConfidence = 0
	// A fresh engine (a restarted sidecar) whose first request comes after
	// a pause: without Previous it cannot read the usage reported next.
	first := func(size int64) Event {
		ev := used(evReq(0, pause, "a"), 2500, 500)
		ev.Request.Previous = size
		return ev
	}
	for _, tc := range []struct {
		name  string
		size  int64
		learn bool
	}{
		{"the previous size is known: the pause is judged", 2500, true},
		{"unknown: nothing learned", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := New(testCatalog(), cfg)
			recs, _, _ := play(t, e, []Event{evStart(), evLoad("a", "eda"), first(tc.size), used(evReq(0, hot, "a"), 0, 3000)})
			var life []Decision
			for _, d := range recs {
				if d.Action == ActCacheLifetime {
					life = append(life, d)
				}
			}
			if got := len(life) > 0 && life[len(life)-1].CacheLifetime.ColdFrom == pause; got != tc.learn {
				t.Fatalf("cache-lifetime records %+v; learned the pause cold: %v, want %v", life, got, tc.learn)
			}
			if !tc.learn {
				return
			}
			// Another restart: the records restore what was learned.
			e2 := New(testCatalog(), cfg)
			if probs := e2.onRestore(recs); len(probs) > 0 {
				t.Fatalf("restore: %v", probs)
			}
			_, got, _ := play(t, e2, []Event{evEnd(), evPrompt("deploy the release now"), evStart(), evLoad("s", "ship"), evReq(0, hot, "a", "s"), evReq(0, pause, "a", "s")})
			if d := cmp.Diff([]string{"due a", "archive a cache-cold"}, got); d != "" {
				t.Errorf("after the restore (-want +got):\n%s", d)
			}
		})
	}
	// A record without its payload is a problem, not a crash.
	e := New(testCatalog(), cfg)
	if probs := e.onRestore([]Record{{V: RecordVersion, Action: ActCacheLifetime}}); len(probs) != 1 || !strings.Contains(probs[0].Message, "cacheLifetime") {
		t.Errorf("restore of an empty cache-lifetime record: %v", probs)
	}
	if probs := e.onRestore([]Record{{V: RecordVersion, Action: ActCacheLifetime, CacheLifetime: &rules.Lifetime{WarmUpTo: -1}}}); len(probs) != 1 || !strings.Contains(probs[0].Message, "negative") {
		t.Errorf("restore of a negative cache-lifetime record: %v", probs)
	}
}

// TestCacheStopped: the host stopped keeping the cache warm during the
// pause (Pi's "stop", taken shortly before the lifetime runs out). Past
// the lifetime the cache is cold for certain, with no hedge; within it,
// still warm; after a refresh the lifetime runs from that refresh.
func TestCacheStopped(t *testing.T) {
	hot := 10 * time.Second
	stopped := func(ev Event, sinceWarmed time.Duration) Event {
		ev.Request.CacheStopped, ev.Request.SinceWarmed = true, sinceWarmed
		return ev
	}
	opening := []Event{evStart(), evLoad("a", "eda"), evReq(1, 0, "a"), evEnd(), evPrompt("deploy the release now"), evStart(), evLoad("s", "ship"), evReq(2, hot, "a", "s")}
	for _, tc := range []struct {
		name string
		req  Event
		want []string
	}{
		{"past the lifetime: cold, whatever coldConfidence", stopped(evReq(3, 6*time.Minute, "a", "s"), 0), []string{"due a", "archive a cache-cold"}},
		{"within the lifetime: warm", stopped(evReq(3, 295*time.Second, "a", "s"), 0), []string{"due a"}},
		{"refreshed 2 minutes ago: warm", stopped(evReq(3, 20*time.Minute, "a", "s"), 2*time.Minute), []string{"due a"}},
		{"refreshed 6 minutes ago: cold", stopped(evReq(3, 20*time.Minute, "a", "s"), 6*time.Minute), []string{"due a", "archive a cache-cold"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cacheCfg(true)
			cfg.CacheAware.ColdConfidence = 0 // a pause alone is never cold
			_, got, text := play(t, New(testCatalog(), cfg), append(append([]Event(nil), opening...), tc.req))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("decisions (-want +got):\n%s", d)
			}
			if len(tc.want) == 2 && !strings.Contains(text, "the host stopped keeping it warm") {
				t.Errorf("archive reason %q does not say the host stopped warming", text)
			}
		})
	}
}

// TestNoLifetimeRecordsWhenUnused: with cacheAware or learnFromUsage off
// the usage is not read, so no cache-lifetime record is written.
func TestNoLifetimeRecordsWhenUnused(t *testing.T) {
	for _, off := range []string{"cacheAware", "learnFromUsage"} {
		cfg := cacheCfg(off != "cacheAware")
		cfg.CacheAware.LearnFromUsage = off != "learnFromUsage"
		e := New(testCatalog(), cfg)
		all, _, _ := play(t, e, []Event{evStart(), evLoad("a", "eda"), evReq(1, 0, "a"), used(evReq(2, time.Second, "a"), 2500, 500),
			used(evReq(3, 6*time.Minute, "a"), 2500, 500), used(evReq(4, time.Second, "a"), 0, 3000)})
		for _, d := range all {
			if d.Action == ActCacheLifetime {
				t.Errorf("%s off: a cache-lifetime record %+v", off, d.CacheLifetime)
			}
		}
		if l := e.CacheLifetime(); l != (rules.Lifetime{}) {
			t.Errorf("%s off: learned %+v", off, l)
		}
	}
}

// TestRewriteChargedToTheEnd pins a deliberate choice (docs/cache-aware.md,
// "The arithmetic"): archiving a body is charged the rewrite up to the end
// of the request, including what the request adds after the previous one
// (here the body just loaded, s), although that part is written anyway.
func TestRewriteChargedToTheEnd(t *testing.T) {
	cfg := cacheCfg(true)
	cfg.CacheAware.HorizonTurns = 3
	e := New(testCatalog(), cfg)
	for _, ev := range []Event{evStart(), evLoad("a", "eda"), evEnd(), evPrompt("deploy the release now"), evStart(), evLoad("s", "ship")} {
		if _, err := e.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	r := *evReq(8, time.Second, "a", "s").Request // a at 100, s at 1,100; 2,600 in all
	r.Previous = 1100                             // s is new in this request
	plan := e.PlanRequest(r)
	if len(plan) != 1 || plan[0].ID != "a" {
		t.Fatalf("plan %+v: want one verdict, for a", plan)
	}
	shrink := int64(1000 - len(rules.Placeholder("eda")))
	ca := cfg.CacheAware
	want := rules.BreakCost(100, r.Total, shrink, ca.ReadPrice, ca.WritePrice)
	cached := rules.BreakCost(100, r.Previous, shrink, ca.ReadPrice, ca.WritePrice)
	if math.Abs(plan[0].Cost-want) > 0.05 {
		t.Errorf("cost %.1f, want %.1f (to the end of the request; %.1f up to the previous request)", plan[0].Cost, want, cached)
	}
}
