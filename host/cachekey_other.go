//go:build !linux

package host

import "os"

// statKeys is false: the start-up cache is for Linux only (where the
// lstat data it is keyed by is known), off elsewhere.
const statKeys = false

func keyOf(os.FileInfo) (statKey, bool) { return statKey{}, false }
