//go:build corpora

package lifecycle

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// sharedDir returns ../shared beside the repository root, failing the test
// with a clear message when it is missing.
func sharedDir(tb testing.TB, parts ...string) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file)) // lifecycle/ -> repo root
	p := filepath.Join(append([]string{root, "..", "shared"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("shared data missing: %v (tests read ../shared beside the repository root)", err)
	}
	return p
}

// mlPack parses the ML pack's SKILL.md files.
func mlPack(tb testing.TB) []skills.Skill {
	tb.Helper()
	dir := sharedDir(tb, "corpora", "ml-pack", "skills")
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []skills.Skill
	for _, e := range ents {
		p := filepath.Join(dir, e.Name(), "SKILL.md")
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s, ds := skills.Parse(p, data)
		for _, d := range ds {
			if d.Severity == skills.Error {
				tb.Fatalf("%s: %v", p, d)
			}
		}
		s.Dir = filepath.Dir(p)
		out = append(out, *s)
	}
	if len(out) < 20 {
		tb.Fatalf("ML pack: only %d skills parsed from %s", len(out), dir)
	}
	return out
}

type devCase struct {
	Prompt string   `json:"prompt"`
	Host   string   `json:"host"`
	Origin string   `json:"origin"`
	Kind   string   `json:"kind"`
	Expect []string `json:"expect"`
}

func devCases(tb testing.TB) []devCase {
	tb.Helper()
	f, err := os.Open(sharedDir(tb, "corpora", "ml-pack", "dev-cases.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []devCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c devCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatalf("dev-cases.jsonl: %v", err)
		}
		out = append(out, c)
	}
	return out
}

// TestMLPackCatalog checks CatalogOf on the real pack: triage-ml-task is
// the inferred entry (the pack declares none), and it calls other skills.
func TestMLPackCatalog(t *testing.T) {
	cat := CatalogOf(mlPack(t), nil)
	e := New(cat, rules.Default())
	if name, src := e.Entry(); name != "triage-ml-task" || src != "inferred" {
		t.Errorf("entry = %q (%s), want triage-ml-task (inferred)", name, src)
	}
	for _, s := range cat.Skills {
		if s.Name == "triage-ml-task" && len(s.Calls) < 5 {
			t.Errorf("triage-ml-task calls only %v", s.Calls)
		}
	}
}

// TestMLPackHostKept judges each dev case whose prompt was given while its
// host skill was loaded: the host body, older than five other loaded
// bodies and with minKeep 0 (so that only relevance protects it), must be
// kept (relevant, or no signal, or not judged) in most cases. It logs the
// figures it measures; the floor sits just below them (76 of 104 when
// written), so a regression of the ranking or of the rules shows.
func TestMLPackHostKept(t *testing.T) {
	pack := mlPack(t)
	cat := CatalogOf(pack, nil)
	names := make([]string, 0, len(pack))
	for _, s := range pack {
		names = append(names, s.Name)
	}
	sort.Strings(names)
	c := rules.Default()
	c.MinKeep = 0
	c.PinEntrySkill = false
	var n, kept, byRelevance int
	codes := map[rules.Code]int{}
	for i, dc := range devCases(t) {
		if dc.Origin != "skill" || dc.Host == "" {
			continue
		}
		loaded := []string{dc.Host}
		for k := 0; len(loaded) < 6; k++ { // five other skills, chosen by position
			o := names[(i*7+k*5)%len(names)]
			if o != dc.Host && !contains(loaded, o) {
				loaded = append(loaded, o)
			}
		}
		ex := Explain(cat, c, loaded, dc.Prompt)
		v := ex.Decisions[0]
		n++
		codes[v.Reason.Code]++
		if v.Keep {
			kept++
			if v.Reason.Code == rules.KeepRelevant {
				byRelevance++
			}
		} else {
			t.Logf("host %s evicted on %q: %s", dc.Host, dc.Prompt, v.Reason.Text)
		}
	}
	t.Logf("host kept %d/%d (%d as relevant); reasons %v", kept, n, byRelevance, codes)
	if n == 0 {
		t.Fatal("no dev case with a host")
	}
	if float64(kept) < 0.70*float64(n) {
		t.Errorf("host kept in %d of %d cases, below the 70%% floor", kept, n)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
