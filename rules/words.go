package rules

import (
	"container/heap"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Words splits text into lower-cased words: maximal runs of Unicode letters
// and digits (an apostrophe or hyphen between two such characters stays
// inside the word, so "don't" and "scikit-learn" are one word each).
//
// A word already in lower case is a substring of text (it shares text's
// memory); the result is sized to the number of words.
func Words(text string) []string {
	n := 0
	eachWord(text, func(string) { n++ })
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	eachWord(text, func(w string) { out = append(out, strings.ToLower(w)) })
	return out
}

// eachWord calls fn with each word of text as Words splits it, as written
// (not lower-cased). Text is read rune by rune in place: converting it to
// runes first cost four bytes a character (issue 27: a 60 MB prompt).
// An invalid byte is a rune of its own (utf8.RuneError), as in a []rune
// conversion, and never part of a word.
func eachWord(text string, fn func(w string)) {
	start := -1
	for i := 0; i <= len(text); {
		var r rune
		size := 0
		if i < len(text) {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		in := size > 0 && (isWordRune(r) || (start >= 0 && (r == '\'' || r == '’' || r == '-') && wordRuneAt(text, i+size)))
		if in && start < 0 {
			start = i
		}
		if !in && start >= 0 {
			fn(text[start:i])
			start = -1
		}
		if size == 0 {
			return
		}
		i += size
	}
}

// wordRuneAt reports whether the rune at byte i of text is a word rune.
func wordRuneAt(text string, i int) bool {
	if i >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[i:])
	return isWordRune(r)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// stopWords are left out of topic comparison: they say nothing about the
// topic, and short prompts are full of them.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but if then else of to in on at by for with
		from into onto over under about as is are was were be been being am do does did done
		have has had having i me my we us our you your he she it its they them their this that
		these those there here what which who whom whose when where why how can could should
		would will shall may might must not no yes so too very just also please now then than
		let lets let's it's i'm don't doesn't ok okay`) {
		stopWords[w] = true
	}
}

// isStopWord reports whether w, as written, is a stop word once lower
// cased as Words does it, without allocating for an ASCII word (stop words
// are short and ASCII).
func isStopWord(w string) bool {
	var buf [16]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return stopWords[strings.ToLower(w)]
		}
		if i == len(buf) {
			return false // longer than any stop word
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return stopWords[string(buf[:len(w)])]
}

// MaxTopicWords bounds a topic. Of a prompt with more distinct topic
// words, the most frequent are kept (of equally frequent ones, the first
// in sorted order): a long pasted text would otherwise make a topic, and
// the session entry that records it, as long as itself (issue 27).
const MaxTopicWords = 1000

// TopicWords returns the distinct words of text that are not stop words,
// sorted, at most MaxTopicWords of them: the vocabulary compared by
// TopicOverlap. The words are copies, in a list of their own length: a
// topic is kept until the next prompt, and must not hold on to the
// prompt's text.
func TopicWords(text string) []string {
	n := 0
	eachWord(text, func(w string) {
		if !isStopWord(w) {
			n++
		}
	})
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	eachWord(text, func(w string) {
		if !isStopWord(w) {
			out = append(out, strings.ToLower(w))
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
// "random forest" matches "use a Random Forest" but not "random-forest"
// (one word). It returns 0 and -1 when no rule names skill, else the score
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
