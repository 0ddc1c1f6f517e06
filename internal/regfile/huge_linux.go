package regfile

import "syscall"

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
