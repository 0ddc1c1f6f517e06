//go:build unix

package skills

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSlabFileThatGrew: a file longer than its stat said is read whole
// into a new array, leaving the next buffer of the slab alone.
func TestSlabFileThatGrew(t *testing.T) {
	p := filepath.Join(t.TempDir(), "SKILL.md")
	text := bytes.Repeat([]byte("grown "), 2000)
	if err := os.WriteFile(p, text, 0o644); err != nil {
		t.Fatal(err)
	}
	h, ok := openRegular(p)
	if !ok {
		t.Fatal("openRegular declined a regular file")
	}
	var s slab
	h.size = 10 // as if the file grew after its stat
	got, err := h.readAll(MaxFileSize, &s)
	if err != nil {
		t.Fatal(err)
	}
	next := s.alloc(64)
	if !bytes.Equal(got, text) {
		t.Fatalf("read %d bytes, want %d", len(got), len(text))
	}
	if bytes.Count(next, []byte{0}) != len(next) {
		t.Fatal("the read wrote past its buffer into the next")
	}
}
