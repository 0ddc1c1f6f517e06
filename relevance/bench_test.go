package relevance

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
)

// benchPrompt is a prompt of common vocabulary, so it matches many skills
// of a generated pack (a heavy case for Rank).
const benchPrompt = "Please review the data pipeline, check the test coverage and export the report to a notebook before the release."

// narrowPrompt names one topic; it matches a few percent of a generated
// pack.
const narrowPrompt = "Rotate the TLS certificate of the nginx server."

type benchPack struct {
	docs   []Doc
	bodies []Body
}

var (
	packsMu sync.Mutex
	packs   = map[int]benchPack{}
)

// generated returns a generated pack of n skills (seed 1), built once.
func generated(n int) benchPack {
	packsMu.Lock()
	defer packsMu.Unlock()
	if p, ok := packs[n]; ok {
		return p
	}
	skills := gen.Pack(gen.Options{N: n, Seed: 1})
	p := benchPack{docs: make([]Doc, n), bodies: make([]Body, n)}
	for i, s := range skills {
		p.docs[i] = Doc{Name: s.Name, Description: s.Description, Headings: s.Headings, Levels: s.Levels, Body: s.Body}
		p.bodies[i] = Body{Name: s.Name, Text: s.Body}
	}
	packs[n] = p
	return p
}

type benchCase struct {
	name   string
	pack   func(*testing.B) benchPack
	prompt string
}

// mlCases are the cases on the ML pack of ../shared, which the corpora
// build adds.
var mlCases []benchCase

func benchCases() []benchCase {
	return append(slices.Clone(mlCases), []benchCase{
		{"gen-1000", func(*testing.B) benchPack { return generated(1000) }, benchPrompt},
		{"gen-10000", func(*testing.B) benchPack { return generated(10000) }, benchPrompt},
	}...)
}

// rankCases adds a prompt on one narrow topic, the common case.
func rankCases() []benchCase {
	return append(benchCases(),
		benchCase{"gen-10000-narrow", func(*testing.B) benchPack { return generated(10000) }, narrowPrompt})
}

// reportCPU adds the process CPU time per operation since c0 (GC work on
// other threads included).
func reportCPU(b *testing.B, c0 int64) {
	if c := cpuTime(); c > 0 && b.N > 0 {
		b.ReportMetric(float64(c-c0)/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkNewIndex(b *testing.B) {
	for _, c := range benchCases() {
		b.Run(c.name, func(b *testing.B) {
			p := c.pack(b)
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for b.Loop() {
				NewIndex(p.docs, DefaultParams())
			}
			reportCPU(b, c0)
		})
	}
}

func BenchmarkRank(b *testing.B) {
	for _, c := range rankCases() {
		b.Run(c.name, func(b *testing.B) {
			ix := NewIndex(c.pack(b).docs, DefaultParams())
			b.ReportAllocs()
			b.ResetTimer()
			var rk Ranking
			c0 := cpuTime()
			for b.Loop() {
				rk = ix.Rank(c.prompt, DefaultMinSignal)
			}
			reportCPU(b, c0)
			b.ReportMetric(float64(len(rk.Results)), "results")
		})
	}
}

func BenchmarkCrossRefs(b *testing.B) {
	for _, c := range benchCases() {
		b.Run(c.name, func(b *testing.B) {
			p := c.pack(b)
			size := 0
			for _, body := range p.bodies {
				size += len(body.Text)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			b.ResetTimer()
			c0 := cpuTime()
			for b.Loop() {
				CrossRefs(p.bodies)
			}
			reportCPU(b, c0)
		})
	}
}

// TestGeneratedPackRanks keeps the benchmark inputs honest: the generated
// packs index, rank the bench prompt to many skills, and infer their
// router as entry.
func TestGeneratedPackRanks(t *testing.T) {
	p := generated(1000)
	ix := NewIndex(p.docs, DefaultParams())
	rk := ix.Rank(benchPrompt, DefaultMinSignal)
	if len(rk.Results) < 100 || !rk.Signal {
		t.Errorf("bench prompt ranks %d skills (signal %v), want a heavy case", len(rk.Results), rk.Signal)
	}
	names := make([]string, len(p.docs))
	for i, d := range p.docs {
		names[i] = d.Name
	}
	if got, want := InferEntry(names, CrossRefs(p.bodies)), p.docs[0].Name; got != want {
		t.Errorf("entry %q, want %q", got, want)
	}
	// A prompt built from one skill's name finds that skill first.
	target := p.docs[500]
	if got := ix.Rank(fmt.Sprintf("%s please", target.Name), 0).Results[0].Skill; got != target.Name {
		t.Errorf("rank by name: first %s, want %s", got, target.Name)
	}
}
