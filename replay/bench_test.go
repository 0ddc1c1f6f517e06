package replay

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// benchCorpusBytes is the size of the generated corpus; BENCH_CORPUS_MB
// overrides it (the measuring run uses 200).
func benchCorpusBytes() int64 {
	if v := os.Getenv("BENCH_CORPUS_MB"); v != "" {
		var mb int64
		for _, c := range v {
			if c < '0' || c > '9' {
				return 20 << 20
			}
			mb = mb*10 + int64(c-'0')
		}
		return mb << 20
	}
	return 20 << 20
}

// BenchmarkReplay replays a generated corpus with keep-all and defaults
// and reports throughput (MB/s of session files) and the peak heap in use.
func BenchmarkReplay(b *testing.B) {
	dir := b.TempDir()
	files, err := writeCorpus(dir, benchCorpusBytes(), 1_500_000)
	if err != nil {
		b.Fatal(err)
	}
	var total int64
	for _, f := range files {
		st, _ := os.Stat(f)
		total += st.Size()
	}
	b.SetBytes(total)
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	ins := make([]Input, len(files))
	for k, f := range files {
		ins[k] = Input{Path: f}
	}
	// As the replay command does.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := NewRunner(Options{TTL: DefaultTTL, Strategies: []StrategySpec{EngineSpec("defaults", world(lifecycle.Catalog{}, rules.Default()))}})
		r.AddFiles(ins, func(in Input, o Outcome) {
			if o.Skipped != "" {
				b.Fatal(in.Path, o.Skipped)
			}
		})
		if rep := r.Report(); rep.Strategies[0].Requests == 0 {
			b.Fatal("no requests replayed")
		}
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	close(stop)
	// Throughput per CPU second: wall time is unreliable on a shared machine.
	b.ReportMetric(float64(total)*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}

// cpuTime is the user and system time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
