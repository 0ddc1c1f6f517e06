// Package testio holds small readers and measurements that tests of
// several packages share: a reader of one byte repeated, so that a test of
// a huge input costs no memory of its own, and the bytes allocated while a
// function runs. Only tests import it.
package testio

import (
	"io"
	"runtime"
)

// Repeat returns a reader of n copies of b.
func Repeat(b byte, n int) io.Reader { return &repeat{b: b, n: n} }

type repeat struct {
	b byte
	n int
}

func (r *repeat) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}

// Allocated returns how many bytes the process allocated while fn ran
// (the growth of runtime.MemStats.TotalAlloc, after a collection). Tests
// that measure it must not run in parallel for the figure to be fn's own.
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
