package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenStatNoLinks: a regular file on a path without links opens as
// OpenStat opens it; a link anywhere on the path (a folder, the file) is
// refused with ELOOP; a named pipe is refused without blocking, a missing
// file with ENOENT.
func TestOpenStatNoLinks(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "a", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(plain), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, []byte("body"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("SKILL.md", filepath.Join(dir, "a", "LINK.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "a", "PIPE.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, st, err := OpenStatNoLinks(plain)
	if errors.Is(err, ErrNoOpenat2) {
		t.Fatalf("openat2 is not available on this kernel: %v", err) // Linux 5.6 or later is required here
	}
	if err != nil || st.Size != 4 {
		t.Fatalf("plain file: %v, size %d", err, st.Size)
	}
	syscall.Close(fd)
	for _, c := range []struct {
		rel  string
		want error
	}{
		{"b/SKILL.md", syscall.ELOOP},
		{"a/LINK.md", syscall.ELOOP},
		{"a/missing.md", syscall.ENOENT},
	} {
		if _, _, err := OpenStatNoLinks(filepath.Join(dir, c.rel)); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.rel, err, c.want)
		}
	}
	var nr *NotRegularError
	if _, _, err := OpenStatNoLinks(filepath.Join(dir, "a", "PIPE.md")); !errors.As(err, &nr) {
		t.Errorf("named pipe: %v, want a NotRegularError", err)
	}
}
