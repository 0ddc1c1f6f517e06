package relevance

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// NewIndex indexes docs with p. Parameters that fail Validate are replaced
// by their defaults. Docs keep their order; their names need not be unique.
//
// Every stem and pair of the indexed fields gets a dense id. Per doc, the
// index counts the weighted frequency of each term in the fields and the
// body, and how often each term occurs in the doc's whole text: how evenly
// a term spreads over the catalogue's skills says how generic it is (see
// Params.Generic). With the body indexed every word of it is a term, and
// one pass over the docs does; without, a first pass finds the fields'
// vocabulary so that the bodies of the docs before a term's first field
// count towards its spread.
func NewIndex(docs []Doc, p Params) *Index {
	p = sanitize(p)
	b := newBuilder(docs, p)
	create := p.BodyWeight > 0
	// Docs are read in name order, so that sums over docs, and with
	// them every score, do not depend on the order the skills were found
	// in.
	if !create {
		for _, d := range b.byName {
			b.vocabulary(int(d))
		}
	}
	b.startCounts()
	for _, d := range b.byName {
		b.count(int(d), create)
	}
	return b.finish()
}

// builder holds the work space of NewIndex.
type builder struct {
	ix   *Index
	docs []Doc
	p    Params
	// lang is the language of the doc being read, st its stemmer, alt
	// the ids of the accent-free stems of its words (stemOf's alt).
	lang lang
	st   *stemmer
	sts  [numLangs]*stemmer
	alt  [numLangs]map[string]int32
	// names are the catalogue's hyphenated skill names, lower-cased:
	// a body naming another skill says nothing about its own words.
	names map[string]bool
	// bodySurface maps body words the fields never used to their stem
	// id, -1 when they are no term; only the build needs it.
	bodySurface [numLangs]map[string]int32
	lowBuf      []byte

	// Per doc: weighted field frequency, weighted body frequency and raw
	// occurrences in the whole text, by term id, with the ids touched.
	acc     [numSlots][]float32 // by slot: weighted frequency
	occ     []float32
	touched []int32
	lens    [numSlots]float64
	textLen float64

	// Postings are gathered in chunks (so that growing never copies) in
	// doc order, then grouped by term with a counting sort.
	flat      [][]flatPosting
	chunk     []flatPosting
	nflat     int
	docLens   [numSlots][]float64
	spreadSum []float64 // by term: Σ r over docs, r = occurrences / text length
	spreadLog []float64 // by term: Σ r·ln r
	parts     [][2]int32
	generic   map[int32]bool // stems of generic words
	inName    []int32        // the terms (stems and pairs) of the doc's name
	byName    []int32        // doc indexes in name order
	counting  bool           // the counting arrays grow with new terms
}

const flatChunk = 1 << 15

// flatPosting is one term's counts in one doc. A term of the doc's name
// has a negative short-field count (its magnitude is the count): the
// flag costs no memory per posting.
type flatPosting struct {
	term, doc int32
	tf        [numSlots]float32
}

// The fields of a doc, and the slots their counts go to: the three short
// fields are one BM25F field, with one length normalisation; the body has
// its own.
const (
	fieldName = iota
	fieldDescription
	fieldHeadings

	slotShort = 0
	slotBody  = 1
	numSlots  = 2
)

func newBuilder(docs []Doc, p Params) *builder {
	ix := &Index{
		params:  p,
		names:   make([]string, len(docs)),
		ids:     make(map[string]int32, 1024),
		pairs:   make(map[uint64]int32, 4096),
		norm:    make([]float64, len(docs)),
		docLang: make([]lang, len(docs)),
	}
	b := &builder{ix: ix, docs: docs, p: p, names: map[string]bool{}, generic: map[int32]bool{}}
	var count [numLangs]int
	det := detector{cache: map[string]uint16{}, maxWords: maxDocDetectWords, decisive: 8}
	for d, doc := range docs {
		ix.names[d] = doc.Name
		if strings.ContainsAny(doc.Name, "-_") {
			b.names[strings.ToLower(doc.Name)] = true
		}
		l, declared := parseLanguage(doc.Language)
		if !declared {
			l = docLanguage(&det, doc, b.body(d))
		}
		ix.docLang[d] = l
		count[l]++
		if b.sts[l] == nil {
			ix.surface[l] = make(map[string]int32, 2048)
			ix.stems[l] = make(map[string]stemmed, 1024)
			b.sts[l] = &stemmer{lang: l, cache: ix.stems[l]}
			b.alt[l] = map[string]int32{}
			b.bodySurface[l] = map[string]int32{}
		}
	}
	b.byName = make([]int32, len(docs))
	for i := range b.byName {
		b.byName[i] = int32(i)
	}
	slices.SortStableFunc(b.byName, func(a, c int32) int { return strings.Compare(ix.names[a], ix.names[c]) })
	// The languages in use, most docs first: a query tries each.
	for l := langNone; l < numLangs; l++ {
		if count[l] > 0 {
			ix.langs = append(ix.langs, l)
		}
	}
	slices.SortStableFunc(ix.langs, func(a, c lang) int { return count[c] - count[a] })
	return b
}

// docLanguage detects a doc's language from its description, headings
// and the start of its body (the detector reads its first
// maxDocDetectWords words).
func docLanguage(det *detector, doc Doc, body string) lang {
	parts := make([]string, 0, 2+len(doc.Headings))
	parts = append(parts, doc.Description)
	parts = append(parts, doc.Headings...)
	parts = append(parts, body[:min(len(body), maxDocDetectBytes)])
	return det.detectParts(langEn, parts...)
}

// bodyBudget bounds the body text the index reads, over the whole
// catalogue: each body up to its share, bodyBudget / N bytes (whole
// bodies of 10 KB up to 200 skills; the first 2 KB of each of 1,000,
// 200 bytes of each of 10,000). Reading every word of 10,000 bodies of
// 5 KB took NewIndex from 0.19 to 1.5 s of CPU.
const bodyBudget = 2 << 20

// body returns the part of doc d's body the index reads: at most its
// share of bodyBudget, cut at a space.
func (b *builder) body(d int) string {
	body := b.docs[d].Body
	c := bodyBudget / max(1, len(b.docs))
	if len(body) <= c {
		return body
	}
	if i := strings.LastIndexAny(body[:c+1], " \t\n"); i > 0 {
		return body[:i]
	}
	for c > 0 && !utf8.RuneStart(body[c]) {
		c--
	}
	return body[:c]
}

// setDoc makes d the doc being read.
func (b *builder) setDoc(d int) {
	b.lang = b.ix.docLang[d]
	b.st = b.sts[b.lang]
}

func (b *builder) newTerm(t string, a, c int32) int32 {
	id := int32(len(b.ix.terms))
	b.ix.terms = append(b.ix.terms, t)
	b.parts = append(b.parts, [2]int32{a, c})
	if b.counting {
		for k := range numSlots {
			b.acc[k] = append(b.acc[k], 0)
		}
		b.occ = append(b.occ, 0)
		b.spreadSum = append(b.spreadSum, 0)
		b.spreadLog = append(b.spreadLog, 0)
	}
	return id
}

// fieldWord returns the stem id of a word of an indexed field as written
// in the current doc's language, creating it when create is set; -1 for a
// stop word. The id of the word's accent-free stem, when it has one, is
// in b.alt.
func (b *builder) fieldWord(s string, upper, create bool) int32 {
	ix := b.ix
	surface := ix.surface[b.lang]
	if id, ok := surface[s]; ok {
		return id
	}
	low := s
	if upper {
		b.lowBuf, low = lowerWord(b.lowBuf, s)
	}
	id := int32(-1)
	if b.lang.keep(low) {
		st := b.st.stem(low)
		id = b.stemID(st.term, create)
		if id >= 0 && b.lang.isGeneric(low) {
			b.generic[id] = true
		}
		if st.alt != "" {
			if a := b.stemID(st.alt, create); a >= 0 && a != id {
				b.alt[b.lang][strings.Clone(s)] = a
			}
		}
	}
	surface[strings.Clone(s)] = id
	return id
}

// stemID returns the id of a stem, creating it when create is set; -1 when
// it does not exist.
func (b *builder) stemID(stem string, create bool) int32 {
	if id, ok := b.ix.ids[stem]; ok {
		return id
	}
	if !create {
		return -1
	}
	id := b.newTerm(stem, -1, -1)
	b.ix.ids[stem] = id
	return id
}

// pairID returns the id of the pair (a, c), creating it when create is set;
// -1 when it does not exist.
func (b *builder) pairID(a, c int32, create bool) int32 {
	k := pairKey(a, c)
	if pid, ok := b.ix.pairs[k]; ok {
		return pid
	}
	if !create {
		return -1
	}
	pid := b.newTerm(b.ix.terms[a]+PairSep+b.ix.terms[c], a, c)
	b.ix.pairs[k] = pid
	return pid
}

// fields calls fn with each indexed field text of doc d, the field and
// its weight.
func (b *builder) fields(d int, fn func(text string, field int, w float64)) {
	doc, p := b.docs[d], b.p
	if p.NameWeight > 0 {
		fn(doc.Name, fieldName, p.NameWeight)
	}
	if p.DescriptionWeight > 0 {
		if p.IndexNegativeSentences {
			fn(doc.Description, fieldDescription, p.DescriptionWeight)
		} else {
			// Sentence by sentence: each ends with a phrase break, so no
			// pair spans two sentences either way.
			forSentences(doc.Description, func(s string, negative bool) {
				if !negative {
					fn(s, fieldDescription, p.DescriptionWeight)
				}
			})
		}
	}
	if p.HeadingWeight > 0 {
		forIndexedHeadings(doc.Headings, doc.Levels, func(h string) { fn(h, fieldHeadings, p.HeadingWeight) })
	}
}

// vocabulary gives ids to the terms of doc d's indexed fields.
func (b *builder) vocabulary(d int) {
	b.setDoc(d)
	b.fields(d, func(text string, _ int, _ float64) {
		prev := int32(-1)
		scanWords(text, func(s string, upper, brk bool) {
			if brk {
				prev = -1
			}
			id := b.fieldWord(s, upper, true)
			if id < 0 {
				return // a stop word: pairs span it
			}
			if prev >= 0 && b.p.PairWeight > 0 {
				b.pairID(prev, id, true)
			}
			prev = id
		})
	})
}

// bodyWords calls fn for each word of text that is not part of another
// skill's name.
func (b *builder) bodyWords(text string, fn func(s string, upper bool)) {
	// ASCII words are cut here; a token holding other characters goes
	// through scanWords, which knows scripts and marks.
	scanTokens(text, func(tok string, joined, ascii bool) {
		if joined && len(b.names) > 0 {
			low := tok
			for i := 0; i < len(tok); i++ {
				if 'A' <= tok[i] && tok[i] <= 'Z' || tok[i] >= 0x80 {
					low = strings.ToLower(tok)
					break
				}
			}
			if b.names[low] {
				return
			}
		}
		if !ascii {
			scanWords(tok, func(s string, upper, _ bool) { fn(s, upper) })
			return
		}
		start, upper := -1, false
		for i := 0; i <= len(tok); i++ {
			if i < len(tok) && tok[i] != '-' && tok[i] != '_' {
				if start < 0 {
					start, upper = i, false
				}
				if 'A' <= tok[i] && tok[i] <= 'Z' {
					upper = true
				}
				continue
			}
			if start >= 0 {
				fn(tok[start:i], upper)
				start = -1
			}
		}
	})
}

// Values of bodySurface besides term ids.
const (
	stopWord    = -1 // a stop word
	contentWord = -3 // a content word no indexed field uses
)

// bodyTerm returns the stem id of a body word, stopWord or contentWord.
func (b *builder) bodyTerm(s string, upper bool) int32 {
	if id, ok := b.ix.surface[b.lang][s]; ok {
		return id
	}
	if id, ok := b.bodySurface[b.lang][s]; ok {
		return id
	}
	low := s
	if upper {
		b.lowBuf, low = lowerWord(b.lowBuf, s)
	}
	id := int32(stopWord)
	if b.lang.keep(low) {
		id = contentWord
		if t, ok := b.ix.ids[b.st.stem(low).term]; ok {
			id = t
		}
	}
	b.bodySurface[b.lang][strings.Clone(s)] = id
	return id
}

func (b *builder) startCounts() {
	n := len(b.ix.terms)
	for k := range numSlots {
		b.acc[k] = make([]float32, n)
		b.docLens[k] = make([]float64, len(b.docs))
	}
	b.occ = make([]float32, n)
	b.spreadSum = make([]float64, n)
	b.spreadLog = make([]float64, n)
	b.chunk = make([]flatPosting, 0, min(flatChunk, max(256, 64*len(b.docs))))
	b.counting = true
}

func (b *builder) touch(id int32) {
	if b.occ[id] == 0 && b.acc[slotShort][id] == 0 && b.acc[slotBody][id] == 0 {
		b.touched = append(b.touched, id)
	}
}

// count adds doc d's postings and its share of each term's spread,
// creating the terms of its fields and of its indexed body when create is
// set.
func (b *builder) count(d int, create bool) {
	b.setDoc(d)
	alt := b.alt[b.lang]
	b.touched = b.touched[:0]
	b.lens = [numSlots]float64{}
	b.textLen = 0
	b.inName = b.inName[:0]
	b.fields(d, func(text string, field int, w float64) {
		prev := int32(-1)
		scanWords(text, func(s string, upper, brk bool) {
			if brk {
				prev = -1
			}
			id := b.fieldWord(s, upper, create)
			if id < 0 {
				return
			}
			if field == fieldName {
				b.inName = append(b.inName, id)
			}
			b.touch(id)
			b.acc[slotShort][id] += float32(w)
			b.occ[id]++
			b.lens[slotShort] += w
			b.textLen++
			if len(alt) > 0 {
				if a, ok := alt[s]; ok {
					b.touch(a)
					b.acc[slotShort][a] += float32(w)
					b.occ[a]++
				}
			}
			if prev >= 0 && b.p.PairWeight > 0 {
				if pid := b.pairID(prev, id, create); pid >= 0 {
					if field == fieldName {
						b.inName = append(b.inName, pid)
					}
					b.touch(pid)
					b.acc[slotShort][pid] += float32(w * b.p.PairWeight)
					b.lens[slotShort] += w * b.p.PairWeight
				}
			}
			prev = id
		})
	})
	forBodySections(b.body(d), func(text string, negative bool) {
		indexed := b.p.BodyWeight > 0 && !negative
		b.bodyWords(text, func(s string, upper bool) {
			var id int32
			if create && indexed {
				id = b.fieldWord(s, upper, true)
			} else {
				id = b.bodyTerm(s, upper)
			}
			if id == stopWord {
				return
			}
			b.textLen++
			if id < 0 {
				return
			}
			b.touch(id)
			b.occ[id]++
			if indexed {
				b.acc[slotBody][id] += float32(b.p.BodyWeight)
				b.lens[slotBody] += b.p.BodyWeight
			}
			if len(alt) > 0 {
				if a, ok := alt[s]; ok {
					b.touch(a)
					b.occ[a]++
					if indexed {
						b.acc[slotBody][a] += float32(b.p.BodyWeight)
					}
				}
			}
		})
	})
	for _, id := range b.touched {
		var tf [numSlots]float32
		any := false
		for k := range numSlots {
			tf[k] = b.acc[k][id]
			any = any || tf[k] > 0
			b.acc[k][id] = 0
		}
		if any {
			if len(b.chunk) == cap(b.chunk) {
				b.flat = append(b.flat, b.chunk)
				b.chunk = make([]flatPosting, 0, flatChunk)
			}
			if tf[slotShort] > 0 && slices.Contains(b.inName, id) {
				tf[slotShort] = -tf[slotShort]
			}
			b.chunk = append(b.chunk, flatPosting{term: id, doc: int32(d), tf: tf})
			b.nflat++
		}
		if o := b.occ[id]; o > 0 && b.textLen > 0 {
			r := float64(o) / b.textLen
			b.spreadSum[id] += r
			b.spreadLog[id] += r * math.Log(r)
		}
		b.occ[id] = 0
	}
	for k := range numSlots {
		b.docLens[k][d] = b.lens[k]
	}
}

// Flags of a posting while the index is finished.
const (
	bodyOnly = 1 << iota // the term is in the doc's body only
	named                // the term is in the doc's name
)

// spreadPrior is the pseudo-count of specificity's shrinkage.
const spreadPrior = 20

// specificity returns 1 − H, H the entropy of term id's relative
// frequency over the docs divided by ln N: 1 for a term one doc holds, 0
// for one every doc uses at the same rate.
func (b *builder) specificity(id int32, n int) float64 {
	if n < 2 {
		return 1
	}
	R := b.spreadSum[id]
	if R <= 0 {
		return 1
	}
	h := (math.Log(R) - b.spreadLog[id]/R) / math.Log(float64(n))
	// A small catalogue says little about how common a word is: the
	// entropy is shrunk towards 0 by N/(N + spreadPrior).
	h *= float64(n) / (float64(n) + spreadPrior)
	return min(1, max(0, 1-h))
}

func (b *builder) finish() *Index {
	ix, p := b.ix, b.p
	nd := len(b.docs)
	// Length normalisation: the short fields against their average
	// length, the body against the average body.
	avgShort, avgBody := average(b.docLens[slotShort]), average(b.docLens[slotBody])
	bodyNorm := make([]float64, nd)
	for d := range nd {
		ix.norm[d] = 1 - p.B + p.B*b.docLens[slotShort][d]/avgShort
		bodyNorm[d] = 1 - p.BodyB + p.BodyB*b.docLens[slotBody][d]/avgBody
	}
	ix.nameRank = make([]int32, nd)
	for r, d := range b.byName {
		ix.nameRank[d] = int32(r)
	}
	nt := len(ix.terms)
	b.flat = append(b.flat, b.chunk)
	b.chunk = nil
	start := make([]int32, nt+1)
	for _, c := range b.flat {
		for _, f := range c {
			start[f.term+1]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	all := make([]posting, b.nflat)
	// By posting: bodyOnly or named.
	flags := make([]uint8, b.nflat)
	nameDF := make([]int32, nt)
	next := slices.Clone(start[:nt])
	for ci, c := range b.flat {
		for _, f := range c {
			i := next[f.term]
			// w holds the normalised frequency until the weights are known.
			short := f.tf[slotShort]
			if short < 0 {
				short = -short
				flags[i] |= named
				nameDF[f.term]++
			}
			tf := float64(short) / ix.norm[f.doc]
			if f.tf[slotBody] > 0 {
				tf += float64(f.tf[slotBody]) / bodyNorm[f.doc]
			}
			all[i] = posting{doc: f.doc, w: float32(tf)}
			if short == 0 {
				flags[i] |= bodyOnly
			}
			next[f.term]++
		}
		b.flat[ci] = nil
	}
	// A unigram's weight factor comes from its spread (Params.Generic)
	// and from being a generic word of its language
	// (Params.GenericWordWeight); a pair weighs as much as the more
	// specific of its stems.
	factor := make([]float64, nt)
	spec := make([]float64, nt)
	for id := range nt {
		if b.parts[id][0] < 0 {
			spec[id] = b.specificity(int32(id), nd)
			factor[id] = genericFactor(spec[id], p.Generic)
			if b.generic[int32(id)] {
				factor[id] *= p.GenericWordWeight
			}
		}
	}
	// prior is the part of factor that does not come from the spread: the
	// generic-word weight. Rank scales its scores so that the best skill
	// scores what it would without the spread (see Rank).
	prior := make([]float64, nt)
	for id := range nt {
		prior[id] = 1
		if b.generic[int32(id)] {
			prior[id] = p.GenericWordWeight
		}
	}
	for id, pr := range b.parts {
		if pr[0] >= 0 {
			spec[id] = max(spec[pr[0]], spec[pr[1]])
			factor[id] = max(factor[pr[0]], factor[pr[1]])
			prior[id] = max(prior[pr[0]], prior[pr[1]])
		}
	}
	ix.evidence = make([]float32, nt)
	for id := range nt {
		if factor[id] > 0 {
			ix.evidence[id] = float32(prior[id] / factor[id])
		}
	}
	b.flat = nil
	n := float64(nd)
	ix.postings = make([][]posting, nt)
	ix.idf = make([]float64, nt)
	for id := range nt {
		ps := all[start[id]:start[id+1]:start[id+1]]
		ix.postings[id] = ps
		// idf counts the skills that hold the term, each with the weight
		// of the field holding it, at most 1: a skill that describes
		// itself with a word holds it; one that only mentions it in its
		// body holds it BodyWeight. (Counting a body mention as a whole
		// skill drowned a pack's topic words: in testdata/pack seven of
		// eight bodies say "commit", and format-commit-message no longer
		// ranked for "Commit it.")
		bodyDF := min(1, p.BodyWeight)
		df := 0.0
		for i := range ps {
			if flags[int(start[id])+i]&bodyOnly != 0 {
				df += bodyDF
			} else {
				df++
			}
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		ix.idf[id] = idf
		w := idf * factor[id]
		// A skill whose name holds the term is weighed by how few names
		// hold it, when that says more than the spread over the texts.
		nw, nf := w, factor[id]
		if nameDF[id] > 0 && nd > 1 && p.NameSpread > 0 {
			sn := 1 - math.Log(float64(nameDF[id]))/math.Log(n)
			if sn > spec[id] {
				nf = genericFactor(spec[id]+min(1, p.NameSpread)*(sn-spec[id]), p.Generic) * prior[id]
				nw = idf * nf
			}
		}
		for i := range ps {
			tf := float64(ps[i].w)
			ww := w
			if flags[int(start[id])+i]&named != 0 && nw != w {
				ww = nw
				if ix.nameEvidence == nil {
					ix.nameEvidence = map[uint64]float32{}
				}
				ix.nameEvidence[pairKey(ps[i].doc, int32(id))] = float32(prior[id] / nf)
			}
			ps[i].w = float32(ww * tf * (p.K1 + 1) / (tf + p.K1))
		}
	}
	return ix
}

// genericFactor is the weight left to a term of specificity s by a
// generic damping of strength g: s^g (1 when g is 0).
func genericFactor(s, g float64) float64 {
	if g == 0 {
		return 1
	}
	return math.Pow(s, g)
}

func average(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	if len(xs) == 0 || t <= 0 {
		return 1
	}
	return t / float64(len(xs))
}
