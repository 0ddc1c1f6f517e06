//go:build !unix

package host

// cpuTime is not measured on this platform.
func cpuTime() int64 { return 0 }
