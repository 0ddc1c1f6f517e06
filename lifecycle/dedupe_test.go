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
		want        string // id of the copy found, "" for none
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
			{"eda", "h-eda", "t1"}, {"eda", "other", ""}, {"eda", "", ""}, {"model", "h-eda", ""}, {"", "h-eda", ""},
		}},
		{"archived as not relevant", noMin,
			seq(runOf(load("t1", "eda")), s(prompt("deploy the release to production now please"))), nil,
			[]ask{{"eda", "h-eda", ""}}},
		{"a read or /skill: copy has no hash", noMin, nil,
			[]Load{{ID: "r1", Skill: "eda", Kind: ByRead, Size: 10}, {ID: "c1", Skill: "model", Kind: ByCommand, Size: 10}},
			[]ask{{"eda", "", ""}, {"model", "", ""}}},
		{"changed file: the new copy supersedes the old", noMin, runOf(load("t1", "eda")),
			[]Load{{ID: "t2", Skill: "eda", Kind: ByTool, Size: 10, Hash: "h-eda-v2"}},
			[]ask{{"eda", "h-eda", ""}, {"eda", "h-eda-v2", "t2"}}},
		{"switched off: copies stay, the latest visible is found", func(c *rules.Config) { noMin(c); c.Enabled = false },
			runOf(load("t1", "eda")),
			[]Load{{ID: "t2", Skill: "eda", Kind: ByTool, Size: 10, Hash: "h-eda"}},
			[]ask{{"eda", "h-eda", "t2"}}},
		{"due for archive does not count", func(c *rules.Config) { noMin(c); c.CacheAware.Enabled = true },
			seq(runOf(load("t1", "eda")), s(prompt("deploy the release to production now please"))), nil,
			[]ask{{"eda", "h-eda", ""}}},
	}
	for _, tt := range tests {
		e := New(testCatalog(), cfg(tt.mod))
		recs := drive(t, e, tt.steps)
		for _, l := range tt.then {
			recs = append(recs, e.SkillLoaded(l)...)
		}
		restored := New(testCatalog(), cfg(tt.mod))
		if probs := restored.Restore(roundTrip(t, recs)); len(probs) != 0 {
			t.Fatalf("%s: restore: %v", tt.name, probs)
		}
		for _, a := range tt.asks {
			for which, eng := range map[string]*Engine{"live": e, "restored": restored} {
				b, ok := eng.VisibleCopy(a.skill, a.hash)
				if got := map[bool]string{true: b.ID}[ok]; got != a.want {
					t.Errorf("%s (%s): VisibleCopy(%q, %q) = %q, want %q", tt.name, which, a.skill, a.hash, got, a.want)
				}
				text, _, ok2 := eng.AlreadyLoaded(a.skill, a.hash)
				if ok2 != ok || (ok && !strings.Contains(text, `"`+a.skill+`" is already loaded`)) {
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
	before := e.State()
	text, b, ok := e.AlreadyLoaded("eda", "h-eda")
	if !ok || b.ID != "t1" || !strings.Contains(text, "earlier in this conversation") {
		t.Fatalf("AlreadyLoaded = %q, %+v, %v", text, b, ok)
	}
	if d := cmp.Diff(before, e.State()); d != "" {
		t.Errorf("state changed (-before +after):\n%s", d)
	}
}
