package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
)

// decodeOne decodes exactly one JSON object from data into v and fails if
// anything but white space follows it.
func decodeOne(t *testing.T, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("more than one JSON value in %s", data)
	}
}

func TestExplainUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring expected on stdout
		stderr string // substring expected on stderr
	}{
		{"help", []string{"explain", "--help"}, 0, "usage: skill-lifecycle explain", ""},
		{"no prompt", []string{"explain", "--json"}, 2, "", "a PROMPT is required"},
		{"blank prompt", []string{"explain", "  "}, 2, "", "a PROMPT is required"},
		{"unknown flag", []string{"explain", "--nope", "x"}, 2, "", "unknown flag --nope"},
		{"negative top", []string{"explain", "--top", "-1", "x"}, 2, "", "--top"},
		{"NaN min-signal", []string{"explain", "--min-signal", "NaN", "x"}, 2, "", "--min-signal"},
		{"missing folder", []string{"explain", "--skills", "/nonexistent/skills", "x"}, 2, "", "/nonexistent/skills"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tt.args, &out, &errb)
			if code != tt.code || !strings.Contains(out.String(), tt.stdout) || !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tt.code, out.String(), errb.String())
			}
		})
	}
}

// TestExplainDiscoversFromCwd runs explain without --skills in a project
// with a .pi/skills folder.
func TestExplainDiscoversFromCwd(t *testing.T) {
	dir := t.TempDir()
	if err := gen.Write(filepath.Join(dir, "proj", ".pi", "skills"), gen.Pack(gen.Options{N: 20, Seed: 5})); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "proj", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(dir, "proj"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("PI_CODING_AGENT_DIR", filepath.Join(dir, "agent"))
	pack := gen.Pack(gen.Options{N: 20, Seed: 5})
	target := pack[7]
	var out, errb bytes.Buffer
	if code := run([]string{"explain", "--json", target.Name}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got rankReport
	decodeOne(t, out.Bytes(), &got)
	if len(got.Ranking) == 0 || got.Ranking[0].Skill != target.Name {
		t.Errorf("prompt naming %s ranks %+v", target.Name, got.Ranking)
	}
}

// TestExplainMemoryLimitFromCatalog: explain's soft memory limit is sized
// from the heap the catalogue holds, never below 100 MiB: a fixed 100 MiB
// under a 600 MB heap made the collector run all the time (issue 30).
func TestExplainMemoryLimitFromCatalog(t *testing.T) {
	for _, heap := range []uint64{0, 10 << 20, 600 << 20, 4 << 30} {
		got := memoryLimitFor(heap)
		if got < 100<<20 || got < int64(heap)+int64(heap)/2 {
			t.Errorf("memoryLimitFor(%d MiB) = %d MiB, want at least 100 MiB and 1.5 times the heap", heap>>20, got>>20)
		}
	}
}
