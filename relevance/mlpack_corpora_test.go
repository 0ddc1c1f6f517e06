//go:build corpora

package relevance

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mlPrompt is one of the ML pack's dev prompts.
const mlPrompt = "Give me an executed ipynb of the EDA."

func init() { mlCases = []benchCase{{"mlpack-26", mlBench, mlPrompt}} }

func TestEntryMLPack(t *testing.T) {
	pack := loadMLPack(t)
	bodies := make([]Body, len(pack))
	names := make([]string, len(pack))
	for i, p := range pack {
		bodies[i] = Body{Name: p.Name, Text: p.Body}
		names[i] = p.Name
	}
	refs := CrossRefs(bodies)
	if got := InferEntry(names, refs); got != "triage-ml-task" {
		t.Errorf("inferred entry %q, want triage-ml-task", got)
	}
	// Calls the router's procedure makes ("load `explore-ml-data`, stop").
	tri := refs["triage-ml-task"]
	for _, callee := range []string{"setup-git", "explore-ml-data", "export-ml-project", "model-ml-pipeline"} {
		if !slices.Contains(tri.Loads, callee) {
			t.Errorf("triage-ml-task should load %s; loads %v", callee, tri.Loads)
		}
	}
}

func TestDampingKeepsOrder(t *testing.T) {
	docs := docsOf(loadMLPack(t))
	on := NewIndex(docs, DefaultParams())
	p := DefaultParams()
	p.Damping = 0
	off := NewIndex(docs, p)
	for _, prompt := range []string{"Review.", "Export the project.", "Audit experiment 02 and review it"} {
		a, b := on.Rank(prompt, 0), off.Rank(prompt, 0)
		names := func(rk Ranking) []string {
			var out []string
			for _, r := range rk.Results {
				out = append(out, r.Skill)
			}
			return out
		}
		if diff := cmp.Diff(names(b), names(a)); diff != "" {
			t.Errorf("%q: damping changed the order (-off +on):\n%s", prompt, diff)
		}
		q := float64(len(slices.Compact(slices.Sorted(slices.Values(Terms(prompt)[:countUnigrams(prompt)])))))
		if want := b.Best * q / (q + 1); math.Abs(a.Best-want) > 1e-9 {
			t.Errorf("%q: damped best %v, want %v (q=%v)", prompt, a.Best, want, q)
		}
	}
}

func countUnigrams(text string) int {
	n := 0
	for _, t := range Terms(text) {
		if !strings.Contains(t, PairSep) {
			n++
		}
	}
	return n
}

func mlBench(b *testing.B) benchPack {
	ps := loadMLPack(b)
	p := benchPack{docs: docsOf(ps)}
	for _, s := range ps {
		p.bodies = append(p.bodies, Body{Name: s.Name, Text: s.Body})
	}
	return p
}
