//go:build unix

package skills

import (
	"os"
	"syscall"
)

// openNoFollow opens a file for reading unless it is a symbolic link.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}
