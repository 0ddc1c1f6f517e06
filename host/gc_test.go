package host

import (
	"runtime/debug"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
)

func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestStartupGC: a large catalogue's start-up runs with a higher GC
// percentage, restored after; a small one, or a GOGC the user set, keeps
// the percentage as it is.
func TestStartupGC(t *testing.T) {
	t.Setenv("GOGC", "") // the test's own environment may set it
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	restore := startupGC(100000)
	if got := gcPercent(); got != startupGCPercent {
		t.Errorf("GC percentage %d during a large start-up, want %d", got, startupGCPercent)
	}
	restore()
	if got := gcPercent(); got != 100 {
		t.Errorf("GC percentage %d after, want 100", got)
	}
	// Two start-ups that overlap: the percentage is restored once both
	// ended, whichever ends first.
	first, second := startupGC(100000), startupGC(100000)
	first()
	if got := gcPercent(); got != startupGCPercent {
		t.Errorf("GC percentage %d while a start-up still runs, want %d", got, startupGCPercent)
	}
	second()
	if got := gcPercent(); got != 100 {
		t.Errorf("GC percentage %d after two start-ups, want 100", got)
	}
	startupGC(startupGCMin - 1)()
	if got := gcPercent(); got != 100 {
		t.Errorf("GC percentage %d during a small start-up, want 100", got)
	}
	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	restore = startupGC(100000)
	if got := gcPercent(); got != 50 {
		t.Errorf("GC percentage %d with GOGC=50, want 50", got)
	}
	restore()
	debug.SetGCPercent(100)
	// A percentage above it (or off) is kept.
	debug.SetGCPercent(800)
	startupGC(100000)()
	if got := gcPercent(); got != 800 {
		t.Errorf("GC percentage %d, was 800", got)
	}
}

// TestWarmAhead: a readying started ahead (where huge pages are advised)
// is waited for by the next Open, once; a small catalogue starts none.
func TestWarmAhead(t *testing.T) {
	WarmAhead(startupGCMin - 1)
	if warmedAhead() {
		t.Error("a readying was started for a catalogue under startupGCMin")
	}
	WarmAhead(startupGCMin)
	WarmAhead(startupGCMin) // one at a time
	if got, want := warmedAhead(), regfile.HugePages(); got != want {
		t.Errorf("a readying started ahead: %v, want %v (huge pages advised: %v)", got, want, want)
	}
	if warmedAhead() {
		t.Error("the readying was there to wait for twice")
	}
}
