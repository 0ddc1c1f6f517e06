package lifecycle

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// routedCatalog is testCatalog with triage declared the entry skill; its
// body names eda, model and plot, not ship.
func routedCatalog() Catalog {
	c := testCatalog()
	c.Skills[0].Role = skills.RoleEntry
	c.Skills[0].Names = []string{"eda", "model", "plot"}
	return c
}

// reqAt is request n with the bodies at the given offsets, 1,000 units
// each, 500 units after the last; what the request adds to the previous
// one begins at prev.
func reqAt(n int, prev int64, pos ...any) Event {
	r := &Request{Number: n, SincePrevious: 10 * time.Second, Previous: prev}
	var end int64
	for i := 0; i+1 < len(pos); i += 2 {
		off := int64(pos[i+1].(int))
		r.Bodies = append(r.Bodies, BodyPosition{ID: pos[i].(string), Offset: off, Size: 1000})
		end = off + 1000
	}
	r.Total = end + 500
	return Event{Type: EvRequest, Request: r}
}

// TestRoutedEntry checks when the entry skill's body goes once it has
// routed (cacheAware.releaseRoutedEntry): weighed at the next request, once
// a session, only for a body pinned by pinEntrySkill alone.
func TestRoutedEntry(t *testing.T) {
	// Run 1 loads triage (t at 100), which routes to eda (e at 1,150, the
	// new part of request 2). Its placeholder is 146 characters, so
	// archiving frees 854. The rewrite of [100, 1,150) writes 1,050 − 854
	// = 196: 1.25 × 196 − 105 = 140, against 85.4 a request over 2: it
	// pays.
	routes := []Event{evStart(), evLoad("t", "triage"), reqAt(1, 0, "t", 100), evLoad("e", "eda"), reqAt(2, 1150, "t", 100, "e", 1150)}
	// The same, with 8,000 units of tool output between t and e: the
	// rewrite, 1.25 × 8,146 − 900 = 9,282.5, does not pay.
	late := []Event{evStart(), evLoad("t", "triage"), reqAt(1, 0, "t", 100), evLoad("e", "eda"), reqAt(2, 9100, "t", 100, "e", 9100)}
	// comebacks counts them (comebackBase 0.25) over 20 requests to come.
	comebacks := func(c *rules.Config) {
		c.CacheAware.ComebackBase = 0.25
		c.CacheAware.MinRemainingRequests = 20
	}
	tests := []struct {
		name   string
		mod    func(*rules.Config)
		events []Event
		want   []string
		text   string // in the text of the last archive or undue
	}{
		{"routed: archived at the next request", nil, routes,
			[]string{"due t", "archive t routed-entry"}, "costs 140 input chars once and saves 85.4 input chars a request"},
		{"a long run since the entry loaded: kept, and pinned from then on", nil,
			append(late, evLoad("m", "model"), reqAt(3, 10100, "t", 100, "e", 9100, "m", 10100)),
			[]string{"due t", "undue t entry"}, "it stays pinned"},
		// t2, the copy of the next task, routes to model: weighed like t,
		// with comebackBase, not 1 (reading the router at a new task is its
		// use, not a return the archive caused). The rewrite of [2,000,
		// 3,000) writes 146: 1.25 × 146 − 100 = 82.5. Over 20 requests
		// t2 saves 0.875 × 85.4 × 20 = 1,494.5, against a comeback of 0.25 ×
		// (0.1 × 4,500 + 1.25 × 1,000) = 425: it pays. With 1 it would not.
		{"a later task: loaded again, it routes again and is weighed again", comebacks,
			append(routes, evEnd(), evPrompt("fit a model"), evStart(), evLoad("t2", "triage"), reqAt(3, 2000, "t", 100, "e", 1150, "t2", 2000),
				evLoad("m", "model"), reqAt(4, 3000, "t", 100, "e", 1150, "t2", 2000, "m", 3000)),
			[]string{"due t", "archive t routed-entry", "due e", "due t2", "archive e pays", "archive t2 routed-entry"},
			"costs 82.5 input chars once and saves 85.4 input chars a request, 1494.5 input chars over ~20 requests while it stays archived, against an expected comeback of 425 input chars (probability 0.25)"},
		{"the same task: loaded again after its archive (a comeback), it stays", nil,
			append(routes, evLoad("t2", "triage"), reqAt(3, 2000, "t", 100, "e", 1150, "t2", 2000),
				evLoad("m", "model"), reqAt(4, 3000, "t", 100, "e", 1150, "t2", 2000, "m", 3000)),
			[]string{"due t", "archive t routed-entry"}, ""},
		{"a skill the entry does not name routes nothing", nil,
			[]Event{evStart(), evLoad("t", "triage"), reqAt(1, 0, "t", 100), evLoad("s", "ship"), reqAt(2, 1150, "t", 100, "s", 1150)},
			nil, ""},
		{"a named skill loaded in a later run routes nothing", nil,
			[]Event{evStart(), evLoad("t", "triage"), reqAt(1, 0, "t", 100), evEnd(), evPrompt("explore the data"), evStart(), evLoad("e", "eda"), reqAt(2, 1150, "t", 100, "e", 1150)},
			nil, ""},
		{"loaded together with the skill it routes to: the model has not read it", nil,
			[]Event{evStart(), {Type: EvLoads, Loads: []Load{{ID: "t", Skill: "triage", Size: 1000, Kind: ByTool}, {ID: "e", Skill: "eda", Size: 1000, Kind: ByTool}}}, reqAt(1, 100, "t", 100, "e", 1150)},
			[]string{"due t", "undue t entry"}, "has not read it yet"},
		{"pinned by the user: stays", nil,
			append([]Event{evPin("triage")}, routes...), nil, ""},
		{"pinned by the configuration: stays", func(c *rules.Config) { c.Pinned = []string{"triage"} }, routes, nil, ""},
		{"releaseRoutedEntry off: stays", func(c *rules.Config) { c.CacheAware.ReleaseRoutedEntry = false }, routes, nil, ""},
		{"cacheAware off: stays (relevance-only keeps the entry pinned)", func(c *rules.Config) { c.CacheAware.Enabled = false }, routes, nil, ""},
		{"pinEntrySkill off: nothing routed; the rules judge it (loaded in the current run: kept)", func(c *rules.Config) { c.PinEntrySkill = false }, routes,
			nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := cacheCfg(true)
			if tc.mod != nil {
				tc.mod(&c)
			}
			e := New(routedCatalog(), c)
			all, got, _ := play(t, e, tc.events)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("decisions (-want +got):\n%s", d)
			}
			text := ""
			for _, d := range all {
				switch {
				case d.Action == ActArchive && d.Timing != nil:
					text = d.Timing.Text
				case d.Action == ActUndue:
					text = d.Reason.Text
				}
			}
			if !strings.Contains(text, tc.text) {
				t.Errorf("text %q lacks %q", text, tc.text)
			}
			assertRestores(t, routedCatalog(), c, e, all)
		})
	}
}

// TestRoutedEntryAfterRestore checks a restored session (Pi runs once per
// turn, or a resume): the copy weighed and kept in an earlier run is not
// weighed again, and the copy of the new task is weighed once, however
// many skills it routes to.
func TestRoutedEntryAfterRestore(t *testing.T) {
	c := cacheCfg(true)
	e := New(routedCatalog(), c)
	events := []Event{evStart(), evLoad("t", "triage"), reqAt(1, 0, "t", 100), evLoad("e", "eda"), reqAt(2, 9100, "t", 100, "e", 9100), evEnd()}
	var recs []Decision
	for _, ev := range events {
		ds, err := e.Apply(ev)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, ds...)
	}
	r := New(routedCatalog(), c)
	if probs := r.onRestore(roundTrip(t, recs)); len(probs) != 0 {
		t.Fatalf("restore problems %v", probs)
	}
	r.setRequestCount(2)
	var got []string
	// t2 routes to model after a long output (kept), then to plot.
	for _, ev := range []Event{evPrompt("fit a model"), evStart(), evLoad("t2", "triage"), reqAt(3, 10100, "t", 100, "e", 9100, "t2", 10100),
		evLoad("m", "model"), reqAt(4, 20100, "t", 100, "e", 9100, "t2", 10100, "m", 20100),
		evLoad("p", "plot"), reqAt(5, 21100, "t", 100, "e", 9100, "t2", 10100, "m", 20100, "p", 21100)} {
		ds, err := r.Apply(ev)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if (d.ID == "t" || d.ID == "t2") && d.Action == ActDue {
				got = append(got, line(d)+" "+string(d.Reason.Code))
			} else if (d.ID == "t" || d.ID == "t2") && d.Action != ActLoad {
				got = append(got, line(d))
			}
		}
	}
	// t goes as an older copy; t2 is weighed when it routes to model, and
	// kept (the long output after it), then not again for plot.
	want := []string{"due t superseded-copy", "due t2 routed", "undue t2 entry"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the entry's copies after a restore (-want +got):\n%s", d)
	}
}
