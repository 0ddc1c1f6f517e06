package host

import (
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// bodyFinder finds the model-visible skill whose trimmed body a tool's
// output holds whole (bodyIn). Looking for every body in every output
// cost a pass over the text per skill (80–160 ms a result at 100,000
// skills); the finder keys each body by a hash of its first minFoundBody
// bytes, so that a result costs one hash of each of its windows of that
// size and a check of the bodies whose start is there.
type bodyFinder struct {
	seed   maphash.Seed
	byHead map[uint64][]int32 // head hash → bodies, longest first
	bodies []foundBody        // in the host's order
	// heads has the bit of each head hash's low bits set: most windows
	// are passed over without a lookup in byHead, which at 100,000 skills
	// misses the processor's caches.
	heads []uint64
}

// foundBody is what the finder keeps of one body.
type foundBody struct {
	skill string
	size  int    // bytes of the trimmed body
	sum   uint64 // its hash (the finder's seed)
}

// maxFindBytes bounds the bytes a search hashes to check candidates
// (bodies sharing a start with many windows of a crafted output): past
// it the search answers with what it found so far.
const maxFindBytes = 256 << 20

// newBodyFinder indexes the trimmed bodies of w's model-visible skills
// of at least minFoundBody bytes.
func newBodyFinder(w *World) *bodyFinder {
	f := &bodyFinder{seed: maphash.MakeSeed(), byHead: map[uint64][]int32{}}
	for _, hs := range w.Skills.visible() {
		sk := w.Parsed[hs.Name]
		if sk == nil {
			continue
		}
		body := strings.TrimSpace(sk.Body)
		if len(body) < minFoundBody {
			continue
		}
		i := int32(len(f.bodies))
		f.bodies = append(f.bodies, foundBody{skill: hs.Name, size: len(body), sum: maphash.String(f.seed, body)})
		h := maphash.String(f.seed, body[:minFoundBody])
		f.byHead[h] = append(f.byHead[h], i)
	}
	f.heads = make([]uint64, headWords(len(f.byHead)))
	for h := range f.byHead {
		f.setHead(h)
	}
	for _, ids := range f.byHead {
		// Longest first, the host's order among equals: the first that
		// matches at a window is the best there.
		slices.SortStableFunc(ids, func(a, b int32) int { return f.bodies[b].size - f.bodies[a].size })
	}
	return f
}

// find returns the longest body text holds whole (the first in the host's
// order among equals), or nil.
func (f *bodyFinder) find(text string) *ResultBody {
	best, at, budget := int32(-1), 0, maxFindBytes
	for p := 0; p+minFoundBody <= len(text); p++ {
		switch text[p] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			continue // a trimmed body starts with none of these
		}
		h := maphash.String(f.seed, text[p:p+minFoundBody])
		if !f.hasHead(h) {
			continue
		}
		for _, i := range f.byHead[h] {
			b := f.bodies[i]
			if best >= 0 && (b.size < f.bodies[best].size || b.size == f.bodies[best].size && i > best) {
				break // no better body starts here
			}
			if b.size > len(text)-p {
				continue
			}
			if budget -= b.size; budget < 0 {
				return f.result(text, best, at)
			}
			if maphash.String(f.seed, text[p:p+b.size]) == b.sum {
				best, at = i, p
				break
			}
		}
	}
	return f.result(text, best, at)
}

// headWords is the size of the heads filter for n heads: 16 bits a head
// (a window passes it by chance once in 16 at most), in 64-bit words, a
// power of two.
func headWords(n int) int {
	w := 1
	for w*64 < 16*n {
		w *= 2
	}
	return w
}

func (f *bodyFinder) setHead(h uint64) {
	bit := h & uint64(len(f.heads)*64-1)
	f.heads[bit/64] |= 1 << (bit % 64)
}

func (f *bodyFinder) hasHead(h uint64) bool {
	bit := h & uint64(len(f.heads)*64-1)
	return f.heads[bit/64]&(1<<(bit%64)) != 0
}

// result is the ResultBody of body i (-1: none) found in text at p.
func (f *bodyFinder) result(text string, i int32, p int) *ResultBody {
	if i < 0 {
		return nil
	}
	b := f.bodies[i]
	return &ResultBody{Skill: b.skill, Hash: lifecycle.HashBody(text[p : p+b.size])}
}

// finderMemo is a world's body finder, made at its first use.
type finderMemo struct {
	once sync.Once
	f    *bodyFinder
}

// bodies is w's body finder.
func (w *World) bodies() *bodyFinder {
	m := w.found
	if m == nil {
		return newBodyFinder(w)
	}
	m.once.Do(func() { m.f = newBodyFinder(w) })
	return m.f
}
