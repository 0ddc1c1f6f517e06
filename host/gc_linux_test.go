package host

import (
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
)

// minorFaults counts the page faults of the calling thread (the test
// locks its goroutine to it: other tests' goroutines fault elsewhere).
func minorFaults(t *testing.T) int64 {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Minflt
}

// TestWarmHeap: where the kernel backs advised memory with huge pages,
// the objects a large start-up allocates after warmHeap land in the
// memory it readied: 200 MB of small objects take a small share of the
// 51,200 page faults of a 4 KB page each (800-1,600; without warmHeap
// ~54,000). Where it does not, warmHeap allocates nothing.
func TestWarmHeap(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before, after runtime.MemStats
	if !regfile.HugePages() {
		runtime.ReadMemStats(&before)
		warmHeap(100000)
		runtime.ReadMemStats(&after)
		if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
			t.Errorf("warmHeap allocated %d bytes without huge pages, want none", d)
		}
		return
	}
	// The collector off while the loop runs: with it on, in busy runs of
	// the whole suite, cycles over this small test heap gave part of the
	// readied pages back to the kernel (up to 16,657 faults here). A
	// start-up of 100,000 skills takes 5,600 faults however slow it is.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const objects, size = 200 << 10, 1 << 10 // 200 MB
	warmHeap(objects * size / warmPerSkill * 5 / 4)
	f0 := minorFaults(t)
	keep := make([][]byte, 0, objects)
	for range objects {
		b := make([]byte, size)
		b[0] = 1 // fresh memory is faulted in when written
		keep = append(keep, b)
	}
	faults := minorFaults(t) - f0
	runtime.KeepAlive(keep)
	if pages := int64(objects * size / 4096); faults > pages/4 {
		t.Errorf("%d page faults allocating %d MB after warmHeap, want under %d (a 4 KB page each: %d)", faults, objects*size>>20, pages/4, pages)
	}
	t.Logf("%d page faults for %d MB", faults, objects*size>>20)
}
