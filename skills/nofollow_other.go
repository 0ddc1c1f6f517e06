//go:build !unix

package skills

import (
	"errors"
	"os"
)

// openNoFollow is not available here; callers fall back to listing the
// folder.
func openNoFollow(string) (*os.File, error) {
	return nil, errors.New("open without following links is not supported")
}
