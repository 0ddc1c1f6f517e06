//go:build unix

package skills

import (
	"syscall"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
)

// handle is a skill file opened by the walk, read later by a worker. Raw
// descriptors skip what os.File adds per file (a poller registration and
// a finalizer), which is a tenth of discovery's cost on 10,000 skills.
type handle struct {
	fd   int
	size int64
}

// openRegular opens path for reading if it is a regular file and not a
// symbolic link, without blocking (a named pipe is declined, not waited
// on); ok is false otherwise (the caller then lists the folder).
func openRegular(path string) (h handle, ok bool) {
	fd, size, err := regfile.OpenFD(path, true)
	if err != nil {
		return handle{}, false
	}
	return handle{fd: fd, size: size}, true
}

// readAll reads the file to its end into a buffer from buf and closes
// it, failing with errTooLarge past limit bytes.
func (h handle) readAll(limit int64, buf *slab) ([]byte, error) {
	defer syscall.Close(h.fd)
	if h.size > limit {
		return nil, errTooLarge
	}
	// One spare byte shows a file that grew.
	b := buf.alloc(int(h.size) + 1)
	n := 0
	for {
		m, err := syscall.Read(h.fd, b[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		n += m
		if int64(n) > limit {
			return nil, errTooLarge
		}
		if m == 0 || n < len(b) {
			return b[:n], nil // a short read of a regular file is its end
		}
		b = append(b, make([]byte, 4096)...) // a new array: b's capacity is its length
	}
}

func (h handle) close() { syscall.Close(h.fd) }

// readRegular reads the regular file at path (not a symbolic link: the
// caller resolved it) up to limit bytes, on a raw descriptor: one open,
// one fstat and one read, where os.File costs twice as many calls.
func readRegular(path string, limit int64, buf *slab) ([]byte, error) {
	fd, size, err := regfile.OpenFD(path, true)
	if err != nil {
		return nil, err
	}
	return handle{fd: fd, size: size}.readAll(limit, buf)
}
