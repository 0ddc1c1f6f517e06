package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
)

// mlPackDir returns ../shared/corpora/ml-pack beside the repository root.
func mlPackDir(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	dir := filepath.Join(root, "..", "shared", "corpora", "ml-pack")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("shared data missing: %v (tests read ../shared beside the repository root)", err)
	}
	return dir
}

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

func TestExplainJSON(t *testing.T) {
	skillsDir := filepath.Join(mlPackDir(t), "skills")
	var out, errb bytes.Buffer
	code := run([]string{"explain", "--skills", skillsDir, "--json", "Export the project."}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// The exact shape: prompt, signal, best, ranking of {skill, score, terms}.
	var got struct {
		Prompt  string   `json:"prompt"`
		Signal  *bool    `json:"signal"`
		Best    *float64 `json:"best"`
		Ranking []struct {
			Skill string   `json:"skill"`
			Score float64  `json:"score"`
			Terms []string `json:"terms"`
		} `json:"ranking"`
	}
	decodeOne(t, out.Bytes(), &got)
	if got.Prompt != "Export the project." || got.Signal == nil || !*got.Signal || got.Best == nil {
		t.Fatalf("header: %s", out.String())
	}
	if len(got.Ranking) < 3 || got.Ranking[0].Skill != "export-ml-project" || got.Ranking[0].Score != *got.Best {
		t.Fatalf("ranking: %s", out.String())
	}
	if diff := cmp.Diff([]string{"export", "project"}, got.Ranking[0].Terms); diff != "" {
		t.Errorf("terms (-want +got):\n%s", diff)
	}
	for i := 1; i < len(got.Ranking); i++ {
		if got.Ranking[i].Score > got.Ranking[i-1].Score {
			t.Errorf("not sorted at %d", i)
		}
	}

	// No signal, and an empty ranking is [] not null.
	out.Reset()
	if code := run([]string{"explain", "--skills", skillsDir, "--json", "Yes, that one."}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if s := strings.TrimSpace(out.String()); s != `{"prompt":"Yes, that one.","signal":false,"best":0,"ranking":[]}` {
		t.Errorf("no-topic output: %s", s)
	}
}

func TestExplainText(t *testing.T) {
	skillsDir := filepath.Join(mlPackDir(t), "skills")
	var out, errb bytes.Buffer
	if code := run([]string{"explain", "--skills", skillsDir, "--top", "2", "Give", "me", "an", "executed", "ipynb"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 || lines[0] != "prompt: Give me an executed ipynb" || !strings.HasPrefix(lines[1], "signal: yes") ||
		!strings.Contains(lines[3], "export-ml-notebook") || !strings.Contains(lines[3], "execut ipynb") {
		t.Errorf("text output:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"explain", "--skills", skillsDir, "Review."}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "signal: no") {
		t.Errorf("Review. should carry no signal:\n%s", out.String())
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
		{"unknown flag", []string{"explain", "--nope", "x"}, 2, "", "flag provided but not defined"},
		{"negative top", []string{"explain", "--top", "-1", "x"}, 2, "", "--top"},
		{"NaN min-signal", []string{"explain", "--min-signal", "NaN", "x"}, 2, "", "--min-signal"},
		{"missing folder", []string{"explain", "--skills", "/nonexistent/skills", "x"}, 1, "", "/nonexistent/skills"},
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

// TestExplainMLPackQuality ranks the labelled dev prompts through the
// command's own catalog path (skills.Discover, then indexCatalog) and
// checks the same floors as the relevance package's quality test.
func TestExplainMLPackQuality(t *testing.T) {
	dir := mlPackDir(t)
	cat, err := loadCatalog([]string{filepath.Join(dir, "skills")})
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Skills) != 26 {
		t.Fatalf("%d skills in the ML pack, want 26", len(cat.Skills))
	}
	ix := indexCatalog(cat.Skills, relevance.DefaultParams())
	f, err := os.Open(filepath.Join(dir, "dev-cases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, h1, h3 := 0, 0, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c struct {
			Prompt string   `json:"prompt"`
			Expect []string `json:"expect"`
			Kind   string   `json:"kind"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if c.Kind != "certain" || len(c.Expect) == 0 {
			continue
		}
		n++
		rep := rankPrompt(ix, c.Prompt, relevance.DefaultMinSignal, 3)
		for i, r := range rep.Ranking {
			if slices.Contains(c.Expect, r.Skill) {
				if i == 0 {
					h1++
				}
				h3++
				break
			}
		}
	}
	t.Logf("explain on the ML pack: hit@1 %d/%d, hit@3 %d/%d", h1, n, h3, n)
	if n != 26 || h1 < 10 || h3 < 11 {
		t.Errorf("hit@1 %d/%d, hit@3 %d/%d; floors are 10 and 11 of 26", h1, n, h3, n)
	}
}

func TestInferCatalogRoles(t *testing.T) {
	cat, err := loadCatalog([]string{filepath.Join(mlPackDir(t), "skills")})
	if err != nil {
		t.Fatal(err)
	}
	got := inferCatalogRoles(cat)
	if diff := cmp.Diff(map[string]string{"triage-ml-task": "entry"}, func() map[string]string {
		m := map[string]string{}
		for k, v := range got {
			m[k] = string(v)
		}
		return m
	}()); diff != "" {
		t.Errorf("inferred roles (-want +got):\n%s", diff)
	}
}
