//go:build unix

package host

import "syscall"

// cpuTime is the process's user and system CPU time in nanoseconds: the
// machine is shared, and wall time then measures the neighbours too.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
