//go:build !unix

package skills

import "errors"

// handle is unused here: openRegular always declines and the walk lists
// the folder instead.
type handle struct{}

func openRegular(string) (handle, bool) { return handle{}, false }

func (handle) readAll(int64, *slab) ([]byte, error) {
	return nil, errors.New("not supported")
}

func (handle) close() {}

func readRegular(path string, limit int64, _ *slab) ([]byte, error) {
	return readLimited(path, limit)
}
