package skills

import (
	"bytes"
	"testing"
)

// TestSlabBuffersAreDisjoint: every buffer a slab hands out, across
// blocks of every size and beside the large ones it allocates alone, is
// its own: filling each leaves all the others as they were, and none can
// grow into its neighbour (its capacity is its length).
func TestSlabBuffersAreDisjoint(t *testing.T) {
	var s slab
	sizes := []int{1, 4097, 300 << 10, 7, slabMax/8 + 1, 65536, 3}
	var bufs [][]byte
	for i := range 700 {
		n := sizes[i%len(sizes)]
		b := s.alloc(n)
		if len(b) != n || cap(b) != n {
			t.Fatalf("alloc(%d): len %d cap %d", n, len(b), cap(b))
		}
		for j := range b {
			b[j] = byte(i)
		}
		bufs = append(bufs, b)
	}
	for i, b := range bufs {
		if bytes.Count(b, []byte{byte(i)}) != len(b) {
			t.Fatalf("buffer %d (%d bytes) was written by another", i, len(b))
		}
	}
	if s.next != slabMax {
		t.Errorf("blocks grew to %d bytes, want %d", s.next, slabMax)
	}
	var none *slab
	if b := none.alloc(10); len(b) != 10 {
		t.Errorf("nil slab: %d bytes", len(b))
	}
}
