package relbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// floor is what a dev pack must keep: hit@1 and hit@3 of its certain
// cases, the host kept with at most maxKept skills kept per judged prompt,
// and every no-topic prompt silent. The floors are the figures measured
// when they were set (docs/relevance.md): raise them when the ranking gets
// better; a change that lowers one is a regression on that pack.
type floor struct {
	hit1, hit3, host int
	maxKept          float64
}

var floors = map[string]floor{
	"web (testdata/pack)": {hit1: 21, hit3: 22, host: 16, maxKept: 3.1},
	"app":                 {hit1: 28, hit3: 29, host: 19, maxKept: 3.1},
	"content":             {hit1: 34, hit3: 35, host: 18, maxKept: 3.1},
	"fr-es":               {hit1: 57, hit3: 57, host: 15, maxKept: 2.9},
	"ops":                 {hit1: 33, hit3: 35, host: 20, maxKept: 3.1},
	"ml (shared)":         {hit1: 11, hit3: 14, host: 102, maxKept: 3.45},
}

// silentExceptions are the no-topic prompts known to carry a signal.
var silentExceptions = map[string]int{
	"content": 1, // "What do you think, should I change anything?": "change" is a topic word
}

func checkPack(t *testing.T, sp Spec) {
	t.Helper()
	p, err := LoadPack(sp.Name, sp.Skills, sp.Cases)
	if err != nil {
		t.Fatal(err)
	}
	rep := Evaluate(p, Ranker(p), KeepConfig())
	t.Logf("\n%s", Table([]Report{rep}))
	for _, l := range rep.Lines {
		t.Log(l)
	}
	f, ok := floors[sp.Name]
	if !ok {
		t.Fatalf("no floor for pack %q", sp.Name)
	}
	if rep.Hit1 < f.hit1 || rep.Hit3 < f.hit3 {
		t.Errorf("%s: hit@1 %d, hit@3 %d of %d, below the floors %d, %d", sp.Name, rep.Hit1, rep.Hit3, rep.Certain, f.hit1, f.hit3)
	}
	if rep.HostKept < f.host {
		t.Errorf("%s: host kept %d of %d, below the floor %d", sp.Name, rep.HostKept, rep.Host, f.host)
	}
	if rep.Judged > 0 {
		if kpp := float64(rep.KeptJudged) / float64(rep.Judged); kpp > f.maxKept {
			t.Errorf("%s: %.2f skills kept per judged prompt, above %.2f", sp.Name, kpp, f.maxKept)
		}
	}
	if rep.NoTopicSignal > silentExceptions[sp.Name] {
		t.Errorf("%s: %d of %d no-topic prompts have a signal", sp.Name, rep.NoTopicSignal, rep.NoTopic)
	}
}

// TestDevPacks measures the repository's own dev packs (testdata/relevance
// and the bundled testdata/pack) against their floors.
func TestDevPacks(t *testing.T) {
	specs := DevPacks("../..", false)
	if len(specs) < 5 {
		t.Fatalf("found %d dev packs under testdata, want the bundled pack and four of testdata/relevance", len(specs))
	}
	for _, sp := range specs {
		t.Run(sp.Name, func(t *testing.T) { checkPack(t, sp) })
	}
}

// TestLoadPackRejectsUnknownSkills: a case naming a skill the pack does
// not have is a labelling error, reported with its line.
func TestLoadPackRejectsUnknownSkills(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/a-skill/SKILL.md", "---\nname: a-skill\ndescription: Does a.\n---\n# A\n")
	writeFile(t, dir+"/cases.jsonl", `{"prompt": "x", "expect": ["a-skill"], "kind": "certain"}`+"\n"+`{"prompt": "y", "expect": ["b-skill"], "kind": "certain"}`+"\n")
	if _, err := LoadPack("t", dir, dir+"/cases.jsonl"); err == nil || !contains(err.Error(), "cases.jsonl:2") || !contains(err.Error(), "b-skill") {
		t.Errorf("err = %v, want one naming cases.jsonl:2 and b-skill", err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
