package relevance

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// PairSep joins the two stems of a pair term, as in "cross_validat".
const PairSep = "_"

// extraStopWords are removed besides Snowball's English list. They are the
// words of conversational follow-ups ("yes, that one", "ok, go ahead",
// "let's do it") and auxiliary verbs that the Snowball list lacks; none of
// them names a topic. Contraction tails ("ll", "ve", "re") appear because
// words split at apostrophes.
var extraStopWords = map[string]bool{
	"yes": true, "yeah": true, "yep": true, "ok": true, "okay": true,
	"please": true, "thanks": true, "thank": true, "sure": true,
	"one": true, "ones": true, "let": true, "lets": true, "us": true,
	"can": true, "could": true, "would": true, "shall": true, "may": true,
	"might": true, "must": true, "also": true, "go": true, "ahead": true,
	"ll": true, "ve": true, "re": true, "d": true, "m": true,
	"hi": true, "hello": true, "hey": true,
}

// isStopWord reports whether a lower-cased word carries no topic.
func isStopWord(w string) bool {
	return english.IsStopWord(w) || extraStopWords[w]
}

// isPhraseBreak reports whether r ends a phrase: adjacent-stem pairs do not
// span it. Hyphens, apostrophes, slashes, underscores and spaces join words
// of one phrase ("cross-validation", "train/test").
func isPhraseBreak(r rune) bool {
	switch r {
	case '-', '\'', '\u2019', '/', '_', '\u2010', '\u2011':
		return false
	}
	if unicode.IsSpace(r) {
		return r == '\n' || r == '\r' || r == '\f' || r == '\v'
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

// isCJK reports whether r belongs to a script written without spaces
// between words; each such character is a word of its own, and pairs of
// adjacent characters then act as the usual character bigrams.
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r)
}

// words splits text into lower-cased words of Unicode letters and digits
// (combining marks stay inside a word, so scripts such as Devanagari keep
// their words whole) and calls fn for each, with whether a phrase break
// precedes it. A single newline does not break a phrase (descriptions are
// folded over lines); a blank line does.
func words(text string, fn func(w string, brk bool)) {
	var buf []byte
	scanWords(text, func(w string, upper, brk bool) {
		if upper {
			buf, w = lowerWord(buf, w)
		}
		fn(w, brk)
	})
}

// Words calls fn with each word of text as the index reads it, lower-cased
// (runs of letters and digits, combining marks inside a word; hyphens and
// apostrophes split words, so "scikit-learn" is two; each CJK character is
// a word), and whether the index keeps it as a term: not a stop word, not a
// lone ASCII letter or digit. A word already in lower case in text shares
// text's memory.
func Words(text string, fn func(w string, term bool)) {
	words(text, func(w string, _ bool) { fn(w, keep(w)) })
}

// lowerWord returns w lower-cased, in buf's storage when it can.
func lowerWord(buf []byte, w string) ([]byte, string) {
	buf = buf[:0]
	for _, r := range w {
		buf = utf8.AppendRune(buf, unicode.ToLower(r))
	}
	return buf, string(buf)
}

// scanWords is words without the lower-casing: fn gets each word as
// written (a substring of text) and whether it holds a character that
// lower-casing changes.
func scanWords(text string, fn func(w string, upper, brk bool)) {
	brk := false
	start := -1 // byte offset of the current word, -1 when none
	upper := false
	newlines := 0
	flush := func(end int) {
		if start < 0 {
			return
		}
		fn(text[start:end], upper, brk)
		brk = false
		start = -1
		upper = false
	}
	for i, r := range text {
		if r < utf8.RuneSelf {
			// ASCII fast path.
			switch c := byte(r); {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
				if start < 0 {
					start = i
					newlines = 0
				}
			case 'A' <= c && c <= 'Z':
				if start < 0 {
					start = i
					newlines = 0
				}
				upper = true
			default:
				flush(i)
				switch {
				case c == '\n':
					newlines++
					if newlines >= 2 {
						brk = true
					}
				case c == ' ' || c == '\t' || c == '\r':
				case isPhraseBreak(r):
					brk = true
				}
			}
			continue
		}
		switch {
		case isCJK(r):
			flush(i)
			newlines = 0
			start = i
			flush(i + utf8.RuneLen(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || (start >= 0 && unicode.IsMark(r)):
			if start < 0 {
				start = i
				newlines = 0
			}
			if unicode.ToLower(r) != r {
				upper = true
			}
		default:
			flush(i)
			if isPhraseBreak(r) {
				brk = true
			}
		}
	}
	flush(len(text))
}

// stemmer turns a lower-cased word into its Snowball English stem. Words
// outside the Latin script are kept as they are (the English stemmer would
// only garble them). It memoises stems in a map when one is given, up to
// max entries (0: no bound).
type stemmer struct {
	cache map[string]string
	max   int
}

// Bounds of one query's work space: the stems it memoises, and the
// distinct stems it counts.
const (
	maxQueryCache = 1 << 12
	maxQueryStems = 1 << 14
)

func latin(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			for _, r := range w {
				if r >= 0x250 {
					return false
				}
			}
			return true
		}
	}
	return true
}

func (s *stemmer) stem(w string) string {
	if s.cache != nil {
		if st, ok := s.cache[w]; ok {
			return st
		}
	}
	st := w
	if latin(w) {
		st = english.Stem(w, true)
		if st == "" {
			st = w
		}
	}
	if s.cache != nil && (s.max == 0 || len(s.cache) < s.max) {
		w = strings.Clone(w)
		if st == w {
			st = w
		}
		s.cache[w] = st
	}
	return st
}

// keep reports whether a lower-cased word can be a term: not a stop word,
// and not a lone ASCII letter or digit (the x and y of code snippets, the
// pieces of "0.97").
func keep(w string) bool {
	if len(w) == 1 && w[0] < utf8.RuneSelf {
		return false
	}
	return !isStopWord(w)
}

// analyze calls unigram for each kept stem of text, in order, and pair for
// each pair of consecutive kept stems not separated by a phrase break.
// Removed stop words do not separate a pair: "explore the data" yields
// explor_data, as "explore data" does.
func (s *stemmer) analyze(text string, unigram func(string), pair func(a, b string)) {
	prev := ""
	words(text, func(w string, brk bool) {
		if brk {
			prev = ""
		}
		if !keep(w) {
			return
		}
		st := s.stem(w)
		unigram(st)
		if prev != "" && pair != nil {
			pair(prev, st)
		}
		prev = st
	})
}

// Terms returns the terms of text as the index sees them: the kept stems in
// order, then the adjacent-stem pairs in order (duplicates kept).
func Terms(text string) []string {
	var s stemmer
	var uni, pairs []string
	s.analyze(text, func(t string) { uni = append(uni, t) },
		func(a, b string) { pairs = append(pairs, a+PairSep+b) })
	return append(uni, pairs...)
}
