package relevance

import (
	"bytes"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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

// cueOf says whether a folded word is a load verb or a negator (the keys
// of loadVerbs and negators; TestCueOf keeps them in step). A switch on
// the bytes costs no allocation and no hashing.
func cueOf(w []byte) uint8 {
	switch string(w) {
	case "load", "loads", "loading", "reload", "reloads",
		"invoke", "invokes", "invoking",
		"call", "calls", "calling",
		"use", "uses", "using",
		"run", "runs", "running",
		"dispatch", "dispatches", "dispatching",
		"delegate", "delegates", "delegating",
		"route", "routes", "routing",
		"hand", "hands", "handoff":
		return cueVerb
	case "not", "never", "no", "nor", "without", "avoid", "avoiding", "cannot",
		"dont", "doesnt", "didnt", "mustnt", "shouldnt", "wont", "cant",
		"neednt", "isnt", "arent":
		return cueNegator
	}
	return 0
}

// trimToken drops hyphens, underscores and apostrophes around a token and
// a possessive "'s".
func trimToken(t string) string {
	// Most tokens start and end with an ASCII letter or digit, and do
	// not end in "'s" or "’s": nothing to trim.
	if n := len(t); n > 0 && asciiWord[t[0]] && asciiWord[t[n-1]] && (t[n-1] != 's' || n < 2 || (t[n-2] != '\'' && t[n-2] != 0x99)) {
		return t
	}
	for {
		n := len(t)
		t = strings.TrimSuffix(strings.TrimSuffix(t, "'s"), "\u2019s")
		for len(t) > 0 && (t[0] == '-' || t[0] == '_' || t[0] == '\'') {
			t = t[1:]
		}
		for len(t) > 0 && (t[len(t)-1] == '-' || t[len(t)-1] == '_' || t[len(t)-1] == '\'') {
			t = t[:len(t)-1]
		}
		t = strings.TrimPrefix(strings.TrimSuffix(t, "\u2019"), "\u2019")
		if len(t) == n {
			return t
		}
	}
}

// Kinds of cue words, and the length of the longest.
const (
	cueVerb    = 1
	cueNegator = 2
	maxCueLen  = 12
)

const (
	// negationWindow is how many words before a load verb a negator may
	// stand ("do not ever load": 2).
	negationWindow = 3
	// callReach is how many words after a load verb, or after the
	// previous skill of a list ("load a, b or c"), a skill name may stand
	// and still be called.
	callReach = 12
)

// nameSet maps lower-cased skill names to their canonical spelling;
// oneWord is set when some name has no hyphen.
type nameSet struct {
	m       map[string]string
	oneWord bool
}

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
	all := make([]string, len(bodies))
	for i, b := range bodies {
		all[i] = b.Name
	}
	names := newNameSet(all)
	// A repeated name: the first body is the skill. The bodies are
	// scanned by one worker per CPU, each with its own scanner.
	first := make([]int, 0, len(bodies))
	seen := make(map[string]bool, len(bodies))
	for i, b := range bodies {
		if !seen[b.Name] {
			seen[b.Name] = true
			first = append(first, i)
		}
	}
	refs := make([]Refs, len(first))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(1, len(first)/256)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sc scanner
			for {
				k := int(next.Add(1)) - 1
				if k >= len(first) {
					return
				}
				b := bodies[first[k]]
				refs[k] = sc.scan(b.Name, b.Text, names)
			}
		}()
	}
	wg.Wait()
	out := make(map[string]Refs, len(first))
	for k, i := range first {
		out[bodies[i].Name] = refs[k]
	}
	return out
}

// newNameSet is the set of names, the first of those that differ only
// in case keeping its spelling ("" ignored).
func newNameSet(all []string) nameSet {
	names := nameSet{m: make(map[string]string, len(all))}
	for _, n := range all {
		if n != "" {
			low := strings.ToLower(n)
			if _, dup := names.m[low]; !dup {
				names.m[low] = n
			}
			if !strings.Contains(low, "-") {
				names.oneWord = true
			}
		}
	}
	return names
}

// RefFinder finds the cross-references of one body at a time, as
// CrossRefs does over bodies of the given names: CrossRefs(bodies)[b.Name]
// is Refs(b.Name, b.Text) for the first body of each name. It lets a
// caller scan each body where it reads it. A RefFinder is for one
// goroutine; Fork gives another over the same names.
type RefFinder struct {
	names *nameSet
	sc    scanner
}

// NewRefFinder returns a RefFinder for bodies named names, in their
// order (of names differing only in case, the first is the skill's).
func NewRefFinder(names []string) *RefFinder {
	ns := newNameSet(names)
	return &RefFinder{names: &ns}
}

// Fork returns a RefFinder over f's names for another goroutine.
func (f *RefFinder) Fork() *RefFinder { return &RefFinder{names: f.names} }

// Refs are the skills the body text of skill self names and loads.
func (f *RefFinder) Refs(self, text string) Refs { return f.sc.scan(self, text, *f.names) }

// scanner keeps its buffers between bodies.
type scanner struct {
	lower         []byte
	named, loaded []string // with repeats
}

func (sc *scanner) scan(self, text string, names nameSet) Refs {
	sc.named, sc.loaded = sc.named[:0], sc.loaded[:0]
	c := cursor{lineStart: true}
	c.reset()
	if names.oneWord {
		sc.run(&c, self, text, names, len(text))
		return Refs{Names: sorted(sc.named), Loads: sorted(sc.loaded)}
	}
	// Every name has a hyphen: only the clauses holding a hyphenated
	// name need reading word by word. What a clause finds depends on
	// nothing before it (a clause starts afresh), so the scan jumps to
	// the last clause start before each such name.
	for from := 0; ; {
		start, end := nextHyphenName(text, from, self, names, &sc.lower)
		if start < 0 {
			break
		}
		if r := lastClauseStart(text, c.i, start); r >= 0 {
			c = cursor{i: r}
			c.reset()
		}
		sc.run(&c, self, text, names, end)
		from = end
	}
	return Refs{Names: sorted(sc.named), Loads: sorted(sc.loaded)}
}

// cursor is where a scan stands in a body, and its clause's state.
type cursor struct {
	i         int  // byte offset
	lineStart bool // i opens a line
	pos       int  // word counter
	verbPos   int  // position of the active load verb, or of the last name after it
	verbNeg   bool // the active verb is negated
	prevVerb  int  // position of the previous verb
	negPos    int  // position of the last negator
}

// reset starts a clause.
func (c *cursor) reset() { c.verbPos, c.prevVerb, c.negPos, c.verbNeg = -1<<30, -1<<30, -1<<30, false }

// run scans text from the cursor until the offset stop, a word's end.
func (sc *scanner) run(c *cursor, self, text string, names nameSet, stop int) {
	i, lineStart, pos, verbPos, verbNeg, prevVerb, negPos := c.i, c.lineStart, c.pos, c.verbPos, c.verbNeg, c.prevVerb, c.negPos
	reset := func() { verbPos, prevVerb, negPos, verbNeg = -1<<30, -1<<30, -1<<30, false }
	defer func() {
		c.i, c.lineStart, c.pos, c.verbPos, c.verbNeg, c.prevVerb, c.negPos = i, lineStart, pos, verbPos, verbNeg, prevVerb, negPos
	}()
	for i < stop {
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
		if r < utf8.RuneSelf && asciiName[r] || r >= utf8.RuneSelf && isNameRune(r) {
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
			tok := trimToken(text[start:i])
			if tok == "" {
				continue
			}
			low, hyphenated := sc.fold(tok)
			// A skill name? One-word names only in backticks or before
			// "skill".
			if hyphenated || names.oneWord {
				if canon, ok := names.m[string(low)]; ok && canon != self &&
					(hyphenated || backticked(text, start, i) || nextWordIsSkill(text, i)) {
					sc.named = append(sc.named, canon)
					if pos-verbPos <= callReach {
						if !verbNeg {
							sc.loaded = append(sc.loaded, canon)
						}
						verbPos = pos // lists go on: "load a, b or c"
					}
					pos++
					continue
				}
			}
			// Hyphenated words like auto-load: the last part decides.
			word := low
			for k := len(word) - 1; k >= 0; k-- {
				if word[k] == '-' || word[k] == '_' {
					word = word[k+1:]
					break
				}
			}
			if len(word) <= maxCueLen {
				switch cueOf(word) {
				case cueNegator:
					negPos = pos
				case cueVerb:
					verbNeg = negPos > prevVerb && pos-negPos <= negationWindow
					prevVerb, verbPos = pos, pos
				}
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
}

// nextHyphenName finds the first word of text at or after from that is
// a hyphenated name of names other than self, as the scan cuts and folds
// words, and returns its offsets (-1, -1: none). buf is fold's buffer.
func nextHyphenName(text string, from int, self string, names nameSet, buf *[]byte) (start, end int) {
	for from < len(text) {
		h := strings.IndexByte(text[from:], '-')
		if h < 0 {
			break
		}
		h += from
		start, end = h, h+1
		for start > 0 {
			if c := text[start-1]; c < utf8.RuneSelf {
				if !asciiName[c] {
					break
				}
				start--
				continue
			}
			r, size := utf8.DecodeLastRuneInString(text[:start])
			if !isNameRune(r) {
				break
			}
			start -= size
		}
		for end < len(text) {
			if c := text[end]; c < utf8.RuneSelf {
				if !asciiName[c] {
					break
				}
				end++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[end:])
			if !isNameRune(r) {
				break
			}
			end += size
		}
		from = end
		if tok := trimToken(text[start:end]); tok != "" {
			sc := scanner{lower: *buf}
			low, hyphenated := sc.fold(tok)
			*buf = sc.lower
			if canon, ok := names.m[string(low)]; ok && hyphenated && canon != self {
				return start, end
			}
		}
	}
	return -1, -1
}

// lastClauseStart is the offset in [lo, hi) after which the scan of
// text starts a clause afresh and is not at a line's start, the last
// before hi (-1: none): after a sentence's end, ";" or "|", and where a
// blank line, a list item, a heading, a quote or a table row opens (run
// resets there).
func lastClauseStart(text string, lo, hi int) int {
	for k := hi - 1; k >= lo; k-- {
		switch text[k] {
		case ';', '|':
			return k + 1
		case '.', '!', '?':
			if k+1 >= len(text) || isSpaceByte(text[k+1]) {
				return k + 1
			}
		case '\n':
			j := k + 1
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			if j >= len(text) || text[j] == '\n' || text[j] == '\r' || strings.IndexByte("-*+#>|", text[j]) >= 0 {
				return j
			}
		}
	}
	return -1
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' }

// asciiName marks the ASCII bytes for which isNameRune holds.
var asciiName = func() (t [utf8.RuneSelf]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = isNameRune(rune(c))
	}
	return t
}()

// asciiWord marks the ASCII letters and digits.
var asciiWord = func() (t [256]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
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

// fold returns tok lower-cased without apostrophes, in the scanner's
// buffer (valid until the next call), and whether it holds a hyphen.
func (sc *scanner) fold(tok string) (low []byte, hyphen bool) {
	sc.lower = append(sc.lower[:0], tok...)
	low = sc.lower
	n := 0
	for i := 0; i < len(low); i++ {
		c := low[i]
		if c >= utf8.RuneSelf {
			// Rare: fold the whole token the Unicode way.
			sc.lower = append(sc.lower[:0], strings.ToLower(strings.ReplaceAll(tok, "’", ""))...)
			sc.lower = bytes.ReplaceAll(sc.lower, []byte("'"), nil)
			return sc.lower, bytes.IndexByte(sc.lower, '-') >= 0
		}
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == '\'':
			continue
		case c == '-':
			hyphen = true
		}
		low[n] = c
		n++
	}
	return low[:n], hyphen
}

// sorted is a sorted copy of names without repeats (never nil).
func sorted(names []string) []string {
	if len(names) == 0 {
		return []string{}
	}
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Clip(slices.Compact(out))
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
