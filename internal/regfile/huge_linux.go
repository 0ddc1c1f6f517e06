package regfile

import (
	"bytes"
	"os"
	"sync"
	"syscall"
)

// AdviseHuge asks the kernel to back b, a large buffer that files are
// about to be read into and that is kept, with transparent huge pages
// where they are enabled for advised memory ("madvise", the usual
// default): a few page faults instead of one for every 4 KiB. A buffer
// under HugeMin bytes is left alone (a huge page is 2 MiB). A hint only:
// an error changes nothing.
func AdviseHuge(b []byte) {
	if len(b) >= HugeMin {
		_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
	}
}

// HugePages reports whether the kernel backs advised memory with
// transparent huge pages: its mode is "always" or "madvise", not
// "never" (or unknown).
var HugePages = sync.OnceValue(func() bool {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && (bytes.Contains(mode, []byte("[always]")) || bytes.Contains(mode, []byte("[madvise]")))
})
