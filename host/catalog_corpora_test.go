//go:build corpora

package host

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
	"github.com/skill-lifecycle/skill-lifecycle/internal/relbench"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// The findability and hint figures of issue 30, on the ML pack
// (../shared/corpora/ml-pack) mixed into 10,000 generated skills, with the
// pack's labelled prompts (dev-cases.jsonl).

// mlPack is the ML pack's skills folder and its labelled prompts, read by
// the relevance bench's loader.
func mlPack(t *testing.T) (string, []relbench.Case) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "corpora", "ml-pack")
	p, err := relbench.LoadPack("ml", filepath.Join(dir, "skills"), filepath.Join(dir, "dev-cases.jsonl"))
	if err != nil {
		t.Fatalf("shared data missing: %v (tests read ../shared beside the repository root)", err)
	}
	return filepath.Join(dir, "skills"), p.Cases
}

// mixedWorld is the ML pack's skills spread evenly among n generated ones
// (in the host's order), under cfg.
func mixedWorld(t *testing.T, dir string, n int, cfg rules.Config) *World {
	t.Helper()
	cat := skills.Discover(skills.Options{Paths: []string{dir}, NoDefaults: true})
	if len(cat.Skills) != 26 {
		t.Fatalf("%d ML pack skills, want 26", len(cat.Skills))
	}
	pack := gen.Pack(gen.Options{N: n, Seed: 30})
	var list []HostSkill
	var parsed []skills.Skill
	step := n / len(cat.Skills)
	ml := 0
	for i, g := range pack {
		if i%step == 0 && ml < len(cat.Skills) {
			s := cat.Skills[ml]
			ml++
			list = append(list, HostSkill{Name: s.Name, Description: s.Description, Path: s.Path})
			parsed = append(parsed, *s)
		}
		list = append(list, HostSkill{Name: g.Name, Description: g.Description, Path: "/gen/" + g.Name + "/SKILL.md"})
		s := skills.Skill{Name: g.Name, Description: g.Description, Body: g.Body, Dir: "/gen/" + g.Name}
		for j, h := range g.Headings {
			s.Headings = append(s.Headings, skills.Heading{Text: h, Level: g.Levels[j]})
		}
		if g.Router {
			s.Role = skills.RoleEntry
		}
		parsed = append(parsed, s)
	}
	return NewWorld(list, parsed, cfg, nil)
}

// TestFindabilityMLPackIn10k: the expected skill of each labelled prompt
// is in the listing or in the search's top 3 for the prompt, for at least
// 95% of the prompts.
func TestFindabilityMLPackIn10k(t *testing.T) {
	dir, cases := mlPack(t)
	w := mixedWorld(t, dir, 10000, rules.Default())
	l := w.listing(0)
	listed := map[string]bool{}
	for _, n := range listedNames(l.Section) {
		listed[n] = true
	}
	t.Logf("listing: %d characters, %d skills listed, %d left out", utf16Len(l.Section), l.Listed, l.Omitted)
	total, inListing, inSearch, searchAlone := 0, 0, 0, 0
	for _, c := range cases {
		if len(c.Expect) == 0 {
			continue
		}
		total++
		want := c.Expect[0]
		var top []string
		for _, m := range w.search(c.Prompt, 3) {
			top = append(top, m.Name)
		}
		if slices.Contains(top, want) {
			searchAlone++
		}
		switch {
		case listed[want]:
			inListing++
		case slices.Contains(top, want):
			inSearch++
		default:
			t.Logf("not found: %q (want %s; search %v)", c.Prompt, want, top)
		}
	}
	found := inListing + inSearch
	t.Logf("the search's top 3 alone: %d of %d", searchAlone, total)
	t.Logf("findable: %d of %d prompts (%.1f%%): %d in the listing, %d more in the search's top 3", found, total, 100*float64(found)/float64(total), inListing, inSearch)
	if float64(found) < 0.95*float64(total) {
		t.Errorf("findable for %d of %d prompts, want at least 95%%", found, total)
	}
}

// TestHintPrecisionMLPackIn10k: on every labelled prompt, with no body
// live, the hints name one of the case's skills (hintLabels) at least 90%
// of the time; the recall is logged.
func TestHintPrecisionMLPackIn10k(t *testing.T) {
	dir, cases := mlPack(t)
	w := mixedWorld(t, dir, 10000, rules.Default())
	h := rules.DefaultHint()
	fired, right, labelled := hintFigures(w, h, cases)
	t.Logf("hint (minScore %g, margin %g): %d fired, %d right (precision %.1f%%); recall %d of %d labelled prompts (%.1f%%)",
		h.MinScore, h.Margin, fired, right, pct(right, fired), right, labelled, pct(right, labelled))
	if fired == 0 || float64(right) < 0.9*float64(fired) {
		t.Errorf("hint precision %d of %d, want at least 90%%", right, fired)
	}
	if testing.Verbose() {
		for _, ms := range []float64{8, 12, 16, 20, 25, 30} {
			for _, mg := range []float64{1.2, 1.5, 2, 2.5} {
				f, r, n := hintFigures(w, rules.Hint{Enabled: true, MinScore: ms, Margin: mg}, cases)
				t.Logf("minScore %g margin %g: fired %d, precision %.1f%%, recall %.1f%%", ms, mg, f, pct(r, f), pct(r, n))
			}
		}
	}
}

// hintLabels are the skills a hint may name for c, from a session where
// no body is live yet: the skill whose evaluation the prompt comes from
// (it is the one that handles it) and the ones the case expects it to
// load; none for a router's case, but what it routes to, nor for a case
// that should ask the user ("ask").
func hintLabels(c relbench.Case) []string {
	switch {
	case c.Kind == "ask":
		return nil
	case c.Origin == "router":
		return c.Expect
	}
	return append([]string{c.Host}, c.Expect...)
}

func hintFigures(w *World, h rules.Hint, cases []relbench.Case) (fired, right, labelled int) {
	for _, c := range cases {
		ok := hintLabels(c)
		if len(ok) > 0 {
			labelled++
		}
		skill, _, _ := w.Hint(h, c.Prompt)
		if skill == "" {
			continue
		}
		fired++
		if slices.Contains(ok, skill) {
			right++
		}
	}
	return fired, right, labelled
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

func listedNames(section string) []string {
	var out []string
	for _, part := range strings.Split(section, "<name>")[1:] {
		out = append(out, part[:strings.Index(part, "</name>")])
	}
	return out
}
