//go:build corpora

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
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

// TestExplainMLPackQuality ranks the labelled dev prompts through the
// command's own catalog path (skills.Discover, then host.OfCatalog) and
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
	ix := host.OfCatalog(cat, rules.Default()).Catalog.Ranker
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
	if n != 26 || h1 < 11 || h3 < 14 {
		t.Errorf("hit@1 %d/%d, hit@3 %d/%d; floors are 11 and 14 of 26", h1, n, h3, n)
	}
}

func TestInferCatalogRoles(t *testing.T) {
	cat, err := loadCatalog([]string{filepath.Join(mlPackDir(t), "skills")})
	if err != nil {
		t.Fatal(err)
	}
	got := inferRoles(cat)
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
