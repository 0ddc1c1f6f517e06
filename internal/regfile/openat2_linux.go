package regfile

import (
	"errors"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// ErrNoOpenat2 is OpenStatNoLinks's error where openat2(2) cannot be
// used (Linux before 5.6, or a sandbox that refuses it).
var ErrNoOpenat2 = errors.New("openat2 is not available")

// noOpenat2 is set once openat2 is found missing: it is not tried again.
var noOpenat2 atomic.Bool

// openHow is struct open_how of openat2(2).
type openHow struct {
	flags, mode, resolve uint64
}

const (
	sysOpenat2         = 437 // the same number on every Linux architecture
	resolveNoMagiclink = 0x02
	resolveNoSymlinks  = 0x04
	atFDCWD            = -100
)

// OpenStatNoLinks is OpenStat(path, true) that also refuses a symbolic
// link anywhere on path, not only at its end (openat2 with
// RESOLVE_NO_SYMLINKS: ELOOP), so that an absolute path it opens names
// the file itself: one call where resolving the folders first costs an
// lstat each. ErrNoOpenat2 when openat2 cannot be used.
func OpenStatNoLinks(path string) (fd int, st syscall.Stat_t, err error) {
	if noOpenat2.Load() {
		return -1, st, ErrNoOpenat2
	}
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, st, &os.PathError{Op: "openat2", Path: path, Err: err}
	}
	how := openHow{flags: readFlags | syscall.O_NOFOLLOW, resolve: resolveNoSymlinks | resolveNoMagiclink}
	cwd := atFDCWD // a variable: the constant does not convert to uintptr
	r, e := uintptr(0), syscall.EINTR
	for e == syscall.EINTR {
		r, _, e = syscall.Syscall6(sysOpenat2, uintptr(cwd), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
	}
	switch e {
	case 0:
		return statOpen(int(r), path)
	case syscall.ENOSYS, syscall.EPERM, syscall.E2BIG, syscall.EINVAL:
		noOpenat2.Store(true)
		return -1, st, ErrNoOpenat2
	}
	return -1, st, &os.PathError{Op: "openat2", Path: path, Err: e}
}
