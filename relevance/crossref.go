package relevance

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Body is a skill's name and the markdown body it gives the model.
type Body struct {
	Name string
	Text string
}

// Refs are the other skills one body mentions.
type Refs struct {
	// Names are the skills the body names, sorted, itself excluded.
	Names []string `json:"names"`
	// Loads are the named skills the body tells the model to load (a
	// subset of Names), sorted.
	Loads []string `json:"loads"`
}

// loadVerbs introduce a call: a skill named after one of them, in the same
// clause and not too far after it, is one the body tells the model to load.
// "→" counts too, as in a routing list ("Export → `export-ml-project`").
var loadVerbs = map[string]bool{
	"load": true, "loads": true, "loading": true, "reload": true, "reloads": true,
	"invoke": true, "invokes": true, "invoking": true,
	"call": true, "calls": true, "calling": true,
	"use": true, "uses": true, "using": true,
	"run": true, "runs": true, "running": true,
	"dispatch": true, "dispatches": true, "dispatching": true,
	"delegate": true, "delegates": true, "delegating": true,
	"route": true, "routes": true, "routing": true,
	"hand": true, "hands": true, "handoff": true,
	"→": true, "=>": true,
}

// negators before a load verb make a prohibition ("Do not load x", "never
// load x", "don't use x", "avoid calling x").
var negators = map[string]bool{
	"not": true, "never": true, "no": true, "nor": true, "without": true,
	"avoid": true, "avoiding": true, "cannot": true, "dont": true,
	"doesnt": true, "didnt": true, "mustnt": true, "shouldnt": true,
	"wont": true, "cant": true, "neednt": true, "isnt": true, "arent": true,
}

const (
	// negationWindow is how many words before a load verb a negator may
	// stand ("do not ever load": 2).
	negationWindow = 3
	// callReach is how many words after a load verb, or after the
	// previous skill of a list ("load a, b or c"), a skill name may stand
	// and still be called.
	callReach = 12
)

// nameSet maps lower-cased skill names to their canonical spelling.
type nameSet map[string]string

// CrossRefs reads every body once and reports, for each skill, the other
// skills it names and those it tells the model to load. Names are found by
// cutting the body into candidate tokens (runs of letters, digits, hyphens
// and underscores) and looking each up in a set of all names, so the work
// grows with the total size of the bodies, not with the number of pairs of
// skills. A name without a hyphen is counted only in backticks or before
// the word "skill", so a skill called "plot" is not found in every use of
// the word.
//
// A named skill is a call when a load verb (load, invoke, call, use, run,
// dispatch, delegate, route, hand off, "→") precedes it in the same clause,
// within a few words or as part of a list after the verb. A negator (not,
// never, no, without, avoid, don't and the like) up to three words before
// the verb makes it a prohibition, not a call, even across a line break.
// Clauses end at ". ", ";", "!", "?", table cells, blank lines, list items
// and headings.
func CrossRefs(bodies []Body) map[string]Refs {
	names := make(nameSet, len(bodies))
	for _, b := range bodies {
		if b.Name != "" {
			names[strings.ToLower(b.Name)] = b.Name
		}
	}
	out := make(map[string]Refs, len(bodies))
	var sc scanner
	for _, b := range bodies {
		if _, done := out[b.Name]; done {
			continue // a repeated name: the first body is the skill
		}
		out[b.Name] = sc.scan(b.Name, b.Text, names)
	}
	return out
}

// scanner keeps its buffers between bodies.
type scanner struct {
	lower         []byte
	named, loaded map[string]bool
}

func (sc *scanner) scan(self, text string, names nameSet) Refs {
	if sc.named == nil {
		sc.named, sc.loaded = map[string]bool{}, map[string]bool{}
	}
	clear(sc.named)
	clear(sc.loaded)
	pos := 0             // word counter
	verbPos := -1 << 30  // position of the active load verb, or of the last name after it
	verbNeg := false     // the active verb is negated
	prevVerb := -1 << 30 // position of the previous verb
	negPos := -1 << 30   // position of the last negator
	reset := func() { verbPos, prevVerb, negPos, verbNeg = -1<<30, -1<<30, -1<<30, false }

	i := 0
	lineStart := true
	for i < len(text) {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if lineStart {
			// Skip indentation, then look at how the line opens.
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			if j >= len(text) || text[j] == '\n' || text[j] == '\r' ||
				strings.ContainsRune("-*+#>|", rune(text[j])) {
				reset()
			}
			lineStart = false
			i = j
			continue
		}
		if r == '\n' {
			lineStart = true
			i += size
			continue
		}
		if isNameRune(r) {
			start := i
			for i < len(text) {
				if c := text[i]; c < utf8.RuneSelf {
					if !asciiName[c] {
						break
					}
					i++
					continue
				}
				r2, s2 := utf8.DecodeRuneInString(text[i:])
				if !isNameRune(r2) {
					break
				}
				i += s2
			}
			tok := strings.Trim(text[start:i], "-_'’")
			tok = strings.TrimSuffix(strings.TrimSuffix(tok, "'s"), "’s")
			if tok == "" {
				continue
			}
			low := sc.lowerASCII(tok)
			// A skill name?
			if canon, ok := names[low]; ok && canon != self {
				hyphenated := strings.ContainsRune(tok, '-')
				if hyphenated || backticked(text, start, i) || nextWordIsSkill(text, i) {
					sc.named[canon] = true
					if pos-verbPos <= callReach {
						if !verbNeg {
							sc.loaded[canon] = true
						}
						verbPos = pos // lists go on: "load a, b or c"
					}
					pos++
					continue
				}
			}
			// Hyphenated words like auto-load: the last part decides.
			word := low
			if k := strings.LastIndexAny(word, "-_"); k >= 0 {
				word = word[k+1:]
			}
			if strings.ContainsAny(word, "'’") {
				word = strings.NewReplacer("'", "", "’", "").Replace(word)
			}
			switch {
			case negators[word]:
				negPos = pos
			case loadVerbs[word]:
				verbNeg = negPos > prevVerb && pos-negPos <= negationWindow
				prevVerb, verbPos = pos, pos
			}
			pos++
			continue
		}
		switch r {
		case '.', '!', '?':
			if i+size >= len(text) || isSpaceByte(text[i+size]) {
				reset()
			}
		case ';', '|':
			reset()
		case '→':
			verbNeg = negPos > prevVerb && pos-negPos <= negationWindow
			prevVerb, verbPos = pos, pos
			pos++
		case '=':
			if i+1 < len(text) && text[i+1] == '>' {
				verbNeg = negPos > prevVerb && pos-negPos <= negationWindow
				prevVerb, verbPos = pos, pos
				pos++
				i++
			}
		}
		i += size
	}
	return Refs{Names: sortedKeys(sc.named), Loads: sortedKeys(sc.loaded)}
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// asciiName marks the ASCII bytes for which isNameRune holds.
var asciiName = func() (t [utf8.RuneSelf]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = isNameRune(rune(c))
	}
	return t
}()

// isNameRune reports whether r may be part of a skill name or a word:
// letters, digits, hyphens, underscores and apostrophes (for "don't").
func isNameRune(r rune) bool {
	return r == '-' || r == '_' || r == '\'' || r == '’' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// backticked reports whether text[start:end] sits right inside backticks.
func backticked(text string, start, end int) bool {
	return start > 0 && text[start-1] == '`' && end < len(text) && text[end] == '`'
}

// nextWordIsSkill reports whether the word after text[:end] is "skill".
func nextWordIsSkill(text string, end int) bool {
	j := end
	for j < len(text) && (text[j] == '`' || text[j] == ' ' || text[j] == '*' || text[j] == '"') {
		j++
	}
	rest := text[j:]
	if len(rest) < 5 || !strings.EqualFold(rest[:5], "skill") {
		return false
	}
	if len(rest) == 5 {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest[5:])
	return !unicode.IsLetter(r) || r == 's'
}

// lowerASCII returns s lower-cased, reusing a buffer when s is ASCII; the
// result is only valid until the next call.
func (sc *scanner) lowerASCII(s string) string {
	ascii, upper := true, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if 'A' <= c && c <= 'Z' {
			upper = true
		}
	}
	if !ascii {
		return strings.ToLower(s)
	}
	if !upper {
		return s
	}
	sc.lower = append(sc.lower[:0], s...)
	for i, c := range sc.lower {
		if 'A' <= c && c <= 'Z' {
			sc.lower[i] = c + 'a' - 'A'
		}
	}
	return string(sc.lower)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// LoadedBy inverts refs: for each skill, the skills whose bodies tell the
// model to load it, sorted.
func LoadedBy(refs map[string]Refs) map[string][]string {
	out := map[string][]string{}
	for caller, r := range refs {
		for _, callee := range r.Loads {
			out[callee] = append(out[callee], caller)
		}
	}
	for _, v := range out {
		slices.Sort(v)
	}
	return out
}

// EntrySource says where a pack's entry skill came from.
type EntrySource string

// Entry sources.
const (
	EntryNone     EntrySource = ""
	EntryDeclared EntrySource = "frontmatter" // metadata.role: entry
	EntryInferred EntrySource = "inferred"    // from cross-references
)

// Entry is the entry (router) skill of one folder of skills.
type Entry struct {
	Skill  string      `json:"skill"`
	Source EntrySource `json:"source"`
}

// Inference thresholds: the entry names at least EntryCoverage of the other
// skills of its folder, and at least EntryMargin times as many as the
// runner-up.
const (
	EntryCoverage = 0.75
	EntryMargin   = 1.5
)

// InferEntry returns the skill of members whose body names at least 75% of
// the other members and 1.5 times as many members as the runner-up does,
// or "" when no skill stands out so clearly (or the folder has fewer than
// two skills). refs comes from CrossRefs.
func InferEntry(members []string, refs map[string]Refs) string {
	if len(members) < 2 {
		return ""
	}
	in := make(map[string]bool, len(members))
	for _, m := range members {
		in[m] = true
	}
	best, bestN, second := "", -1, 0
	tie := false
	for _, m := range members {
		n := 0
		for _, other := range refs[m].Names {
			if other != m && in[other] {
				n++
			}
		}
		switch {
		case n > bestN:
			if bestN > second {
				second = bestN
			}
			best, bestN, tie = m, n, false
		case n == bestN:
			tie = true
			second = n
		case n > second:
			second = n
		}
	}
	others := float64(len(members) - 1)
	if tie || bestN <= 0 || float64(bestN) < EntryCoverage*others || float64(bestN) < EntryMargin*float64(second) {
		return ""
	}
	return best
}

// ChooseEntry picks the entry skill of a folder: the first of declared
// (skills of the folder whose frontmatter says metadata.role: entry, in
// folder order) when there is one, else the inferred entry when
// inference is on, else none.
func ChooseEntry(members []string, refs map[string]Refs, declared []string, infer bool) Entry {
	if len(declared) > 0 {
		return Entry{Skill: declared[0], Source: EntryDeclared}
	}
	if infer {
		if e := InferEntry(members, refs); e != "" {
			return Entry{Skill: e, Source: EntryInferred}
		}
	}
	return Entry{}
}
