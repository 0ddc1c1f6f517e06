package host

import (
	"os"
	"runtime/debug"
	"sync"
)

// Start-up builds a heap of about 12 KB a skill (1.2 GB at 100,000) that
// it keeps: with the default GOGC of 100 the collector ran nine times
// while it grew, marking it again at each step (a fifth of start-up's CPU
// at 100,000 skills). For a large catalogue initialize lets the heap
// grow four times between collections instead, which costs about 150 MB
// of peak memory at 100,000 skills, and restores the percentage after.
const (
	startupGCMin     = 10000 // skills
	startupGCPercent = 400
)

// startupGC raises the collector's percentage for building the world of
// n skills and returns what restores it. A GOGC the user set is left
// alone. Start-ups that overlap (tests) share one raise: the last to end
// restores the percentage.
func startupGC(n int) (restore func()) {
	if n < startupGCMin || os.Getenv("GOGC") != "" {
		return func() {}
	}
	startupMu.Lock()
	defer startupMu.Unlock()
	if startupActive == 0 {
		startupOld = debug.SetGCPercent(startupGCPercent)
		if startupOld < 0 || startupOld > startupGCPercent {
			debug.SetGCPercent(startupOld)
			return func() {}
		}
	}
	startupActive++
	return func() {
		startupMu.Lock()
		defer startupMu.Unlock()
		if startupActive--; startupActive == 0 {
			debug.SetGCPercent(startupOld)
		}
	}
}

var (
	startupMu     sync.Mutex
	startupActive int // start-ups running with the raise
	startupOld    int // the percentage before it
)
