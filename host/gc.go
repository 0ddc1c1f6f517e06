package host

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
)

// Start-up builds a heap of about 10 KB a skill (1 GB at 100,000) that
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

// Go does not ask the kernel for huge pages for its heap, and in a guest
// where a 4 KB page fault costs ~15 µs the heap a start-up of 100,000
// skills builds (~1 GB) took ~175,000 faults, a third of its time
// (docs/benchmarks.md). For a large catalogue, Open first allocates about
// the heap it is going to build (warmPerSkill a skill: the generated
// packs' bodies of 1 to 12 KB take 9.6 KB a skill with the index),
// advises it for huge pages, touches it on every core and drops it: the
// collector frees it and the allocator hands the same pages out again,
// so the start-up's objects land in memory backed by few, large faults.
// Where advised huge pages are off it would only move the faults, so it
// is skipped. An estimate too large leaves pages the runtime returns
// later; too small, the rest faults as before. It readies at most
// warmMax, what ~100,000 skills take.
const (
	warmPerSkill = 10 << 10
	warmMax      = 1 << 30
)

// readies reports whether a start-up of n skills readies its heap: a
// large catalogue, where the kernel gives advised memory huge pages.
func readies(n int) bool { return n >= startupGCMin && regfile.HugePages() }

// warmHeap readies the heap for the start-up of n skills, as above.
func warmHeap(n int) {
	if !readies(n) {
		return
	}
	b := make([]byte, min(n, warmMax/warmPerSkill)*warmPerSkill)
	regfile.AdviseHuge(b)
	const page = 4 << 10
	parts := runtime.GOMAXPROCS(0)
	step := (len(b)/parts + page - 1) &^ (page - 1)
	var wg sync.WaitGroup
	for lo := 0; lo < len(b); lo += step {
		part := b[lo:min(lo+step, len(b))]
		wg.Go(func() {
			for i := 0; i < len(part); i += page {
				part[i] = 1
			}
		})
	}
	wg.Wait()
	runtime.GC() // b is unreachable: its pages go back to the allocator
}

// warming is the readying WarmAhead started, if any: done is closed when
// it ends.
var warming struct {
	sync.Mutex
	done chan struct{}
}

// WarmAhead starts readying the heap for the start-up of n skills
// (warmHeap) beside what the caller does next, and the next Open waits
// for it instead of readying its own. The sidecar calls it once
// initialize's message has arrived: decoding a list of 100,000 skills
// takes one core a quarter to half a second, and the readying the other.
// A catalogue that readies nothing leaves nothing to wait for.
func WarmAhead(n int) {
	if !readies(n) {
		return
	}
	warming.Lock()
	defer warming.Unlock()
	if warming.done != nil {
		return
	}
	done := make(chan struct{})
	warming.done = done
	go func() {
		defer close(done)
		warmHeap(n)
	}()
}

// warmedAhead waits for the readying WarmAhead started, if any, and
// reports whether there was one.
func warmedAhead() bool {
	warming.Lock()
	done := warming.done
	warming.done = nil
	warming.Unlock()
	if done == nil {
		return false
	}
	<-done
	return true
}
