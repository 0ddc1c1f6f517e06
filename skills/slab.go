package skills

import (
	"sync"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
)

// slab hands out the buffers that the files of one pass over a catalogue
// (a Resolver's, or Discover's) are read into, carved from large blocks.
// A buffer of its own for each file costs a page fault for every page of
// every body, since the bodies are kept; the large blocks are advised for
// huge pages (regfile.AdviseHuge), which the kernel backs with a few
// faults (docs/benchmarks.md, "Large catalogues (issue 30)"). A buffer is
// handed out once and never written again by the slab, so the strings
// that share it (a Skill's body and headings) stay as read. The first
// slabAfter buffers, all of a small catalogue, and those of the nil *slab
// are allocated each on its own. It is safe for concurrent use.
type slab struct {
	mu   sync.Mutex
	free []byte
	next int // the size of the next block
	n    int // buffers handed out, up to slabAfter
}

const (
	slabAfter = 256       // buffers allocated on their own before the first block
	slabFirst = 256 << 10 // the first block: a small catalogue takes little
	slabMax   = 8 << 20   // blocks double up to this size
)

// alloc returns a buffer of n bytes that no other call returns.
func (s *slab) alloc(n int) []byte {
	if s == nil || n > slabMax/8 {
		return make([]byte, n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n < slabAfter {
		s.n++
		return make([]byte, n)
	}
	if len(s.free) < n {
		size := max(s.next, slabFirst)
		s.next = min(2*size, slabMax)
		s.free = make([]byte, size)
		regfile.AdviseHuge(s.free) // the large blocks
	}
	b := s.free[:n:n]
	s.free = s.free[n:]
	return b
}
