package relevance

import (
	"bytes"
	"strings"
)

// negativePhrases mark a heading as the title of a negative section: one
// that says when a skill does not apply or what to avoid. Its words describe
// other tasks, so indexing them would rank the skill for exactly the
// prompts it should not get. A heading is negative when its lower-cased
// words, joined by single spaces (apostrophes dropped: "don't" is "dont"),
// start with one of negativeStarts or contain one of negativeInfixes as
// whole words.
var (
	negativeStarts = []string{
		"avoid", "do not", "dont", "never", "not for", "not this skill",
		"not when", "not to use", "anti pattern", "antipattern",
		"forbidden", "out of scope", "non goals", "nongoals", "wrong",
		"misuse", "instead use", "use instead", "skip when", "skip if",
	}
	negativeInfixes = []string{
		"when not to", "when to avoid", "not to use", "do not use",
		"dont use", "does not do", "doesnt do", "do not do", "is not for",
		"isnt for", "not for", "anti pattern", "anti patterns",
		"antipattern", "antipatterns", "out of scope", "should not use",
		"shouldnt use", "not use this", "not covered", "limitations of use",
		"what to avoid", "things to avoid", "avoid using", "never use",
	}
)

// headingWords lower-cases a heading, drops apostrophes and keeps its words
// of letters and digits separated by single spaces.
func headingWords(h string) string {
	if strings.ContainsAny(h, "'\u2019") {
		h = strings.ReplaceAll(strings.ReplaceAll(h, "'", ""), "\u2019", "")
	}
	var b strings.Builder
	b.Grow(len(h))
	words(h, func(w string, _ bool) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	})
	return b.String()
}

// NegativeHeading reports whether a heading titles a negative section
// ("When not to use", "Do not use", "Avoid", "Don't use", "Anti-patterns",
// "What this skill does NOT do", "Not this skill" and the like).
func NegativeHeading(h string) bool {
	if !mayBeNegative(h) {
		return false
	}
	w := headingWords(h)
	if w == "" {
		return false
	}
	for _, p := range negativeStarts {
		if w == p || strings.HasPrefix(w, p+" ") {
			return true
		}
	}
	padded := " " + w + " "
	for _, p := range paddedInfixes {
		if strings.Contains(padded, p) {
			return true
		}
	}
	return false
}

// paddedInfixes are negativeInfixes with a space on each side.
var paddedInfixes = func() []string {
	out := make([]string, len(negativeInfixes))
	for i, p := range negativeInfixes {
		out[i] = " " + p + " "
	}
	return out
}()

// IndexedHeadings returns the headings the index reads: all of them except
// negative ones and the headings nested under a negative one (a deeper
// heading before the next heading of the same or a higher level). levels
// may be nil or shorter than headings; a missing level counts as 1.
func IndexedHeadings(headings []string, levels []int) []string {
	out := make([]string, 0, len(headings))
	forIndexedHeadings(headings, levels, func(h string) { out = append(out, h) })
	return out
}

// forIndexedHeadings calls fn for each heading IndexedHeadings keeps.
func forIndexedHeadings(headings []string, levels []int, fn func(string)) {
	skipBelow := 0 // while > 0, skip headings deeper than this level
	for i, h := range headings {
		lvl := 1
		if i < len(levels) && levels[i] >= 1 {
			lvl = levels[i]
		}
		if skipBelow > 0 {
			if lvl > skipBelow {
				continue
			}
			skipBelow = 0
		}
		if NegativeHeading(h) {
			skipBelow = lvl
			continue
		}
		fn(h)
	}
}

// negativeSentenceStarts open a sentence of a description that says when
// the skill does not apply ("SKIP adding later packages — load
// add-python-package.", "Not for skore Display plots.", "Do not write
// JOURNAL.md."). Such sentences name other tasks, so they are not indexed.
var negativeSentenceStarts = []string{
	"skip", "stop when", "stop if", "do not", "dont", "never", "not for",
	"not when", "not a", "does not", "doesnt", "avoid", "this action does not",
	"this skill does not", "not to be used",
}

// IndexedDescription returns description without its negative sentences.
// A sentence ends at ".", "!" or "?" followed by a space or line end, or
// at a blank line.
func IndexedDescription(description string) string {
	var b strings.Builder
	forSentences(description, func(s string, negative bool) {
		if negative {
			b.WriteString("\n\n") // keep pairs from spanning the gap
			return
		}
		b.WriteString(s)
	})
	return b.String()
}

// forSentences calls fn for each sentence of description, in order, with
// whether it is negative. The sentences put end to end give description.
func forSentences(description string, fn func(s string, negative bool)) {
	rest := description
	for rest != "" {
		end := sentenceEnd(rest)
		s := rest[:end]
		rest = rest[end:]
		fn(s, NegativeSentence(s))
	}
}

// sentenceEnd returns the byte length of the first sentence of s.
func sentenceEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.', '!', '?':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n' || s[i+1] == '\t' || s[i+1] == '\r' {
				return i + 1
			}
		case '\n':
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
				j++
			}
			if j < len(s) && s[j] == '\n' {
				return j + 1
			}
		}
	}
	return len(s)
}

// NegativeSentence reports whether a sentence of a description says when
// the skill does not apply.
func NegativeSentence(s string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	if !negativeFirstWord(s) {
		return false
	}
	if len(s) > 40 {
		s = s[:40] // the starts are short; spare the rest of long sentences
	}
	w := headingWords(s)
	for _, p := range negativeSentenceStarts {
		if w == p || strings.HasPrefix(w, p+" ") {
			return true
		}
	}
	return false
}

// negativeCues are fragments every negative phrase contains one of; a
// heading without any is not negative, which spares most headings the
// full test.
var negativeCues = []string{"not", "n't", "n\u2019t", "dont", "avoid", "never", "anti",
	"forbid", "scope", "goal", "wrong", "misuse", "instead", "skip", "limitation",
	"doesnt", "isnt", "shouldnt"}

// mayBeNegative reports whether h holds one of negativeCues, ignoring ASCII
// case. Headings longer than its buffer are always checked in full.
func mayBeNegative(h string) bool {
	var buf [160]byte
	if len(h) > len(buf) {
		return true
	}
	b := buf[:len(h)]
	for i := 0; i < len(h); i++ {
		c := h[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	for _, c := range negativeCueBytes {
		if bytes.Contains(b, c) {
			return true
		}
	}
	return false
}

var negativeCueBytes = func() [][]byte {
	out := make([][]byte, len(negativeCues))
	for i, c := range negativeCues {
		out[i] = []byte(c)
	}
	return out
}()

// negativeFirstWords are the first words of negativeSentenceStarts, as
// negativeFirstWord reads them (lower-cased, apostrophes dropped).
var negativeFirstWords = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range negativeSentenceStarts {
		first, _, _ := strings.Cut(p, " ")
		m[first] = true
	}
	return m
}()

// negativeFirstWord reports whether the first word of s, lower-cased and
// without apostrophes, opens one of negativeSentenceStarts. Words that do
// not fit its small buffer answer true and get the full check.
func negativeFirstWord(s string) bool {
	var buf [16]byte
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z':
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == '\'':
			continue
		case c >= 0x80:
			if strings.HasPrefix(s[i:], "\u2019") {
				i += len("\u2019") - 1
				continue
			}
			return true
		default:
			return negativeFirstWords[string(buf[:n])]
		}
		if n == len(buf) {
			return true
		}
		buf[n] = c
		n++
	}
	return negativeFirstWords[string(buf[:n])]
}
