//go:build unix

package regfile

import (
	"io/fs"
	"os"
	"syscall"
)

// OpenFD opens path for reading without blocking and returns the raw
// descriptor and the file's size, only when the descriptor is a regular
// file; with noFollow a final symbolic link is refused (ELOOP) instead of
// followed. The descriptor closes on exec and is left O_NONBLOCK, which
// reads of a regular file ignore; the caller closes it. Discovery uses it
// for its probe (one open, one fstat per skill folder), Open for
// everything else.
func OpenFD(path string, noFollow bool) (fd int, size int64, err error) {
	fd, st, err := OpenStat(path, noFollow)
	return fd, st.Size, err
}

// OpenStat is OpenFD returning what fstat says of the open file.
func OpenStat(path string, noFollow bool) (fd int, st syscall.Stat_t, err error) {
	flags := readFlags
	if noFollow {
		flags |= syscall.O_NOFOLLOW
	}
	for {
		fd, err = syscall.Open(path, flags, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return -1, st, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return statOpen(fd, path)
}

// readFlags open a file for reading without blocking or taking a
// terminal, and close it on exec.
const readFlags = syscall.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY | syscall.O_CLOEXEC

// statOpen is what fstat says of fd, opened at path, when it is a
// regular file; otherwise it closes fd.
func statOpen(fd int, path string) (int, syscall.Stat_t, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, st, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return -1, st, &NotRegularError{Path: path, Mode: typeOf(uint32(st.Mode))}
	}
	return fd, st, nil
}

func open(path string) (*os.File, error) {
	fd, _, err := OpenFD(path, false)
	if err != nil {
		return nil, err
	}
	// A descriptor left non-blocking would be handed to the runtime's
	// poller by os.NewFile, which has nothing to wait for on a file.
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// typeOf turns the S_IFMT bits of a stat mode into fs.FileMode type bits.
func typeOf(mode uint32) fs.FileMode {
	switch mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
