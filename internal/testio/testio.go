// Package testio holds small readers and measurements that tests of
// several packages share: a reader of one byte repeated, so that a test of
// a huge input costs no memory of its own, the bytes allocated while a
// function runs, and the CLI built once for a TestMain. Only tests import it.
package testio

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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

// BuildCLI builds ./cmd/skill-lifecycle of the repository two folders up
// from the test's package into a new temporary folder, for a TestMain. It
// returns the repository's root, the binary and the function that removes
// the folder.
func BuildCLI(prefix string) (root, bin string, cleanup func(), err error) {
	root, err = filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return "", "", nil, fmt.Errorf("repository root: %w", err)
	}
	dir, err := os.MkdirTemp("", "skill-lifecycle-"+prefix+"-")
	if err != nil {
		return "", "", nil, err
	}
	bin = filepath.Join(dir, "skill-lifecycle")
	build := exec.Command("go", "build", "-o", bin, "./cmd/skill-lifecycle")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", "", nil, fmt.Errorf("go build ./cmd/skill-lifecycle: %v\n%s", err, out)
	}
	return root, bin, func() { os.RemoveAll(dir) }, nil
}
