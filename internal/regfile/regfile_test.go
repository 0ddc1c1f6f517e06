//go:build unix

package regfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "a.json")
	if err := os.WriteFile(regular, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	linkToPipe := filepath.Join(dir, "link-to-pipe")
	linkToRegular := filepath.Join(dir, "link-to-regular")
	linkToDevice := filepath.Join(dir, "link-to-dev-null")
	for target, link := range map[string]string{pipe: linkToPipe, regular: linkToRegular, "/dev/null": linkToDevice} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	for _, tc := range []struct {
		path string
		mode fs.FileMode // 0: opens
	}{
		{regular, 0},
		{linkToRegular, 0},
		{pipe, fs.ModeNamedPipe},
		{linkToPipe, fs.ModeNamedPipe},
		{linkToDevice, fs.ModeDevice | fs.ModeCharDevice},
		{sock, fs.ModeSocket},
		{dir, fs.ModeDir},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			done := make(chan struct{})
			var f *os.File
			var err error
			go func() { f, err = Open(tc.path); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("Open blocked")
			}
			if tc.mode == 0 {
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				b, err := io.ReadAll(f)
				if err != nil || string(b) != "{}" {
					t.Errorf("read %q, %v", b, err)
				}
				return
			}
			var nr *NotRegularError
			if !errors.As(err, &nr) || nr.Mode != tc.mode || nr.Path != tc.path || !errors.Is(err, ErrNotRegular) {
				t.Fatalf("Open = %v, %v; want a NotRegularError for %v", f, err, tc.mode)
			}
		})
	}
	if _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestOpenFD: the descriptor-level open never blocks on a named pipe and
// refuses a final link with noFollow; Open's file is in blocking mode.
func TestOpenFD(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenFD(pipe, true); !errors.Is(err, ErrNotRegular) {
		t.Errorf("pipe: %v, want ErrNotRegular", err)
	}
	regular := filepath.Join(dir, "r")
	if err := os.WriteFile(regular, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenFD(link, true); err == nil {
		t.Error("a link was opened with noFollow")
	}
	fd, size, err := OpenFD(link, false)
	if err != nil || size != 3 {
		t.Fatalf("OpenFD(link) = %d, %d, %v", fd, size, err)
	}
	syscall.Close(fd)
	f, err := Open(link)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fl int
	var ferr error
	if err := rc.Control(func(fd uintptr) { fl, ferr = fcntlFlags(int(fd)) }); err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	if fl&syscall.O_NONBLOCK != 0 {
		t.Error("Open left the descriptor non-blocking")
	}
}

func fcntlFlags(fd int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
