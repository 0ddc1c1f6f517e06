//go:build !linux

package regfile

// AdviseHuge does nothing here: huge pages are advised on Linux only.
func AdviseHuge([]byte) {}

// HugePages reports false here: huge pages are advised on Linux only.
func HugePages() bool { return false }
