package lifecycle

import (
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
