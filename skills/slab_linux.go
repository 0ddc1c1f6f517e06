package skills

import "syscall"

// adviseHuge asks the kernel to back b with transparent huge pages where
// it is enabled for advised memory ("madvise", the usual default); a hint
// only, so an error changes nothing.
func adviseHuge(b []byte) { _ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) }
