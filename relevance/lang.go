package relevance

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"
	"golang.org/x/text/unicode/norm"
)

// lang is a language the index knows: its Snowball stemmer and stop words.
// langNone stems nothing and drops no word (a declared language Snowball
// does not stem).
type lang uint8

const (
	langNone lang = iota
	langEn
	langFr
	langEs
	langRu
	langSv
	langNo
	langHu
	numLangs
)

type language struct {
	code     string
	stem     func(string, bool) string
	stop     func(string) bool
	extra    map[string]bool // stop words the Snowball list lacks
	generic  map[string]bool // words that name no topic (Params.GenericWordWeight)
	cyrillic bool            // the script it stems; Latin otherwise
}

var languages = [numLangs]language{
	langNone: {code: ""},
	langEn:   {code: "en", stem: english.Stem, stop: english.IsStopWord, extra: wordSet(extraEnglish), generic: wordSet(genericEnglish)},
	langFr:   {code: "fr", stem: french.Stem, stop: french.IsStopWord, extra: wordSet(extraFrench)},
	langEs:   {code: "es", stem: spanish.Stem, stop: spanish.IsStopWord, extra: wordSet(extraSpanish)},
	langRu:   {code: "ru", stem: russian.Stem, stop: russian.IsStopWord, cyrillic: true},
	langSv:   {code: "sv", stem: swedish.Stem, stop: swedish.IsStopWord},
	langNo:   {code: "no", stem: norwegian.Stem, stop: norwegian.IsStopWord},
	langHu:   {code: "hu", stem: hungarian.Stem, stop: hungarian.IsStopWord},
}

func wordSet(lists ...string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lists {
		for _, w := range strings.Fields(l) {
			m[w] = true
			m[foldString(w)] = true
		}
	}
	return m
}

// extraEnglish are removed besides Snowball's English list: the words of
// conversational follow-ups ("yes, that one", "ok, go ahead", "let's do
// it") and auxiliary verbs the list lacks. Contraction tails ("ll", "ve",
// "re") appear because words split at apostrophes.
const extraEnglish = `yes yeah yep ok okay please thanks thank sure one ones let lets us
can could would shall may might must also go ahead ll ve re d m hi hello hey`

// genericEnglish are general-purpose English words that name no topic on
// their own: indefinite pronouns, quantifiers, discourse adverbs, the
// light verbs of requests ("I want", "can you get", "it looks like"), and
// one-word reactions. They are the non-topical words of the SMART stop
// list (Salton's information-retrieval system) that Snowball's short list
// leaves out, with their inflections. They are not dropped, since some
// phrases of them do name a task ("what to try next"), but weighed down
// (Params.GenericWordWeight): a catalogue too small to show how common a
// word is (13 skills, one of which happens to say "look like") would
// otherwise rank on them.
const genericEnglish = `
anybody anyone anything anywhere everybody everyone everything everywhere
nobody nothing nowhere somebody someone something somewhere thing things
stuff whatever whoever whichever
another certain enough every least less lot lots many much several various whole
actually almost already although always anyway anyways certainly clearly
definitely else especially even ever exactly however indeed instead likely
maybe mostly nearly often otherwise perhaps probably quite rather really
right seriously somehow sometimes soon still surely though thus truly
usually well yet first next
want wants wanted wanting need needs needed needing like likes liked
look looks looked looking get gets got gotten getting seem seems seemed
seeming think thinks thought know knows knew known wonder wish
try tries tried trying ask asks asked asking tell tells told say says said
see sees saw seen give gives gave given take takes took taken come comes
came coming goes going gone went
hmm hm oh ah cool great nice awesome perfect good alright sorry wow`

// extraFrench and extraSpanish play the part of extraEnglish and
// genericEnglish: articles and pronouns Snowball's lists lack ("les",
// "cette"), the light and modal verbs of requests ("peux-tu", "il faut",
// "quiero", "puedes") and the words of short replies.
const extraFrench = `les cette cet ça cela ceci celui celle ceux celles tout tous toute toutes
très aussi oui merci stp svp ok peux peut pouvez pourrais pourriez veux veut
voulez voudrais aimerais faut fais fait faire bien alors donc puis voici voilà
quelque quelques chose choses quoi comment où quand si là ici déjà encore
juste vraiment être avoir va vas vais allez aller dois doit devez devrait
besoin salut bonjour parfait super génial`

const extraSpanish = `hola gracias vale si ok favor puedes puede podrías podría quiero
quieres quisiera necesito necesitamos hacer haz hace bien así ahora luego
entonces aquí allí ahí cosa cosas tan solo sólo además perfecto genial claro
bueno vamos oye va voy vas ir debo debe deberías dame`

// isStop reports whether a lower-cased word is a stop word of l.
func (l lang) isStop(w string) bool {
	lg := &languages[l]
	if lg.stop == nil {
		return false
	}
	return lg.stop(w) || lg.extra[w]
}

// isGeneric reports whether a lower-cased word is one of l's generic words.
func (l lang) isGeneric(w string) bool { return languages[l].generic[w] }

// keep reports whether a lower-cased word can be a term of l: not a stop
// word, and not a lone ASCII letter or digit (the x and y of code
// snippets, the pieces of "0.97").
func (l lang) keep(w string) bool {
	if len(w) == 1 && w[0] < utf8.RuneSelf {
		return false
	}
	return !l.isStop(w)
}

// inScript reports whether every letter of w is in the script l stems.
func (l lang) inScript(w string) bool {
	cyr := languages[l].cyrillic
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			for _, r := range w {
				if r < utf8.RuneSelf {
					if cyr && unicode.IsLetter(r) {
						return false
					}
					continue
				}
				if cyr != unicode.Is(unicode.Cyrillic, r) && unicode.IsLetter(r) {
					if cyr || r >= 0x250 {
						return false
					}
				}
			}
			return true
		}
	}
	return !cyr
}

// stemOf returns the term of a lower-cased word in l: its Snowball stem
// with accents folded (foldString), or the folded word itself outside the
// script l stems. alt is the stem of the folded word when it differs: a
// word typed without its accents ("presentacion", "donnees") stems to
// alt, not to the stem of the accented word.
func (l lang) stemOf(w string) (term, alt string) {
	ascii := isASCII(w)
	if !ascii {
		w = norm.NFC.String(w)
	}
	lg := &languages[l]
	if lg.stem == nil || !l.inScript(w) {
		if ascii {
			return w, ""
		}
		return foldString(w), ""
	}
	if lg.cyrillic {
		w = strings.ReplaceAll(w, "ё", "е")
	}
	st := lg.stem(w, true)
	if st == "" {
		st = w
	}
	if ascii {
		return st, ""
	}
	term = foldString(st)
	if f := foldString(w); f != w {
		if a := lg.stem(f, true); a != "" && a != term {
			alt = a
		}
	}
	return term, alt
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldString removes the accents of Latin letters (é → e, ñ → n, ő → o)
// and spells out the letters that have no accent-free form (ß → ss,
// æ → ae, œ → oe, ø → o, ł → l, đ → d, þ → th, ı → i); it folds Cyrillic
// ё into е. Other scripts, and their combining marks, are left as they
// are. The result is in NFC.
func foldString(s string) string {
	if isASCII(s) {
		return s
	}
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	latinBase := false
	cyrE := false
	for _, r := range d {
		if unicode.Is(unicode.Mn, r) {
			if latinBase || (cyrE && r == '\u0308') {
				continue
			}
			b.WriteRune(r)
			continue
		}
		latinBase = r < 0x250 || (r >= 0x1E00 && r <= 0x1EFF)
		cyrE = r == 'е' || r == 'Е'
		switch r {
		case 'ß':
			b.WriteString("ss")
		case 'æ':
			b.WriteString("ae")
		case 'Æ':
			b.WriteString("AE")
		case 'œ':
			b.WriteString("oe")
		case 'Œ':
			b.WriteString("OE")
		case 'ø':
			b.WriteByte('o')
		case 'Ø':
			b.WriteByte('O')
		case 'ł':
			b.WriteByte('l')
		case 'Ł':
			b.WriteByte('L')
		case 'đ':
			b.WriteByte('d')
		case 'Đ':
			b.WriteByte('D')
		case 'þ':
			b.WriteString("th")
		case 'ı':
			b.WriteByte('i')
		default:
			b.WriteRune(r)
		}
	}
	return norm.NFC.String(b.String())
}

// Language codes (ISO 639-1) of the languages stemmed, and the names a
// skill may declare them by (metadata.language).
var languageNames = map[string]lang{
	"en": langEn, "eng": langEn, "english": langEn,
	"fr": langFr, "fra": langFr, "fre": langFr, "french": langFr, "francais": langFr,
	"es": langEs, "spa": langEs, "spanish": langEs, "espanol": langEs, "castellano": langEs,
	"ru": langRu, "rus": langRu, "russian": langRu, "русский": langRu,
	"sv": langSv, "swe": langSv, "swedish": langSv, "svenska": langSv,
	"no": langNo, "nb": langNo, "nn": langNo, "nor": langNo, "nob": langNo, "nno": langNo,
	"norwegian": langNo, "norsk": langNo, "bokmal": langNo, "nynorsk": langNo,
	"hu": langHu, "hun": langHu, "hungarian": langHu, "magyar": langHu,
}

// parseLanguage reads a declared language: an ISO 639 code ("fr",
// "fr-CA", "pt_BR") or an English or native name ("French", "español"),
// in any case. known is false when s names no language the index stems
// (it is then stemmed as langNone); ok is false when s is empty.
func parseLanguage(s string) (l lang, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return langNone, false
	}
	k := foldString(strings.ToLower(s))
	if i := strings.IndexAny(k, "-_"); i > 0 {
		k = k[:i]
	}
	if l, found := languageNames[k]; found {
		return l, true
	}
	return langNone, true
}

// LanguageCode returns the ISO 639-1 code of a declared language the index
// stems ("fr" for "French" or "fr-CA"), "" for one it does not.
func LanguageCode(s string) string {
	l, _ := parseLanguage(s)
	return languages[l].code
}

// Languages lists the codes of the languages the index stems.
func Languages() []string {
	out := make([]string, 0, numLangs-1)
	for l := langEn; l < numLangs; l++ {
		out = append(out, languages[l].code)
	}
	return out
}

// maxDetectWords and maxDetectBytes bound what detectLanguage reads of a
// prompt, maxDocDetectWords what the index reads of a skill.
const (
	maxDetectWords    = 2000
	maxDocDetectWords = 48
	maxDocDetectBytes = 4 << 10
	maxDetectBytes    = 16 << 10
	detectWordBytes   = 24
)

// detectLanguage guesses the language of text from its stop words: for
// each language, how many of text's first maxDetectWords words are its
// stop words; the most wins, ties going to prefer (then to English).
// Without any stop word it returns prefer.
func detectLanguage(text string, prefer lang) lang {
	d := detector{maxWords: maxDetectWords}
	return d.detect(text, prefer)
}

// detector is detectLanguage with a memo of which languages each word is
// a stop word of (a bit per language), for the many skills of an index.
type detector struct {
	cache    map[string]uint16
	maxWords int
	// decisive, when above 0, ends the reading once a language has that
	// many stop words and three times as many as any other.
	decisive int
}

// decided reports whether one language of hits leads as decisive says.
func decided(hits *[numLangs]int, decisive int) bool {
	first, second := 0, 0
	for _, h := range hits {
		if h > first {
			first, second = h, first
		} else if h > second {
			second = h
		}
	}
	return first >= decisive && first >= 3*second
}

func (dt *detector) stopMask(w string) uint16 {
	if m, ok := dt.cache[w]; ok {
		return m
	}
	var m uint16
	for l := langEn; l < numLangs; l++ {
		if l.isStop(w) {
			m |= 1 << l
		}
	}
	if dt.cache != nil && len(dt.cache) < 1<<16 {
		dt.cache[strings.Clone(w)] = m
	}
	return m
}

func (dt *detector) detect(text string, prefer lang) lang {
	return dt.detectParts(prefer, text)
}

// detectParts detects the language of the texts read one after the other.
func (dt *detector) detectParts(prefer lang, texts ...string) lang {
	var hits [numLangs]int
	n := 0
	var buf []byte
	for _, text := range texts {
		if n >= dt.maxWords {
			break
		}
		// The words left to read fit in detectWordBytes each: the text
		// beyond is not scanned.
		if cut := min(maxDetectBytes, (dt.maxWords-n)*detectWordBytes); len(text) > cut {
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut]
		}
		scanWords(text, func(w string, upper, _ bool) {
			if n >= dt.maxWords {
				return
			}
			n++
			if upper {
				buf, w = lowerWord(buf, w)
			}
			if m := dt.stopMask(w); m != 0 {
				for l := langEn; l < numLangs; l++ {
					if m&(1<<l) != 0 {
						hits[l]++
					}
				}
				if dt.decisive > 0 && decided(&hits, dt.decisive) {
					n = dt.maxWords
				}
			}
		})
	}
	best, bestHits := prefer, 0
	if prefer != langNone {
		bestHits = hits[prefer]
	}
	for l := langEn; l < numLangs; l++ {
		if hits[l] > bestHits {
			best, bestHits = l, hits[l]
		}
	}
	if bestHits == 0 {
		return prefer
	}
	return best
}
