// Package wordrank is a stand-in for relevance.Index in the tests of the
// packages that consume rankings (rules, lifecycle): a skill's score for a
// text is the sum of the points its words give that skill, so that a test
// can say in one table which prompt should favour which skill without
// building a real index. Only tests import it.
package wordrank

import (
	"sort"

	"github.com/skill-lifecycle/skill-lifecycle/relevance"
)

// Ranker scores skills by the words of a text.
type Ranker struct {
	// Words splits a text into lower-case words (rules.Words).
	Words func(string) []string
	// Points gives, per word, the points it adds to each skill.
	Points map[string]map[string]float64
}

// Rank implements rules.Ranker: skills with a positive score, best first
// (ties by name), with a signal when the best reaches minSignal.
func (w Ranker) Rank(text string, minSignal float64) relevance.Ranking {
	sc := map[string]float64{}
	for _, word := range w.Words(text) {
		for s, p := range w.Points[word] {
			sc[s] += p
		}
	}
	r := relevance.Ranking{Results: []relevance.Result{}}
	for s, v := range sc {
		if v > 0 {
			r.Results = append(r.Results, relevance.Result{Skill: s, Score: v})
		}
	}
	sort.Slice(r.Results, func(i, j int) bool {
		a, b := r.Results[i], r.Results[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return a.Skill < b.Skill
	})
	if len(r.Results) > 0 {
		r.Best = r.Results[0].Score
	}
	r.Signal = r.Best >= minSignal
	return r
}
