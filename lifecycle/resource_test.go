package lifecycle

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

func evRes(id, skill string) Event {
	return Event{Type: EvResource, Resource: &Resource{ID: id, Skill: skill, Path: "references/" + id + ".md", Size: 500}}
}

// resourcesOf lists, for each body, the ids of the files that go with it.
func resourcesOf(e *Engine) map[string][]string {
	out := map[string][]string{}
	for _, b := range e.Bodies() {
		for _, r := range b.Resources {
			out[b.ID] = append(out[b.ID], r.ID)
		}
	}
	return out
}

func TestResourcesGoWithTheirBody(t *testing.T) {
	cfg := rules.Default()
	cfg.CacheAware.Enabled = false
	cfg.MinKeep = 0
	e := New(testCatalog(), cfg)
	ds, _, _ := play(t, e, []Event{
		evPrompt("explore the data"), evStart(), evLoad("a", "eda"),
		evRes("r1", "eda"),   // goes with a
		evRes("r2", "model"), // model not loaded: left alone
		evRes("r1", "eda"),   // the same read again: ignored
		evEnd(),
	})
	if got := resourcesOf(e); !cmp.Equal(got, map[string][]string{"a": {"r1"}}) {
		t.Errorf("resources %v, want a: [r1]", got)
	}
	var recs []string
	for _, d := range ds {
		if d.Action == ActResource {
			recs = append(recs, d.ID+"@"+d.Of)
		}
	}
	if !slices.Equal(recs, []string{"r1@a"}) {
		t.Errorf("resource records %v, want [r1@a]", recs)
	}

	// The prompt drops eda: the body and its file are replaced.
	ds, _, _ = play(t, e, []Event{evPrompt("deploy the release to production"), evStart(), evLoad("s", "ship"), evEnd()})
	arch := e.Archived()
	if arch["a"] != rules.Placeholder("eda") || arch["r1"] != rules.ResourcePlaceholder("eda", "references/r1.md") {
		t.Fatalf("archived %v: want a and r1 replaced", arch)
	}
	if _, ok := arch["r2"]; ok {
		t.Errorf("r2 (read while model was not loaded) archived")
	}
	var with []ResourceChange
	for _, d := range ds {
		if d.Action == ActArchive && d.ID == "a" {
			with = d.Resources
		}
	}
	if want := []ResourceChange{{ID: "r1", Placeholder: rules.ResourcePlaceholder("eda", "references/r1.md")}}; !cmp.Equal(with, want) {
		t.Errorf("archive of a lists %v, want %v", with, want)
	}
	// A read of eda's file now, with its body archived, stays.
	play(t, e, []Event{evRes("r3", "eda")})
	if _, ok := e.Archived()["r3"]; ok || len(resourcesOf(e)["a"]) != 1 {
		t.Errorf("a file read while its body is archived went with it: %v", resourcesOf(e))
	}

	// Pinning eda brings the body back, and its file with it.
	ds, _, _ = play(t, e, []Event{evPin("eda")})
	if _, ok := e.Archived()["r1"]; ok {
		t.Errorf("r1 still archived after the pin restored a")
	}
	if len(ds) == 0 || ds[len(ds)-1].Action != ActUnarchive || !cmp.Equal(ds[len(ds)-1].Resources, []ResourceChange{{ID: "r1"}}) {
		t.Errorf("pin decisions %+v: want an unarchive of a listing r1", ds)
	}

	// The records rebuild the same state.
	var all []Record
	e2 := New(testCatalog(), cfg)
	for _, evs := range [][]Event{
		{evPrompt("explore the data"), evStart(), evLoad("a", "eda"), evRes("r1", "eda"), evRes("r2", "model"), evEnd()},
		{evPrompt("deploy the release to production"), evStart(), evLoad("s", "ship"), evEnd(), evRes("r3", "eda"), evPin("eda")},
	} {
		d, _, _ := play(t, e2, evs)
		all = append(all, d...)
	}
	e3 := New(testCatalog(), cfg)
	if probs := e3.onRestore(roundTrip(t, all)); len(probs) > 0 {
		t.Fatalf("restore problems: %v", probs)
	}
	if d := cmp.Diff(e2.State(), e3.State()); d != "" {
		t.Errorf("restored state (-live +restored):\n%s", d)
	}
}

// A newer copy of a skill takes the files of the copy it supersedes: they
// go only when the skill does.
func TestNewCopyTakesTheResources(t *testing.T) {
	cfg := rules.Default()
	cfg.CacheAware.Enabled = false
	cfg.MinKeep = 0
	e := New(testCatalog(), cfg)
	play(t, e, []Event{evPrompt("explore the data"), evStart(), evLoad("a1", "eda"), evRes("r1", "eda"), evLoad("a2", "eda"), evEnd()})
	arch := e.Archived()
	if _, ok := arch["a1"]; !ok {
		t.Fatalf("a1 not superseded: %v", arch)
	}
	if _, ok := arch["r1"]; ok {
		t.Errorf("r1 archived with the superseded copy")
	}
	if got := resourcesOf(e); !cmp.Equal(got, map[string][]string{"a2": {"r1"}}) {
		t.Errorf("resources %v, want a2: [r1]", got)
	}
}

func TestResourcesOff(t *testing.T) {
	cfg := rules.Default()
	cfg.ArchiveResources = false
	e := New(testCatalog(), cfg)
	ds, _, _ := play(t, e, []Event{evStart(), evLoad("a", "eda"), evRes("r1", "eda"), evEnd()})
	for _, d := range ds {
		if d.Action == ActResource {
			t.Errorf("archiveResources false: %+v recorded", d)
		}
	}
}

// Cache-aware archiving weighs the body alone, not the files that go with
// it (docs/cache-aware.md, "A skill's files"): a body that does not pay
// alone is kept, however large a file was read after it.
func TestTimingWeighsTheBodyAlone(t *testing.T) {
	cfg := cacheCfg(true)
	cfg.CacheAware.HorizonTurns = 5
	cfg.CacheAware.MinRemainingRequests, cfg.CacheAware.MaxRemainingRequests = 20, 20
	evs := []Event{evStart(), evLoad("a", "eda"), evRes("r", "eda"), evEnd(), evPrompt("deploy the release now"), evStart(), evLoad("s", "ship")}
	// a at 100 (1,000), its file at 1,100 (size f), s after it; 2,000 after s.
	plan := func(f int64) rules.Timing {
		e := New(testCatalog(), cfg)
		play(t, e, evs)
		r := Request{Number: 5, SincePrevious: time.Second, Bodies: []BodyPosition{{ID: "a", Offset: 100, Size: 1000}, {ID: "r", Offset: 1100, Size: f}, {ID: "s", Offset: 1100 + f, Size: 1000}}}
		r.Total = 1100 + f + 1000 + 2000
		p := e.PlanRequest(r)
		if len(p) != 1 || p[0].ID != "a" {
			t.Fatalf("plan %+v: want one verdict, for a", p)
		}
		return p[0]
	}
	ca := cfg.CacheAware
	want := ca.ReadPrice * (1000 - float64(len(rules.Placeholder("eda"))))
	for _, f := range []int64{500, 8000} {
		got := plan(f)
		if !near(got.Save, want) || got.Archive {
			t.Errorf("file of %d: saving %.1f, archive %v (%s); want %.1f (the body alone), kept", f, got.Save, got.Archive, got.Text, want)
		}
	}
}

func near(a, b float64) bool { return a-b < 0.05 && b-a < 0.05 }

// TestContextBoundCountsFiles: the context bound weighs what a due body
// holds with its files, as they go together, while the timing still
// counts the body alone; a file the request no longer holds counts
// nothing.
func TestContextBoundCountsFiles(t *testing.T) {
	cfg := cacheCfg(true)
	cfg.CacheAware.HorizonTurns = 5
	cfg.CacheAware.MinRemainingRequests, cfg.CacheAware.MaxRemainingRequests = 20, 20
	cfg.CacheAware.MaxDueShare, cfg.CacheAware.BoundMinChars = 0.15, 5000
	evs := []Event{evStart(), evLoad("a", "eda"), evRes("r", "eda"), evEnd(), evPrompt("deploy the release now"), evStart(), evLoad("s", "ship")}
	// a at 100 (1,000 characters), its file at 1,100 (size f), s after
	// it, 20,000 after s: a alone never reaches the 5,000-character floor.
	plan := func(f int64, fileSent bool) rules.Timing {
		e := New(testCatalog(), cfg)
		play(t, e, evs)
		r := Request{Number: 5, SincePrevious: time.Second, Bodies: []BodyPosition{{ID: "a", Offset: 100, Size: 1000}, {ID: "s", Offset: 1100 + f, Size: 1000}}}
		if fileSent {
			r.Bodies = append(r.Bodies, BodyPosition{ID: "r", Offset: 1100, Size: f})
		}
		r.Total = 1100 + f + 1000 + 20000
		p := e.PlanRequest(r)
		if len(p) != 1 || p[0].ID != "a" {
			t.Fatalf("plan %+v: want one verdict, for a", p)
		}
		return p[0]
	}
	body := cfg.CacheAware.ReadPrice * (1000 - float64(len(rules.Placeholder("eda"))))
	for _, tc := range []struct {
		f        int64
		sent     bool
		code     rules.Code
		archived bool
	}{
		{8000, true, rules.TimeBound, true},   // about 8,700 held, over 5,000 and over 15% of the rest
		{500, true, rules.TimeDefer, false},   // about 1,300 held: under the floor
		{8000, false, rules.TimeDefer, false}, // the file is not in the request: the body alone
	} {
		got := plan(tc.f, tc.sent)
		if got.Code != tc.code || got.Archive != tc.archived || !near(got.Save, body) {
			t.Errorf("file of %d (sent %v): %s, archive %v, saving %.1f (%s); want %s, archive %v, saving %.1f (the body alone)",
				tc.f, tc.sent, got.Code, got.Archive, got.Save, got.Text, tc.code, tc.archived, body)
		}
	}
}
