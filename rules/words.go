package rules

import (
	"container/heap"
	"slices"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/relevance"
)

// Words splits text into lower-cased words as the relevance index reads
// them (relevance.Words: "scikit-learn" is two words, "don't" is "don"
// and "t"). A word already in lower case is a substring of text (it
// shares text's memory); the result is sized to the number of words.
func Words(text string) []string {
	n := 0
	relevance.Words(text, func(string, bool) { n++ })
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	relevance.Words(text, func(w string, _ bool) { out = append(out, w) })
	return out
}

// MaxTopicWords bounds a topic. Of a prompt with more distinct topic
// words, the most frequent are kept (of equally frequent ones, the first
// in sorted order): a long pasted text would otherwise make a topic, and
// the session entry that records it, as long as itself (issue 27).
const MaxTopicWords = 1000

// TopicWords returns the distinct words of text that the relevance index
// keeps as terms (no stop words, no lone ASCII letters or digits), sorted,
// at most MaxTopicWords of them: the vocabulary compared by TopicOverlap. The words are copies, in a list of their own length: a
// topic is kept until the next prompt, and must not hold on to the
// prompt's text.
func TopicWords(text string) []string {
	n := 0
	relevance.Words(text, func(_ string, term bool) {
		if term {
			n++
		}
	})
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	relevance.Words(text, func(w string, term bool) {
		if term {
			out = append(out, w)
		}
	})
	slices.Sort(out)
	words := mostFrequent(out, MaxTopicWords)
	topic := make([]string, len(words))
	for i, w := range words {
		topic[i] = strings.Clone(w)
	}
	return topic
}

// mostFrequent returns, of sorted, the max distinct words that occur most
// often (of equally frequent ones, the first in order), sorted and
// distinct. It reuses sorted's array, and keeps no more than max words
// aside while it counts.
func mostFrequent(sorted []string, max int) []string {
	distinct := 0
	for i, w := range sorted {
		if i == 0 || w != sorted[i-1] {
			distinct++
		}
	}
	if distinct <= max {
		return slices.Compact(sorted)
	}
	// A heap of the best max so far, the weakest at the top: the least
	// frequent, and of those the last in order (a later word never beats
	// an earlier one it ties with).
	best := make(wordHeap, 0, max)
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		c := wordCount{sorted[i], j - i}
		switch {
		case len(best) < max:
			heap.Push(&best, c)
		case c.n > best[0].n:
			best[0] = c
			heap.Fix(&best, 0)
		}
		i = j
	}
	out := sorted[:0]
	for _, c := range best {
		out = append(out, c.w)
	}
	slices.Sort(out)
	return out
}

type wordCount struct {
	w string
	n int
}

// wordHeap is a min-heap of word counts: fewer first, then later words.
type wordHeap []wordCount

func (h wordHeap) Len() int { return len(h) }
func (h wordHeap) Less(i, j int) bool {
	if h[i].n != h[j].n {
		return h[i].n < h[j].n
	}
	return h[i].w > h[j].w
}
func (h wordHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *wordHeap) Push(x any)   { *h = append(*h, x.(wordCount)) }
func (h *wordHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// TopicOverlap is the word overlap of a new prompt with the previous one:
// the share of the new prompt's topic words (TopicWords) that the previous
// prompt's topic words also hold, from 0 to 1. A prompt with no topic
// words at all overlaps fully (it brings nothing new); against no previous
// prompt (prev nil) the overlap is 0. Both lists must be sorted and
// distinct, as TopicWords returns them.
func TopicOverlap(cur, prev []string) float64 {
	if prev == nil {
		return 0
	}
	if len(cur) == 0 {
		return 1
	}
	n := 0
	for _, w := range cur {
		if _, ok := slices.BinarySearch(prev, w); ok {
			n++
		}
	}
	return float64(n) / float64(len(cur))
}

// RuleScore is the best score of the keyword rules for skill against text
// (the Words of the text being judged): for each rule naming skill, the
// share of its keywords that occur in text, times its weight. A keyword
// occurs when its own Words appear in text as a contiguous run, so
// "random forest" matches "use a Random Forest" and "random-forest", and
// "scikit-learn" matches "scikit learn". It returns 0 and -1 when no rule names skill, else the score
// and the index of the best rule.
func RuleScore(rules []Rule, skill string, text []string) (score float64, rule int) {
	rule = -1
	for i, r := range rules {
		if r.SkillName != skill || len(r.Keywords) == 0 {
			continue
		}
		hit := 0
		for _, kw := range r.Keywords {
			if containsRun(text, Words(kw)) {
				hit++
			}
		}
		s := float64(hit) / float64(len(r.Keywords)) * r.Weight
		if rule < 0 || s > score {
			score, rule = s, i
		}
	}
	return score, rule
}

func containsRun(text, run []string) bool {
	if len(run) == 0 || len(run) > len(text) {
		return false
	}
outer:
	for i := 0; i+len(run) <= len(text); i++ {
		for j, w := range run {
			if text[i+j] != w {
				continue outer
			}
		}
		return true
	}
	return false
}
