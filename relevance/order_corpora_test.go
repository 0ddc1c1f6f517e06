//go:build corpora

package relevance

import (
	"math"
	"math/rand"
	"testing"
)

// TestRankIgnoresPackOrder builds the index of the ML pack in shuffled
// orders and ranks every prompt of its dev cases: the ranking (skills,
// scores, matched terms) does not depend on the order in which the skills
// were found (discovery walks folders, whose order differs between
// machines).
func TestRankIgnoresPackOrder(t *testing.T) {
	docs := docsOf(loadMLPack(t))
	cases := loadDevCases(t)
	base := NewIndex(docs, DefaultParams())
	r := rand.New(rand.NewSource(7))
	for round := range 5 {
		shuffled := append([]Doc(nil), docs...)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		ix := NewIndex(shuffled, DefaultParams())
		for _, c := range cases {
			want, got := base.Rank(c.Prompt, DefaultMinSignal), ix.Rank(c.Prompt, DefaultMinSignal)
			if len(want.Results) != len(got.Results) || want.Signal != got.Signal {
				t.Fatalf("round %d, %q: %d results (signal %v) against %d (%v)", round, c.Prompt, len(got.Results), got.Signal, len(want.Results), want.Signal)
			}
			for i := range want.Results {
				w, g := want.Results[i], got.Results[i]
				if w.Skill != g.Skill || math.Abs(w.Score-g.Score) > 1e-9*math.Max(1, w.Score) || len(w.Terms) != len(g.Terms) {
					t.Fatalf("round %d, %q, rank %d: %s %.6f %v against %s %.6f %v", round, c.Prompt, i+1, g.Skill, g.Score, g.Terms, w.Skill, w.Score, w.Terms)
				}
			}
		}
	}
}
