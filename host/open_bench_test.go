package host

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// The benchmarks of this file measure initialize (Open, with the
// sidecar's file watch, and the relevance index it builds after) on generated catalogues of 1,000, 10,000 and
// 100,000 skills (internal/gen, bodies of 1 to 12 KB). The packs are
// written once under the system's temporary folder and kept for later
// runs (a marker file is written last). Each measures a warm start-up
// cache, or none with SKILL_LIFECYCLE_CACHE=off.

type nullSink struct{}

func (nullSink) Record(lifecycle.Decision) {}
func (nullSink) Notify(string, string)     {}
func (nullSink) SetModel(SetModelParams)   {}
func (nullSink) Line(LineParams)           {}

// benchPack writes (or finds) a generated pack of n skills and returns
// the host's list of it.
func benchPack(b *testing.B, n int) (root string, list []HostSkill) {
	b.Helper()
	pack := gen.Pack(gen.Options{N: n, Seed: 30})
	root = filepath.Join(os.TempDir(), fmt.Sprintf("skill-lifecycle-bench-open-%d", n))
	skillsDir := filepath.Join(root, "agent", "skills")
	marker := filepath.Join(root, "complete")
	if _, err := os.Stat(marker); err != nil {
		_ = os.RemoveAll(root)
		if err := gen.Write(skillsDir, pack); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, s := range pack {
		list = append(list, HostSkill{Name: s.Name, Description: s.Description, Path: filepath.Join(skillsDir, s.Name, "SKILL.md")})
	}
	return root, list
}

func benchOpen(b *testing.B, n int) {
	root, list := benchPack(b, n)
	p := InitializeParams{ProtocolVersion: 1, Cwd: root, AgentDir: filepath.Join(root, "agent"), Skills: list}
	// The start-up cache is primed first, in a folder kept beside the
	// pack (SKILL_LIFECYCLE_CACHE=off measures without it).
	b.Setenv("XDG_CACHE_HOME", filepath.Join(root, "cache"))
	if _, _, err := Open(p, nullSink{}, Options{}); err != nil {
		b.Fatal(err)
	}
	cacheWrites.Wait()
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	var open time.Duration
	for range b.N {
		t0 := time.Now()
		s, res, err := Open(p, nullSink{}, Options{Watch: true})
		if err != nil || s == nil || res.SystemPromptSection == "" {
			b.Fatalf("Open: %v", err)
		}
		open += time.Since(t0)
		// The relevance index is built after Open returns: the time per
		// op is the session's, ready to rank; open-ms the answer's.
		s.World().Catalog.Ranker.Rank("add", 0)
	}
	b.ReportMetric(float64(open)/1e6/float64(b.N), "open-ms/op")
	b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(b.N), "cpu-ms/op")
}

func BenchmarkOpen1k(b *testing.B)   { benchOpen(b, 1000) }
func BenchmarkOpen10k(b *testing.B)  { benchOpen(b, 10000) }
func BenchmarkOpen100k(b *testing.B) { benchOpen(b, 100000) }
