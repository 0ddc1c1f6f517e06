package lifecycle

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

func TestHashBody(t *testing.T) {
	// sha256("abc"), the FIPS 180-2 test vector.
	if got := HashBody("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("HashBody(abc) = %s", got)
	}
	if HashBody("a") == HashBody("a ") {
		t.Error("different texts, same hash")
	}
}

// TestVisibleCopy checks the "already loaded" bookkeeping: which copy of a
// skill, by hash, the model can see whole.
func TestVisibleCopy(t *testing.T) {
	type ask struct {
		skill, hash string
		want        string // id of the copy VisibleCopy finds, "" for none
		revive      bool   // AlreadyLoaded takes a due copy back
	}
	noMin := func(c *rules.Config) { c.MinKeep = 0; c.CacheAware.Enabled = false }
	tests := []struct {
		name  string
		mod   func(*rules.Config)
		steps []step
		// then applies extra loads with explicit hashes after the steps.
		then []Load
		asks []ask
	}{
		{"one tool load", noMin, runOf(load("t1", "eda")), nil, []ask{
			{"eda", "h-eda", "t1", false}, {"eda", "other", "", false}, {"eda", "", "", false}, {"model", "h-eda", "", false}, {"", "h-eda", "", false},
		}},
		{"archived as not relevant", noMin,
			seq(runOf(load("t1", "eda")), s(prompt("deploy the release to production now please"))), nil,
			[]ask{{"eda", "h-eda", "", false}}},
		{"a read or /skill: copy has no hash", noMin, nil,
			[]Load{{ID: "r1", Skill: "eda", Kind: ByRead, Size: 10}, {ID: "c1", Skill: "model", Kind: ByCommand, Size: 10}},
			[]ask{{"eda", "", "", false}, {"model", "", "", false}}},
		{"changed file: the new copy supersedes the old", noMin, runOf(load("t1", "eda")),
			[]Load{{ID: "t2", Skill: "eda", Kind: ByTool, Size: 10, Hash: "h-eda-v2"}},
			[]ask{{"eda", "h-eda", "", false}, {"eda", "h-eda-v2", "t2", false}}},
		{"switched off: copies stay, the latest visible is found", func(c *rules.Config) { noMin(c); c.Enabled = false },
			runOf(load("t1", "eda")),
			[]Load{{ID: "t2", Skill: "eda", Kind: ByTool, Size: 10, Hash: "h-eda"}},
			[]ask{{"eda", "h-eda", "t2", false}}},
		{"due for archive: not visible, but AlreadyLoaded takes it back", func(c *rules.Config) { noMin(c); c.CacheAware.Enabled = true },
			seq(runOf(load("t1", "eda")), s(prompt("deploy the release to production now please"))), nil,
			[]ask{{"eda", "h-eda", "", true}}},
	}
	for _, tt := range tests {
		e := New(testCatalog(), cfg(tt.mod))
		recs := drive(t, e, tt.steps)
		for _, l := range tt.then {
			recs = append(recs, e.onLoad(l)...)
		}
		restored := New(testCatalog(), cfg(tt.mod))
		if probs := restored.onRestore(roundTrip(t, recs)); len(probs) != 0 {
			t.Fatalf("%s: restore: %v", tt.name, probs)
		}
		for which, eng := range map[string]*Engine{"live": e, "restored": restored} {
			for _, a := range tt.asks {
				if b, ok := eng.VisibleCopy(a.skill, a.hash); ok {
					t.Errorf("%s (%s): VisibleCopy(%q, %q) = %q before any request carried it", tt.name, which, a.skill, a.hash, b.ID)
				}
			}
			carried(eng)
		}
		for _, a := range tt.asks {
			for which, eng := range map[string]*Engine{"live": e, "restored": restored} {
				b, ok := eng.VisibleCopy(a.skill, a.hash)
				if got := map[bool]string{true: b.ID}[ok]; got != a.want {
					t.Errorf("%s (%s): VisibleCopy(%q, %q) = %q, want %q", tt.name, which, a.skill, a.hash, got, a.want)
				}
				text, _, _, ok2 := alreadyLoaded(eng, a.skill, a.hash)
				if ok2 != (ok || a.revive) || (ok2 && !strings.Contains(text, `"`+a.skill+`" is already loaded`)) {
					t.Errorf("%s (%s): AlreadyLoaded(%q) = %q, %v", tt.name, which, a.skill, text, ok2)
				}
			}
		}
	}
}

// TestAlreadyLoadedChangesNothing checks that answering "already loaded"
// leaves the state (and so the records and the context) as it was.
func TestAlreadyLoadedChangesNothing(t *testing.T) {
	e := New(testCatalog(), cfg(nil))
	drive(t, e, runOf(load("t1", "eda"), load("t2", "model")))
	carried(e)
	before := e.State()
	text, b, ds, ok := alreadyLoaded(e, "eda", "h-eda")
	if !ok || b.ID != "t1" || len(ds) != 0 || !strings.Contains(text, "earlier in this conversation") {
		t.Fatalf("AlreadyLoaded = %q, %+v, %v, %v", text, b, ds, ok)
	}
	if d := cmp.Diff(before, e.State()); d != "" {
		t.Errorf("state changed (-before +after):\n%s", d)
	}
}

// TestAlreadyLoadedRevivesDue checks the cache-aware case: a copy due for
// archive (still whole in the context) is taken back by a repeated load,
// and the record of that keeps a restore exact.
func TestAlreadyLoadedRevivesDue(t *testing.T) {
	mod := func(c *rules.Config) { c.MinKeep = 0; c.CacheAware.Enabled = true }
	e := New(testCatalog(), cfg(mod))
	recs := drive(t, e, seq(runOf(load("t1", "eda")), s(prompt("deploy the release to production now please"))))
	if b, _ := e.LiveCopy("eda"); b.Due == nil {
		t.Fatalf("eda is not due: %+v", b)
	}
	carried(e)
	text, b, ds, ok := alreadyLoaded(e, "eda", "h-eda")
	if !ok || b.ID != "t1" || len(ds) != 1 || ds[0].Action != ActUndue || !strings.Contains(text, `"eda" is already loaded`) {
		t.Fatalf("AlreadyLoaded = %q, %+v, %v, %v", text, b, ds, ok)
	}
	if _, vis := e.VisibleCopy("eda", "h-eda"); !vis {
		t.Error("the revived copy is not visible")
	}
	restored := New(testCatalog(), cfg(mod))
	if probs := restored.onRestore(roundTrip(t, append(recs, ds...))); len(probs) != 0 {
		t.Fatal(probs)
	}
	if d := cmp.Diff(e.State(), restored.State()); d != "" {
		t.Errorf("restored state differs (-live +restored):\n%s", d)
	}
}

// carried tells e that a request carried every body it knows, as replay's
// requests do (BeforeRequest without a listing), without its decisions.
func carried(e *Engine) *Engine {
	e.noteSent(Request{})
	return e
}

// TestAlreadyLoadedOnlyWhatWasSent: a body counts as visible only once a
// request carried it whole (issue 27, item 2). A skill tool load the
// engine recorded whose result never reached the host's request (the
// sidecar died or answered late) is not "already loaded", nor is a copy
// restored from the records before the next request; a host that lists
// the request's loads decides which are there.
func TestAlreadyLoadedOnlyWhatWasSent(t *testing.T) {
	mod := func(c *rules.Config) { c.MinKeep = 0; c.CacheAware.Enabled = false }
	e := New(testCatalog(), cfg(mod))
	recs := drive(t, e, runOf(load("t1", "eda")))
	if _, _, _, ok := alreadyLoaded(e, "eda", "h-eda"); ok {
		t.Fatal("recorded but never sent: answered already loaded")
	}
	// The host's next request does not carry t1 (its result was lost).
	recs = append(recs, e.onRequest(Request{Listed: []string{}})...)
	if _, _, _, ok := alreadyLoaded(e, "eda", "h-eda"); ok {
		t.Fatal("a request without the body: answered already loaded")
	}
	// The request after the retry carries it.
	recs = append(recs, e.onRequest(Request{Listed: []string{"t1"}})...)
	if _, _, _, ok := alreadyLoaded(e, "eda", "h-eda"); !ok {
		t.Fatal("carried by the last request: not already loaded")
	}
	restored := New(testCatalog(), cfg(mod))
	if probs := restored.onRestore(roundTrip(t, recs)); len(probs) != 0 {
		t.Fatal(probs)
	}
	if _, _, _, ok := alreadyLoaded(restored, "eda", "h-eda"); ok {
		t.Fatal("restored, before any request: answered already loaded")
	}
	restored.onRequest(Request{Listed: []string{"t1"}})
	if _, _, _, ok := alreadyLoaded(restored, "eda", "h-eda"); !ok {
		t.Fatal("restored, carried by the next request: not already loaded")
	}
}

// TestForget: a body forgotten (its load never reached the context) is
// gone from the state, its files go back to the skill's live copy, and the
// forget record makes a restore agree.
func TestForget(t *testing.T) {
	mod := func(c *rules.Config) { c.MinKeep = 0; c.CacheAware.Enabled = false; c.Enabled = false }
	e := New(testCatalog(), cfg(mod))
	recs := drive(t, e, runOf(load("t1", "eda")))
	recs = append(recs, e.onLoad(Load{ID: "t2", Skill: "eda", Kind: ByTool, Size: 10, Hash: "h-eda"})...)
	recs = append(recs, e.onResource(Resource{ID: "r1", Skill: "eda", Path: "references/a.md", Size: 5})...)
	if b, _ := e.LiveCopy("eda"); b.ID != "t2" || len(b.Resources) != 1 {
		t.Fatalf("before: live copy %+v", b)
	}
	ds := e.onForget("t2")
	if len(ds) != 1 || ds[0].Action != ActForget || ds[0].ID != "t2" || ds[0].Skill != "eda" {
		t.Fatalf("Forget = %+v", ds)
	}
	recs = append(recs, ds...)
	if got := e.onForget("t2"); got != nil {
		t.Errorf("forgetting twice: %+v", got)
	}
	b, _ := e.LiveCopy("eda")
	if b.ID != "t1" || len(b.Resources) != 1 || b.Resources[0].ID != "r1" {
		t.Errorf("after: live copy %+v, want t1 with r1", b)
	}
	if n := len(e.Bodies()); n != 1 {
		t.Errorf("%d bodies after forget, want 1", n)
	}
	// A later load may use the id again.
	if ds := e.onLoad(Load{ID: "t2", Skill: "model", Kind: ByTool, Size: 10}); len(ds) == 0 {
		t.Error("the forgotten id cannot be loaded again")
	} else {
		recs = append(recs, ds...)
	}
	restored := New(testCatalog(), cfg(mod))
	if probs := restored.onRestore(roundTrip(t, recs)); len(probs) != 0 {
		t.Fatal(probs)
	}
	if d := cmp.Diff(e.State(), restored.State()); d != "" {
		t.Errorf("restored state differs (-live +restored):\n%s", d)
	}
	if probs := New(testCatalog(), cfg(mod)).onRestore([]Record{{V: RecordVersion, Action: ActForget, ID: "nope"}}); len(probs) != 1 {
		t.Errorf("forget of an unknown body: problems %v", probs)
	}
}

// alreadyLoaded is the "already loaded" answer a host composes from the
// engine's query and its revive event: the visible copy, else a due copy
// taken back.
func alreadyLoaded(e *Engine, skill, hash string) (text string, copyOf Body, ds []Decision, ok bool) {
	b, ok := e.VisibleCopy(skill, hash)
	if !ok {
		ds, _ = e.Apply(Event{Type: EvRevive, Skill: skill, Hash: hash})
		if len(ds) == 0 {
			return "", Body{}, nil, false
		}
		b, _ = e.LiveCopy(skill)
	}
	return AlreadyLoadedText(skill, b), b, ds, true
}
