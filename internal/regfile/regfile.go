// Package regfile opens the files the product reads (skill files,
// configuration files, session files) only when they are regular files,
// and never blocks doing so.
//
// Opening a named pipe for reading blocks until a writer comes, opening a
// terminal reads what the user types, and a device such as /dev/zero never
// ends: one such file committed as a SKILL.md, a skill-lifecycle.json or a
// session used to hang the command or the sidecar that met it. Open looks
// at the file first (links followed) and refuses anything but a regular
// file; it then opens it without blocking (O_NONBLOCK, O_NOCTTY) and checks
// again on the open descriptor, so a file swapped in between is refused
// too.
package regfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// NotRegularError is the error for a path that names something other than
// a regular file (after links are followed).
type NotRegularError struct {
	Path string
	Mode fs.FileMode // the type bits of what the path names
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; it is not read", e.Path, Kind(e.Mode))
}

// ErrNotRegular matches every NotRegularError with errors.Is.
var ErrNotRegular = errors.New("not a regular file")

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// Kind names the type of a file mode for messages: "a folder", "a named
// pipe", ...
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	default:
		return "a special file"
	}
}

// Open opens path for reading when it is a regular file, following links.
// Anything else gets a *NotRegularError without being opened (a named
// pipe, a device, a socket, a folder); a missing file gets the usual
// fs.ErrNotExist error. It never blocks on the open.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: st.Mode().Type()}
	}
	return open(path)
}
