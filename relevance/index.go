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
// Each skill is one BM25 document made of three fields. A term's frequency
// in a skill is the weighted sum of its counts in the fields (the name
// counts NameWeight times, the description DescriptionWeight times, each
// indexed heading HeadingWeight times), and the skill's length is the
// weighted sum of the fields' lengths in terms; BM25's saturation (K1) and
// length normalisation (B) then apply to those weighted figures, as in a
// BM25F with one shared normalisation. PairWeight scales the contribution of
// adjacent-stem pairs relative to single stems.
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
}

// DefaultParams returns the documented defaults: k1 = 1.2, b = 0.75,
// name ×3, description ×2, headings ×1, pairs ×1.
func DefaultParams() Params {
	return Params{K1: 1.2, B: 0.75, NameWeight: 3, DescriptionWeight: 2, HeadingWeight: 1, PairWeight: 1, Damping: 1}
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
		{"pair weight", p.PairWeight}, {"damping", p.Damping}} {
		if err := check(f.name, f.v); err != nil {
			return err
		}
	}
	if p.B > 1 {
		return fmt.Errorf("relevance: b must lie in [0, 1], got %v", p.B)
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
	nameRank []int32          // by doc: position of its name in name order
	terms    []string         // by term id: a stem or "stem_stem"
	ids      map[string]int32 // single stem -> id
	pairs    map[uint64]int32 // id<<32 | id -> pair id
	surface  map[string]int32 // word as written -> stem id, -1 for a dropped word
	postings [][]posting      // by term id
	idf      []float64        // by term id
	norm     []float64        // by doc: k1 * (1 - b + b*len/avglen)
	stems    map[string]string
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// NewIndex indexes docs with p. Parameters that fail Validate are replaced
// by their defaults. Docs keep their order; their names need not be unique.
func NewIndex(docs []Doc, p Params) *Index {
	p = sanitize(p)
	ix := &Index{
		params:  p,
		names:   make([]string, len(docs)),
		ids:     make(map[string]int32, 1024),
		pairs:   make(map[uint64]int32, 4096),
		surface: make(map[string]int32, 2048),
		norm:    make([]float64, len(docs)),
		stems:   make(map[string]string, 1024),
	}
	st := stemmer{cache: ix.stems}
	// acc holds the weighted frequency of each term in the current doc,
	// touched the term ids set in it, so no per-doc map is needed.
	var acc []float32
	touched := make([]int32, 0, 64)
	lengths := make([]float64, len(docs))
	var docLen float64
	// Postings are gathered in one flat list in doc order, then grouped by
	// term with a counting sort into one backing array.
	type flatPosting struct {
		term int32
		posting
	}
	// Chunks, so that growing never copies.
	const chunkLen = 1 << 15
	var chunks [][]flatPosting
	var flat []flatPosting
	nflat := 0
	newTerm := func(t string) int32 {
		id := int32(len(ix.terms))
		ix.terms = append(ix.terms, t)
		acc = append(acc, 0)
		return id
	}
	add := func(id int32, w float64) {
		if acc[id] == 0 {
			touched = append(touched, id)
		}
		acc[id] += float32(w)
		docLen += w
	}
	var lowBuf []byte
	analyze := func(text string, w float64) {
		prev := int32(-1)
		scanWords(text, func(s string, upper, brk bool) {
			if brk {
				prev = -1
			}
			id, ok := ix.surface[s]
			if !ok {
				low := s
				if upper {
					lowBuf, low = lowerWord(lowBuf, s)
				}
				id = -1
				if keep(low) {
					stem := st.stem(low)
					if id, ok = ix.ids[stem]; !ok {
						id = newTerm(stem)
						ix.ids[stem] = id
					}
				}
				ix.surface[strings.Clone(s)] = id
			}
			if id < 0 {
				return // a stop word: pairs span it
			}
			add(id, w)
			if prev >= 0 && p.PairWeight > 0 {
				k := pairKey(prev, id)
				pid, ok := ix.pairs[k]
				if !ok {
					pid = newTerm(ix.terms[prev] + PairSep + ix.terms[id])
					ix.pairs[k] = pid
				}
				add(pid, w*p.PairWeight)
			}
			prev = id
		})
	}
	var total float64
	for d, doc := range docs {
		ix.names[d] = doc.Name
		docLen = 0
		touched = touched[:0]
		if p.NameWeight > 0 {
			analyze(doc.Name, p.NameWeight)
		}
		if p.DescriptionWeight > 0 {
			if p.IndexNegativeSentences {
				analyze(doc.Description, p.DescriptionWeight)
			} else {
				// Sentence by sentence: each ends with a phrase break, so
				// no pair spans two sentences either way.
				forSentences(doc.Description, func(s string, negative bool) {
					if !negative {
						analyze(s, p.DescriptionWeight)
					}
				})
			}
		}
		if p.HeadingWeight > 0 {
			forIndexedHeadings(doc.Headings, doc.Levels, func(h string) { analyze(h, p.HeadingWeight) })
		}
		for _, id := range touched {
			if len(flat) == cap(flat) {
				size := chunkLen
				if len(chunks) == 0 {
					size = min(chunkLen, max(256, 64*len(docs)))
				}
				flat = make([]flatPosting, 0, size)
				chunks = append(chunks, nil)
			}
			flat = append(flat, flatPosting{term: id, posting: posting{doc: int32(d), w: acc[id]}})
			chunks[len(chunks)-1] = flat
			nflat++
			acc[id] = 0
		}
		lengths[d] = docLen
		total += docLen
	}
	avg := 1.0
	if len(docs) > 0 && total > 0 {
		avg = total / float64(len(docs))
	}
	for d, l := range lengths {
		ix.norm[d] = p.K1 * (1 - p.B + p.B*l/avg)
	}
	order := make([]int32, len(docs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return strings.Compare(ix.names[a], ix.names[b]) })
	ix.nameRank = make([]int32, len(docs))
	for r, d := range order {
		ix.nameRank[d] = int32(r)
	}
	start := make([]int32, len(ix.terms)+1)
	for _, c := range chunks {
		for _, f := range c {
			start[f.term+1]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	all := make([]posting, nflat)
	next := slices.Clone(start[:len(ix.terms)])
	for _, c := range chunks {
		for _, f := range c {
			all[next[f.term]] = f.posting
			next[f.term]++
		}
	}
	chunks, flat = nil, nil
	n := float64(len(docs))
	ix.postings = make([][]posting, len(ix.terms))
	ix.idf = make([]float64, len(ix.terms))
	for id := range ix.terms {
		ps := all[start[id]:start[id+1]:start[id+1]]
		ix.postings[id] = ps
		df := float64(len(ps))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		ix.idf[id] = idf
		for i := range ps {
			tf := float64(ps[i].w)
			ps[i].w = float32(idf * tf * (p.K1 + 1) / (tf + ix.norm[ps[i].doc]))
		}
	}
	return ix
}

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
func (ix *Index) queryTerms(text string) ([]queryTerm, int) {
	// Words the index does not know are stemmed once per query: a long
	// prompt repeats its words (issue 27: a 60 MB prompt). The cache is
	// bounded, so a prompt of distinct words costs no more memory.
	st := stemmer{cache: map[string]string{}, max: maxQueryCache}
	var qs []queryTerm
	found := make(map[int32]bool)
	stems := make(map[string]bool)
	var lowBuf []byte
	prev, hasPrev := int32(-1), false
	scanWords(text, func(s string, upper, brk bool) {
		if brk {
			hasPrev = false
		}
		var stem string
		id, ok := ix.surface[s]
		if ok {
			if id < 0 {
				return // a stop word
			}
			stem = ix.terms[id]
		} else {
			low := s
			if upper {
				lowBuf, low = lowerWord(lowBuf, s)
			}
			if !keep(low) {
				return
			}
			if stem, ok = ix.stems[low]; !ok {
				stem = st.stem(low)
			}
			if id, ok = ix.ids[stem]; !ok {
				id = -1
			}
		}
		if len(stems) < maxQueryStems && !stems[stem] {
			stems[strings.Clone(stem)] = true
		}
		if id >= 0 && !found[id] {
			found[id] = true
			qs = append(qs, queryTerm{text: ix.terms[id], id: id})
		}
		if hasPrev && prev >= 0 && id >= 0 {
			if pid, ok := ix.pairs[pairKey(prev, id)]; ok && !found[pid] {
				found[pid] = true
				qs = append(qs, queryTerm{text: ix.terms[pid], id: pid})
			}
		}
		prev, hasPrev = id, true
	})
	slices.SortFunc(qs, func(a, b queryTerm) int { return strings.Compare(a.text, b.text) })
	return qs, len(stems)
}

// Rank scores every skill for text and returns those with a positive score,
// best first, ties broken by name. Each result lists its matched terms,
// sorted. Signal is true when some skill scored at least minSignal.
//
// A skill's score is the sum, over the distinct query terms it holds, of
// idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen)), with tf and len
// the field-weighted frequency and length described at Params (a pair
// term's tf is scaled by PairWeight), the whole multiplied by the prompt's
// damping factor q/(q + Damping).
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
			hits = append(hits, hit{term: int32(qi), next: head[p.doc]})
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
