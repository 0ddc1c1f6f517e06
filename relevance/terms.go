package relevance

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// PairSep joins the two stems of a pair term, as in "cross_validat".
const PairSep = "_"

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
// a word), and whether the index keeps it as a term: not a stop word of
// text's language (detected as for a prompt, English when text shows
// none), not a lone ASCII letter or digit. A word already in lower case in
// text shares text's memory.
func Words(text string, fn func(w string, term bool)) {
	l := detectLanguage(text, langEn)
	words(text, func(w string, _ bool) { fn(w, l.keep(w)) })
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

// stemmer turns lower-cased words of one language into terms
// (lang.stemOf), memoising them in a map when one is given, up to max
// entries (0: no bound).
type stemmer struct {
	lang  lang
	cache map[string]stemmed
	max   int
}

// stemmed is what stemOf returns for a word.
type stemmed struct{ term, alt string }

// Bounds of one query's work space: the stems it memoises, and the
// distinct stems it counts.
const (
	maxQueryCache = 1 << 12
	maxQueryStems = 1 << 14
)

func (s *stemmer) stem(w string) stemmed {
	if s.cache != nil {
		if st, ok := s.cache[w]; ok {
			return st
		}
	}
	t, a := s.lang.stemOf(w)
	st := stemmed{t, a}
	if s.cache != nil && (s.max == 0 || len(s.cache) < s.max) {
		w = strings.Clone(w)
		if st.term == w {
			st.term = w
		}
		s.cache[w] = st
	}
	return st
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
		if !s.lang.keep(w) {
			return
		}
		st := s.stem(w).term
		unigram(st)
		if prev != "" && pair != nil {
			pair(prev, st)
		}
		prev = st
	})
}

// Terms returns the terms of text as the index sees them: the kept stems in
// order, then the adjacent-stem pairs in order (duplicates kept). The
// language is detected from text's stop words (English when it has none);
// TermsIn names it.
func Terms(text string) []string {
	return termsIn(text, detectLanguage(text, langEn))
}

// TermsIn is Terms in a declared language (an ISO 639-1 code or a name, as
// metadata.language takes it): its stop words and its Snowball stemmer,
// none for a language Snowball does not stem; "" detects it.
func TermsIn(text, language string) []string {
	l, ok := parseLanguage(language)
	if !ok {
		l = detectLanguage(text, langEn)
	}
	return termsIn(text, l)
}

func termsIn(text string, l lang) []string {
	s := stemmer{lang: l}
	var uni, pairs []string
	s.analyze(text, func(t string) { uni = append(uni, t) },
		func(a, b string) { pairs = append(pairs, a+PairSep+b) })
	return append(uni, pairs...)
}
