package host

import (
	"os"
	"syscall"
)

// statKeys reports whether keyOf can tell a file's identity here.
const statKeys = true

// keyOf is the cache key of a file's lstat data.
func keyOf(fi os.FileInfo) (statKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statKey{}, false
	}
	return statKey{dev: uint64(st.Dev), ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}
