package protocol

import (
	"fmt"
	"github.com/skill-lifecycle/skill-lifecycle/guard"
	"github.com/skill-lifecycle/skill-lifecycle/host"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// benchServer starts a server with n synthetic skills and returns it with
// the skills' names.
func benchServer(b *testing.B, n int) (*harness, []string) {
	b.Helper()
	h := startServer(b)
	root := b.TempDir()
	topics := []string{"postgres", "http", "tests", "profiling", "release", "migration", "tracing", "logging", "caching", "queues"}
	var list []HostSkill
	var names []string
	for i := range n {
		name := fmt.Sprintf("skill-%02d", i)
		desc := fmt.Sprintf("Work on %s and %s for the service, step %d", topics[i%len(topics)], topics[(i+3)%len(topics)], i)
		body := fmt.Sprintf("# %s\n\n## Steps\n\nDo the %s work carefully.\n\n## Checks\n\n%s\n", name, topics[i%len(topics)], strings.Repeat("Check the output. ", 200))
		p := writeSkill(b, root, name, desc, body, nil)
		list = append(list, HostSkill{Name: name, Description: desc, Path: p})
		names = append(names, name)
	}
	p := InitializeParams{ProtocolVersion: Version, Cwd: root, AgentDir: filepath.Join(root, "agent"), Trusted: ptrTrue(), Skills: list}
	if err := h.call(MethodInitialize, p, nil); err != nil {
		b.Fatal(err)
	}
	return h, names
}

// BenchmarkBeforeRequest measures one before_request round trip through the
// real framing over pipes: 30 loaded bodies, 28 installed skills.
func BenchmarkBeforeRequest(b *testing.B) {
	h, names := benchServer(b, 28)
	params := BeforeRequestParams{SincePreviousMs: 1200}
	for i := range 30 {
		params.Loads = append(params.Loads, LoadRef{
			ID: fmt.Sprintf("toolu_%024d", i), Skill: names[i%len(names)], Kind: lifecycle.ByTool, Size: 6000,
			Hash: fmt.Sprintf("%064x", i),
		})
	}
	var res BeforeRequestResult
	if err := h.call(MethodBeforeRequest, params, &res); err != nil {
		b.Fatal(err)
	}
	h.rec.records(b) // drop the load records of the first call
	var durs []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if err := h.call(MethodBeforeRequest, params, &res); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	if len(durs) > 0 {
		b.ReportMetric(float64(durs[len(durs)/2].Microseconds()), "median-µs")
	}
	if n := len(res.Archive); n > 30 {
		b.Fatalf("archive lists %d ids for 30 loads", n)
	}
}

// BenchmarkToolCallRead measures the read guard's decision for one read
// call, 28 installed skills: a project file (the usual read, served), a
// SKILL.md read whole (blocked) and one read on from line 40 (served,
// which reads the file to see what the range leaves out).
func BenchmarkToolCallRead(b *testing.B) {
	root := b.TempDir()
	var list []HostSkill
	for i := range 28 {
		name := fmt.Sprintf("skill-%02d", i)
		p := writeSkill(b, root, name, "Work on the service, step "+name, strings.Repeat("Check the output.\n", 200), nil)
		list = append(list, HostSkill{Name: name, Description: "d", Path: p})
	}
	project := filepath.Join(root, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "main.go"), []byte("package main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	cat := host.NewIndex(list)
	for _, bc := range []struct {
		name, input string
		block       bool
	}{
		{"project-file", `{"path":"main.go"}`, false},
		{"skill-md-whole", `{"path":"` + list[7].Path + `"}`, true},
		{"skill-md-read-on", `{"path":"` + list[7].Path + `","offset":40}`, false},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if r := guard.Check("read", []byte(bc.input), project, cat.SkillFile); r.Block != bc.block {
					b.Fatalf("block = %v, want %v", r.Block, bc.block)
				}
			}
		})
	}
}
