//go:build linux

package hostile

// A project's .pi/skill-lifecycle.json is not opened before trust is
// decided (issue 27, item 1): an untrusted project's file is noticed
// (lstat) and reported as ignored, never read, so a link to /dev/tty or a
// named pipe committed as that file cannot block the sidecar or read what
// the user types; a trusted project's special file is refused unopened.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// opensOf watches path for opens (inotify IN_OPEN) while f runs and
// returns how many there were.
func opensOf(t *testing.T, path string, f func()) int {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Fatalf("inotify: %v", err)
	}
	defer syscall.Close(fd)
	if _, err := syscall.InotifyAddWatch(fd, path, syscall.IN_OPEN); err != nil {
		t.Fatalf("inotify watch %s: %v", path, err)
	}
	f()
	n := 0
	buf := make([]byte, 64*(syscall.SizeofInotifyEvent+syscall.NAME_MAX+1))
	for {
		k, err := syscall.Read(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || k <= 0 {
			return n // EAGAIN: no more events
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= k; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if ev.Mask&syscall.IN_OPEN != 0 {
				n++
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// TestHostileUntrustedProjectFileNotOpened: with the host saying the
// project is not trusted (and with a host that has no notion of trust and
// no opt-in from the user), initialize reports the project's file as
// ignored without opening it; trusted, the file is read. It used to be
// read in every case, and only its values dropped.
func TestHostileUntrustedProjectFileNotOpened(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name    string
		trusted *bool
		opens   bool
	}{
		{"untrusted", &no, false},
		{"host-without-trust", nil, false},
		{"trusted", &yes, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPack(t)
			project := write(t, filepath.Join(p.cwd, ".pi", rules.FileName), []byte(`{"enabled": false}`))
			ip := p.initParams()
			ip.Trusted = tc.trusted
			s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
			var init protocol.InitializeResult
			n := opensOf(t, project, func() { s.ok(s.call(protocol.MethodInitialize, ip), &init) })
			if got := n > 0; got != tc.opens {
				t.Errorf("the project file was opened %d times, want opened = %v", n, tc.opens)
			}
			ignored := false
			for _, d := range init.Diagnostics {
				ignored = ignored || strings.Contains(d, project+" is ignored")
			}
			if ignored == tc.opens {
				t.Errorf("ignored-file diagnostic = %v, want %v: %q", ignored, !tc.opens, init.Diagnostics)
			}
			if off := strings.Contains(s.listText(), "archiving off"); off != tc.opens {
				t.Errorf("project file applied = %v, want %v", off, tc.opens)
			}
		})
	}
}

// openPTY opens a pseudo-terminal pair: the controller and the terminal.
func openPTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal for the test: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlockpt: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("ptsname: %v", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open the terminal: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

// TestHostileProjectFileIsTheTerminal: a project whose
// .pi/skill-lifecycle.json is a link to /dev/tty, and one where it is a
// named pipe, run by a sidecar that has a terminal. Untrusted, the file is
// not opened; trusted, it is refused as not a regular file. Either way
// initialize answers. The sidecar used to open it before asking whether
// the project was trusted, and then waited for the user to type its
// configuration.
func TestHostileProjectFileIsTheTerminal(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name    string
		make    func(t *testing.T, path string)
		trusted *bool
		words   string
	}{
		{"tty-untrusted", func(t *testing.T, p string) { symlink(t, "/dev/tty", p) }, &no, "is ignored"},
		{"tty-host-without-trust", func(t *testing.T, p string) { symlink(t, "/dev/tty", p) }, nil, "is ignored"},
		{"tty-trusted", func(t *testing.T, p string) { symlink(t, "/dev/tty", p) }, &yes, "character device"},
		{"pipe-untrusted", func(t *testing.T, p string) { mkfifo(t, p) }, &no, "is ignored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPack(t)
			project := filepath.Join(p.cwd, ".pi", rules.FileName)
			tc.make(t, project)
			_, tty := openPTY(t)
			sc := startSidecarWith(t, func(cmd *exec.Cmd) {
				cmd.ExtraFiles = []*os.File{tty} // fd 3 in the child
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
			})
			ip := p.initParams()
			ip.Trusted = tc.trusted
			id, body := sc.request(protocol.MethodInitialize, ip)
			sc.send(body)
			var m rpcMsg
			deadline := time.After(hangLimit)
		wait:
			for {
				select {
				case m = <-sc.msgs:
					if m.isResponse() && string(m.ID) == fmt.Sprint(id) {
						break wait
					}
				case <-deadline:
					t.Fatalf("initialize did not answer within %v: the sidecar is reading %s", hangLimit, project)
				}
			}
			var init protocol.InitializeResult
			sc.ok(m, &init)
			found := false
			for _, d := range init.Diagnostics {
				found = found || (strings.Contains(d, project) && strings.Contains(d, tc.words))
			}
			if !found {
				t.Errorf("no diagnostic on %s saying %q: %q", project, tc.words, init.Diagnostics)
			}
		})
	}
}
