//go:build unix

package relevance

import "syscall"

// cpuTime returns the process's user plus system CPU time in nanoseconds.
// Benchmarks report it per operation besides wall time, because the
// machine they run on is shared and wall time then measures the neighbours.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
