package lifecycle

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// sendPlan turns a plan's kept items into what a host re-attaches: whole
// bodies with the hash the skill tool gives them ("h-" + skill in these
// tests), cut bodies with the hash of their cut text.
func sendPlan(p rules.ReattachPlan) []Reattach {
	var out []Reattach
	for _, it := range p.Kept() {
		r := Reattach{Skill: it.Skill, Chars: it.Tokens * rules.CharsPerToken, Hash: "h-" + it.Skill}
		if it.Outcome == rules.ReattachCut {
			r.Chars, r.Hash, r.Cut = it.KeepChars, HashBody("cut "+it.Skill), true
		}
		out = append(out, r)
	}
	return out
}

func TestCompaction(t *testing.T) {
	type item struct {
		Skill   string
		Outcome rules.Outcome
		Why     rules.Code
	}
	base := func(c *rules.Config) {
		c.MinKeep = 0
		c.CacheAware.Enabled = false
		c.EntrySkill = "triage"
		c.EvictOnSkillLoad = false
		c.TopK = 2
	}
	// triage (entry, pinned) then eda, model, plot in one run; a prompt
	// about plotting the model keeps model and plot and archives eda.
	history := seq(
		runOf(load("t1", "triage"), load("t2", "eda"), load("t3", "model"), load("t4", "plot")),
		s(prompt("fit the model again and plot a chart of it")),
	)
	tests := []struct {
		name     string
		mod      func(*rules.Config)
		visible  []string
		budget   rules.Compaction
		want     []item
		reattach []string // skills visible whole after
		gone     []string // ids archived as compacted (the archived eda body too: it is summarised away)
	}{
		{"all summarised away", nil, nil, rules.DefaultCompaction(),
			[]item{{"plot", rules.ReattachWhole, rules.KeepRelevant}, {"model", rules.ReattachWhole, rules.KeepRelevant}, {"triage", rules.ReattachWhole, rules.KeepEntry}},
			[]string{"plot", "model", "triage"}, []string{"t1", "t2", "t3", "t4"}},
		{"a body in the kept messages stays and is not sent again", nil, []string{"t4"}, rules.DefaultCompaction(),
			[]item{{"model", rules.ReattachWhole, rules.KeepRelevant}, {"triage", rules.ReattachWhole, rules.KeepEntry}},
			[]string{"model", "triage"}, []string{"t1", "t2", "t3"}},
		{"user pin", func(c *rules.Config) { c.Pinned = []string{"model"} }, nil, rules.DefaultCompaction(),
			[]item{{"plot", rules.ReattachWhole, rules.KeepRelevant}, {"model", rules.ReattachWhole, rules.KeepPinned}, {"triage", rules.ReattachWhole, rules.KeepEntry}},
			[]string{"plot", "model", "triage"}, []string{"t1", "t2", "t3", "t4"}},
		{"budget: the oldest is dropped", nil, nil, rules.Compaction{Reattach: true, BudgetTokens: 100 + 125 + 50, PerSkillTokens: 5000},
			// sizes: plot 400 chars = 100 tokens, model 500 = 125, triage 600 = 150
			[]item{{"plot", rules.ReattachWhole, rules.KeepRelevant}, {"model", rules.ReattachWhole, rules.KeepRelevant}, {"triage", rules.ReattachDropped, rules.KeepEntry}},
			[]string{"plot", "model"}, []string{"t1", "t2", "t3", "t4"}},
		{"zero budget: nothing sent, all gone", nil, nil, rules.Compaction{Reattach: true},
			[]item{{"plot", rules.ReattachDropped, rules.KeepRelevant}, {"model", rules.ReattachDropped, rules.KeepRelevant}, {"triage", rules.ReattachDropped, rules.KeepEntry}},
			nil, []string{"t1", "t2", "t3", "t4"}},
	}
	for _, tt := range tests {
		mod := func(c *rules.Config) {
			base(c)
			if tt.mod != nil {
				tt.mod(c)
			}
		}
		e := New(testCatalog(), cfg(mod))
		recs := drive(t, e, history)
		if got := archivedCodes(e); !cmp.Equal(got, map[string]rules.Code{"t2": rules.ArchiveNotRelevant}) {
			t.Fatalf("%s: before compaction, archived %v", tt.name, got)
		}
		c := Compaction{ID: "c1", Visible: tt.visible, Config: tt.budget}
		plan := e.PlanCompaction(c)
		var got []item
		for _, it := range plan.Items {
			got = append(got, item{it.Skill, it.Outcome, it.Why})
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s: plan (-want +got):\n%s", tt.name, d)
		}
		if plan.Used > int64(tt.budget.BudgetTokens) {
			t.Errorf("%s: plan uses %d tokens, over %d", tt.name, plan.Used, tt.budget.BudgetTokens)
		}
		recs = append(recs, e.onCompact(c, sendPlan(plan))...)

		restored := New(testCatalog(), cfg(mod))
		if probs := restored.onRestore(roundTrip(t, recs)); len(probs) != 0 {
			t.Fatalf("%s: restore: %v", tt.name, probs)
		}
		if d := cmp.Diff(e.State(), restored.State()); d != "" {
			t.Errorf("%s: restored state differs (-live +restored):\n%s", tt.name, d)
		}
		for which, eng := range map[string]*Engine{"live": e, "restored": restored} {
			var whole []string
			for _, sk := range []string{"plot", "model", "triage", "eda"} {
				if b, ok := visibleCopy(eng, sk, "h-"+sk); ok && b.Kind == ByReattach {
					if b.ID != ReattachID("c1", sk) {
						t.Errorf("%s (%s): re-attached id %q", tt.name, which, b.ID)
					}
					whole = append(whole, sk)
				}
			}
			wantWhole := map[string]bool{}
			for _, sk := range tt.reattach {
				wantWhole[sk] = true
			}
			var want []string
			for _, sk := range []string{"plot", "model", "triage", "eda"} {
				if wantWhole[sk] {
					want = append(want, sk)
				}
			}
			if d := cmp.Diff(want, whole); d != "" {
				t.Errorf("%s (%s): visible re-attached bodies (-want +got):\n%s", tt.name, which, d)
			}
			var gone []string
			for id, code := range archivedCodes(eng) {
				if code == rules.ArchiveCompacted {
					gone = append(gone, id)
				}
			}
			if d := cmp.Diff(tt.gone, gone, cmpSorted); d != "" {
				t.Errorf("%s (%s): compacted (-want +got):\n%s", tt.name, which, d)
			}
			if _, ok := visibleCopy(eng, "eda", "h-eda"); ok {
				t.Errorf("%s (%s): the archived eda body counts as visible", tt.name, which)
			}
		}
		// The same compaction reported twice changes nothing more.
		if ds := e.onCompact(c, sendPlan(plan)); len(ds) != 0 {
			t.Errorf("%s: a second Compacted decided %v", tt.name, ds)
		}
	}
}

// TestCompactionCut checks a body over its share: cut, recorded with the
// hash of the cut text, and so never "already loaded".
func TestCompactionCut(t *testing.T) {
	e := New(testCatalog(), cfg(func(c *rules.Config) { c.MinKeep = 0; c.CacheAware.Enabled = false }))
	e.onLoad(Load{ID: "big", Skill: "eda", Kind: ByTool, Size: 80000, Hash: "h-eda"})
	c := Compaction{ID: "c9", Config: rules.DefaultCompaction()}
	plan := e.PlanCompaction(c)
	if len(plan.Items) != 1 || plan.Items[0].Outcome != rules.ReattachCut || plan.Items[0].Granted != rules.DefaultReattachPerSkill {
		t.Fatalf("plan %+v", plan)
	}
	ds := e.onCompact(c, sendPlan(plan))
	if len(ds) != 2 || ds[0].Action != ActArchive || ds[1].Action != ActLoad || ds[1].Kind != ByReattach {
		t.Fatalf("decisions %+v", ds)
	}
	if _, ok := visibleCopy(e, "eda", "h-eda"); ok {
		t.Error("a cut body counts as the whole body")
	}
	// Loading the whole body again delivers it and archives the cut copy.
	e.onLoad(Load{ID: "again", Skill: "eda", Kind: ByTool, Size: 80000, Hash: "h-eda"})
	if got := archivedCodes(e)[ReattachID("c9", "eda")]; got != rules.ArchiveSuperseded {
		t.Errorf("cut copy archived with %q, want superseded", got)
	}
}

// cmpSorted compares string slices without regard to their order.
var cmpSorted = cmpopts.SortSlices(func(a, b string) bool { return a < b })

// TestCompactionRestoreProperty interleaves compactions (with random kept
// bodies and budgets) with random events, and checks at every step that an
// engine restored from the records has the live engine's state, and that
// "already loaded" answers the same in both.
func TestCompactionRestoreProperty(t *testing.T) {
	reattached, gone := 0, 0
	defer func() {
		if reattached == 0 || gone == 0 {
			t.Errorf("no sequence re-attached (%d) or compacted (%d) a body", reattached, gone)
		}
	}()
	for seed := int64(1); seed <= 120; seed++ {
		r := rand.New(rand.NewSource(seed))
		cat := modelCatalog()
		cfg := randomConfig(r)
		live := New(cat, cfg)
		live.setRegistry(testRegistry)
		var recs []Record
		nLoads, nComp := 0, 0
		for i := 0; i < 40+r.Intn(40); i++ {
			var ds []Decision
			if r.Intn(8) == 0 {
				nComp++
				var vis []string
				for _, b := range live.Bodies() {
					if r.Intn(3) == 0 {
						vis = append(vis, b.ID)
					}
				}
				c := Compaction{ID: fmt.Sprintf("c%d", nComp), Visible: vis,
					Config: rules.Compaction{Reattach: r.Intn(5) != 0, BudgetTokens: r.Intn(3000), PerSkillTokens: r.Intn(1500)}}
				ds = live.onCompact(c, sendPlan(live.PlanCompaction(c)))
				for _, d := range ds {
					if d.Action == ActLoad {
						reattached++
					} else {
						gone++
					}
				}
			} else {
				ev := randomEvent(r, &nLoads)
				if ev.Type == EvRequest {
					ev.Request = fillRequest(r, live, 0)
				}
				var err error
				if ds, err = live.Apply(ev); err != nil {
					t.Fatal(err)
				}
			}
			recs = append(recs, ds...)
			restored := New(cat, cfg)
			restored.setRegistry(testRegistry)
			if probs := restored.onRestore(roundTrip(t, recs)); len(probs) != 0 {
				t.Fatalf("seed %d step %d: restore problems %v", seed, i, probs)
			}
			if d := cmp.Diff(live.State(), restored.State()); d != "" {
				t.Fatalf("seed %d step %d: restored state differs (-live +restored):\n%s", seed, i, d)
			}
			// Given the same request carrying them, both engines show
			// the same copies (host.Visible over their copies).
			for _, sk := range skillNames {
				for _, h := range []string{"0", "1", "2", "h-" + sk} {
					a, _ := visibleCopy(live, sk, h)
					b, _ := visibleCopy(restored, sk, h)
					if a.ID != b.ID {
						t.Fatalf("seed %d step %d: VisibleCopy(%s, %s): live %q, restored %q", seed, i, sk, h, a.ID, b.ID)
					}
				}
			}
		}
	}
}

// visibleCopy is the host's "already loaded" gate (host.Visible) over
// e's copies of skill, the next request carrying every live body: the
// latest copy with hash that is neither archived nor due.
func visibleCopy(e *Engine, skill, hash string) (Body, bool) {
	cs := e.Copies(skill)
	for i := len(cs) - 1; i >= 0; i-- {
		if b := cs[i]; hash != "" && !b.Archived && b.Due == nil && b.Hash == hash {
			return b, true
		}
	}
	return Body{}, false
}
