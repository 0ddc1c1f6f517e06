package replay

import (
	"bytes"
	"os"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/session"
)

// FuzzReplay replays arbitrary session files under keep-all, the engine's
// defaults, a strategy that archives early and the foresight yardsticks:
// nothing panics, and every recorded assistant message on the branch is
// priced.
func FuzzReplay(f *testing.F) {
	for _, name := range []string{"cache.jsonl", "branches.jsonl", "compaction.jsonl", "orphan.jsonl", "loads.jsonl"} {
		data, err := os.ReadFile(testdata(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := session.Read(bytes.NewReader(data), "f.jsonl", &session.Options{MaxLine: 1 << 16})
		if err != nil {
			t.Fatal(err)
		}
		specs := []StrategySpec{
			EngineSpec("defaults", world(lifecycle.Catalog{}, rules.Default())),
			{Name: "scripted", New: func() Strategy { return &scripted{} }},
			ForesightSpec(world(lifecycle.Catalog{}, rules.Default())),
			ForesightTimingSpec(world(lifecycle.Catalog{}, rules.Default())),
			ForesightPeakSpec(world(lifecycle.Catalog{}, rules.Default())),
		}
		r := NewRunner(Options{Strategies: specs, AllBranches: true, TTL: DefaultTTL})
		r.AddSession(s)
		rep := r.Report()
		want := 0
		for _, leaf := range s.Leaves() {
			for _, e := range s.Branch(leaf) {
				if e.Message != nil && e.Message.Role == session.RoleAssistant {
					want++
				}
			}
		}
		if got := rep.Strategies[0].Requests; got != want {
			t.Fatalf("keep-all priced %d requests, the branches hold %d", got, want)
		}
		for _, st := range rep.Strategies[1:] {
			if st.Requests != want+st.OrphanUses {
				t.Fatalf("%s: %d requests, want %d + %d reloads", st.Name, st.Requests, want, st.OrphanUses)
			}
		}
	})
}
