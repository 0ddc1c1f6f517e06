package relevance

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// DefaultMinSignal is the best score below which a prompt carries no topic
// signal (the minSignal option's default).
const DefaultMinSignal = 2.0

// Params are the scoring parameters of an index.
//
// Each skill is one BM25F document. A term's frequency in a skill is the
// weighted sum of its counts in the three short fields (the name counts
// NameWeight times, the description DescriptionWeight times, each indexed
// heading HeadingWeight times), normalised by their weighted length (B),
// plus its weighted count in the body (BodyWeight), normalised by the
// body's length (BodyB); BM25's saturation (K1) applies to the sum.
// PairWeight scales the contribution of adjacent-stem pairs (of the short
// fields) relative to single stems. A term's weight is its idf times the
// factors of Generic and GenericWordWeight.
type Params struct {
	K1, B             float64
	NameWeight        float64
	DescriptionWeight float64
	HeadingWeight     float64
	PairWeight        float64
	// Damping scales every score of a prompt by q/(q + Damping), where q
	// is the number of distinct content stems in the prompt. The factor is
	// the same for every skill, so it never changes the order of a
	// ranking; it only makes a prompt of one or two content words ("Review.",
	// "Skip that.") need more evidence to count as a topic signal. 0 turns
	// it off.
	Damping float64
	// IndexNegativeSentences indexes a description whole. By default its
	// negative sentences ("SKIP …", "Do not …", "Not for …", see
	// NegativeSentence) are left out, as negative headings are.
	IndexNegativeSentences bool
	// Generic damps the terms the catalogue uses everywhere. A term's
	// specificity s is 1 − H/ln N, H the entropy of its relative
	// frequency (occurrences over text length) across the N skills' whole
	// texts, bodies included: 1 for a word one skill uses, 0 for one all
	// use at the same rate. Its weight is multiplied by s^Generic; 0
	// turns the damping off.
	Generic float64
	// BodyWeight is the weight of the body as a fourth field (0: not
	// indexed), with its own length normalisation BodyB. Negative
	// sections of the body and other skills' names are left out.
	BodyWeight float64
	BodyB      float64
	// GenericWordWeight multiplies the weight of the words of a language
	// that name no topic on their own ("want", "look", "like",
	// "something"; see genericEnglish), 1 leaving them as they are.
	GenericWordWeight float64
	// NameSpread weighs a term in a skill's name by how few of the
	// catalogue's names hold it, when that is more specific than its
	// spread over the texts. 0 turns it off.
	NameSpread float64
}

// DefaultParams returns the documented defaults: k1 = 1.2, b = 0.75,
// name ×3, description ×2, headings ×1, pairs ×1, body ×0.3 (body b 0.75),
// generic damping 2, generic words ×0.25, name spread 0.75.
func DefaultParams() Params {
	return Params{K1: 1.2, B: 0.75, NameWeight: 3, DescriptionWeight: 2, HeadingWeight: 1, PairWeight: 1, Damping: 1,
		Generic: 2, BodyWeight: 0.3, BodyB: 0.75, GenericWordWeight: 0.25, NameSpread: 0.75}
}

// Validate reports the first parameter out of range: weights and K1 must be
// finite and not negative, B must lie in [0, 1].
func (p Params) Validate() error {
	check := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("relevance: %s must be a finite number >= 0, got %v", name, v)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"k1", p.K1}, {"b", p.B}, {"name weight", p.NameWeight},
		{"description weight", p.DescriptionWeight}, {"heading weight", p.HeadingWeight},
		{"pair weight", p.PairWeight}, {"damping", p.Damping},
		{"generic", p.Generic}, {"body weight", p.BodyWeight}, {"body b", p.BodyB},
		{"generic word weight", p.GenericWordWeight}} {
		if err := check(f.name, f.v); err != nil {
			return err
		}
	}
	if p.B > 1 {
		return fmt.Errorf("relevance: b must lie in [0, 1], got %v", p.B)
	}
	if p.BodyB > 1 {
		return fmt.Errorf("relevance: body b must lie in [0, 1], got %v", p.BodyB)
	}
	return nil
}

// posting is one skill holding a term. While the index is built w is the
// term's weighted frequency in the skill; once built, it is the term's
// whole BM25 contribution to the skill's score but for the query's damping
// (it depends only on the term and the skill), so ranking only adds.
type posting struct {
	doc int32
	w   float32
}

// Index is a BM25 index of skills. It is immutable once built and safe for
// concurrent use.
//
// Terms have dense ids. Single stems are found by text (ids), pairs by the
// ids of their two stems (pairs), and the words met while indexing by
// their spelling as written (surface), so that indexing and most of a
// query's words cost one map lookup each and no allocation.
type Index struct {
	params   Params
	names    []string
	nameRank []int32                    // by doc: position of its name in name order
	terms    []string                   // by term id: a stem or "stem_stem"
	ids      map[string]int32           // single stem -> id
	pairs    map[uint64]int32           // id<<32 | id -> pair id
	surface  [numLangs]map[string]int32 // by language: word as written -> stem id, -1 for a dropped word
	postings [][]posting                // by term id
	idf      []float64                  // by term id
	norm     []float64                  // by doc: 1 - b + b*len/avglen of its fields
	evidence []float32                  // by term id: its weight without the spread over its weight
	// nameEvidence is the evidence of the postings of a term in a skill's
	// name weighed by the names' spread (Params.NameSpread), by
	// pairKey(doc, term).
	nameEvidence map[uint64]float32
	stems        [numLangs]map[string]stemmed
	docLang      []lang // by doc: its language
	langs        []lang // the languages of the docs, most docs first
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

func sanitize(p Params) Params {
	d := DefaultParams()
	ok := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }
	if !ok(p.K1) {
		p.K1 = d.K1
	}
	if !ok(p.B) || p.B > 1 {
		p.B = d.B
	}
	if !ok(p.NameWeight) {
		p.NameWeight = d.NameWeight
	}
	if !ok(p.DescriptionWeight) {
		p.DescriptionWeight = d.DescriptionWeight
	}
	if !ok(p.HeadingWeight) {
		p.HeadingWeight = d.HeadingWeight
	}
	if !ok(p.PairWeight) {
		p.PairWeight = d.PairWeight
	}
	if !ok(p.Damping) {
		p.Damping = d.Damping
	}
	if !ok(p.Generic) {
		p.Generic = d.Generic
	}
	if !ok(p.BodyWeight) {
		p.BodyWeight = d.BodyWeight
	}
	if !ok(p.BodyB) || p.BodyB > 1 {
		p.BodyB = d.BodyB
	}
	if !ok(p.GenericWordWeight) {
		p.GenericWordWeight = d.GenericWordWeight
	}
	return p
}

// Params returns the parameters the index was built with.
func (ix *Index) Params() Params { return ix.params }

// Len returns the number of indexed skills.
func (ix *Index) Len() int { return len(ix.names) }

// Names returns the indexed skills' names in index order.
func (ix *Index) Names() []string { return slices.Clone(ix.names) }

// termID returns the id of a stem or a stem pair ("a_b").
func (ix *Index) termID(term string) (int32, bool) {
	if a, b, ok := strings.Cut(term, PairSep); ok {
		ia, oka := ix.ids[a]
		ib, okb := ix.ids[b]
		if !oka || !okb {
			return 0, false
		}
		id, ok := ix.pairs[pairKey(ia, ib)]
		return id, ok
	}
	id, ok := ix.ids[term]
	return id, ok
}

// DocFreq returns how many skills hold term (a stem or a stem pair, as
// Terms returns them).
func (ix *Index) DocFreq(term string) int {
	if id, ok := ix.termID(term); ok {
		return len(ix.postings[id])
	}
	return 0
}

// IDF returns the inverse document frequency of term, ln(1 + (N - n +
// 0.5)/(n + 0.5)) with N skills of which n hold the term; 0 for a term no
// skill holds.
func (ix *Index) IDF(term string) float64 {
	if id, ok := ix.termID(term); ok {
		return ix.idf[id]
	}
	return 0
}

// queryTerm is one distinct term of a query found in the index.
type queryTerm struct {
	text string
	id   int32
}

// queryTerms returns the distinct terms of text that the index holds,
// sorted by text, and the number of distinct content stems in text, at
// most maxQueryStems (where the damping q/(q+Damping) differs from 1 by
// less than 1e-4).
//
// The prompt's language (detectLanguage, ties to the language most skills
// are written in) decides its stop words and its content stems. Each word
// is then looked up as every language of the catalogue would stem it, so a
// French prompt meets French skills by French stems and still meets an
// English skill's names, code words and identifiers; a word that is a stop
// word of a skill language is not looked up in it.
func (ix *Index) queryTerms(text string) ([]queryTerm, int) {
	prompt := langEn
	if len(ix.langs) > 0 {
		prompt = ix.langs[0]
	}
	prompt = detectLanguage(text, prompt)
	// Words the index does not know are stemmed once per query: a long
	// prompt repeats its words (issue 27: a 60 MB prompt). The caches are
	// bounded, so a prompt of distinct words costs no more memory.
	var sts [numLangs]*stemmer
	stemmerOf := func(l lang) *stemmer {
		if sts[l] == nil {
			sts[l] = &stemmer{lang: l, cache: map[string]stemmed{}, max: maxQueryCache}
		}
		return sts[l]
	}
	var qs []queryTerm
	found := make(map[int32]bool)
	stems := make(map[string]bool)
	var lowBuf []byte
	type chain struct {
		prev    int32
		hasPrev bool
	}
	var chains [numLangs]chain
	add := func(id int32) {
		if id >= 0 && !found[id] {
			found[id] = true
			qs = append(qs, queryTerm{text: ix.terms[id], id: id})
		}
	}
	scanWords(text, func(s string, upper, brk bool) {
		if brk {
			for _, l := range ix.langs {
				chains[l].hasPrev = false
			}
		}
		low, lowered := s, false
		lower := func() string {
			if !lowered && upper {
				lowBuf, low = lowerWord(lowBuf, s)
			}
			lowered = true
			return low
		}
		if !prompt.keep(lower()) {
			return // a stop word of the prompt: pairs span it
		}
		if len(stems) < maxQueryStems {
			st := stemmerOf(prompt).stem(low).term
			if !stems[st] {
				stems[strings.Clone(st)] = true
			}
		}
		for _, l := range ix.langs {
			id, ok := ix.surface[l][s]
			if ok && id < 0 {
				continue // a stop word of l
			}
			if !ok {
				if !l.keep(low) {
					continue
				}
				st, cached := ix.stems[l][low]
				if !cached {
					st = stemmerOf(l).stem(low)
				}
				if id, ok = ix.ids[st.term]; !ok {
					id = -1
				}
			}
			add(id)
			c := &chains[l]
			if c.hasPrev && c.prev >= 0 && id >= 0 {
				if pid, ok := ix.pairs[pairKey(c.prev, id)]; ok {
					add(pid)
				}
			}
			c.prev, c.hasPrev = id, true
		}
	})
	slices.SortFunc(qs, func(a, b queryTerm) int { return strings.Compare(a.text, b.text) })
	return qs, len(stems)
}

// Rank scores every skill for text and returns those with a positive score,
// best first, ties broken by name. Each result lists its matched terms,
// sorted. Signal is true when some skill scored at least minSignal.
//
// A skill's raw score is the sum, over the distinct query terms it holds,
// of idf(t) · f(t) · tf·(k1+1) / (tf + k1), with tf the normalised
// field-weighted frequency described at Params and f(t) the term's generic
// factor (spread and generic word). The scores are then scaled, all by
// one factor, so that the best skill scores its raw score with f(t) left
// without the spread (the generic-word weight kept), times the prompt's
// damping q/(q + Damping): the order and the ratios come from the full
// weights, the level that minSignal is compared with from the plainer
// one.
func (ix *Index) Rank(text string, minSignal float64) Ranking {
	qs, q := ix.queryTerms(text)
	if len(qs) == 0 {
		return Ranking{Results: []Result{}}
	}
	damp := float64(q) / (float64(q) + ix.params.Damping)
	n := len(ix.names)
	scores := make([]float64, n)
	// Matches are kept as a linked list per doc: head[d] is 1 + the index
	// in hits of the doc's latest match, next[i] the same for the one
	// before it.
	head := make([]int32, n)
	type hit struct {
		term int32 // index into qs
		next int32
		w    float32
	}
	total := 0
	for _, q := range qs {
		total += len(ix.postings[q.id])
	}
	hits := make([]hit, 0, total)
	docs := make([]int32, 0, min(total, n))
	for qi, q := range qs {
		for _, p := range ix.postings[q.id] {
			if head[p.doc] == 0 {
				docs = append(docs, p.doc)
			}
			scores[p.doc] += float64(p.w)
			hits = append(hits, hit{term: int32(qi), next: head[p.doc], w: p.w})
			head[p.doc] = int32(len(hits))
		}
	}
	type scored struct {
		score    float64
		nameRank int32
		doc      int32
	}
	order := make([]scored, 0, len(docs))
	for _, d := range docs {
		if sc := scores[d] * damp; sc > 0 {
			order = append(order, scored{sc, ix.nameRank[d], d})
		}
	}
	slices.SortFunc(order, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return int(a.nameRank - b.nameRank)
	})
	// The scores are scaled so that the best skill scores its evidence:
	// its score with every term weighed without the catalogue's spread
	// (the generic-word weight stays). The spread decides the order and
	// the ratios between skills; the evidence, on the scale minSignal is
	// set for, says whether the prompt names a topic at all. Otherwise a
	// catalogue whose skills share most of their words (one pipeline's
	// stages) would score every prompt low.
	if len(order) > 0 && order[0].score > 0 {
		var ev float64
		best := order[0].doc
		for h := head[best]; h != 0; h = hits[h-1].next {
			id := qs[hits[h-1].term].id
			e, ok := ix.nameEvidence[pairKey(best, id)]
			if !ok {
				e = ix.evidence[id]
			}
			ev += float64(hits[h-1].w) * float64(e)
		}
		scale := ev * damp / order[0].score
		for i := range order {
			order[i].score *= scale
		}
	}
	sorted := make([]Result, len(order))
	// One backing array for every result's terms.
	termBuf := make([]string, 0, len(hits))
	for i, o := range order {
		start := len(termBuf)
		for h := head[o.doc]; h != 0; h = hits[h-1].next {
			termBuf = append(termBuf, qs[hits[h-1].term].text)
		}
		ts := termBuf[start:len(termBuf):len(termBuf)]
		slices.Reverse(ts) // hits were prepended; qs is sorted
		sorted[i] = Result{Skill: ix.names[o.doc], Score: o.score, Terms: ts}
	}
	rk := Ranking{Results: sorted}
	if len(sorted) > 0 {
		rk.Best = sorted[0].Score
		rk.Signal = rk.Best >= minSignal
	}
	return rk
}
