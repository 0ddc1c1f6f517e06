package rules

import (
	"slices"
	"strings"
	"unicode"
)

// Words splits text into lower-cased words: maximal runs of Unicode letters
// and digits (an apostrophe or hyphen between two such characters stays
// inside the word, so "don't" and "scikit-learn" are one word each).
func Words(text string) []string {
	var out []string
	rs := []rune(text)
	start := -1
	for i := 0; i <= len(rs); i++ {
		in := i < len(rs) && (isWordRune(rs[i]) ||
			(start >= 0 && (rs[i] == '\'' || rs[i] == '’' || rs[i] == '-') && i+1 < len(rs) && isWordRune(rs[i+1])))
		if in && start < 0 {
			start = i
		}
		if !in && start >= 0 {
			out = append(out, strings.ToLower(string(rs[start:i])))
			start = -1
		}
	}
	return out
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

// TopicWords returns the distinct words of text that are not stop words,
// sorted: the vocabulary compared by TopicOverlap.
func TopicWords(text string) []string {
	var out []string
	for _, w := range Words(text) {
		if !stopWords[w] {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
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
