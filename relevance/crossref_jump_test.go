package relevance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fullScan is the scan word by word from the first byte, without the
// jumps to clause starts that scan makes when every name has a hyphen.
func fullScan(self, text string, names nameSet) Refs {
	var sc scanner
	c := cursor{lineStart: true}
	c.reset()
	sc.run(&c, self, text, names, len(text))
	return Refs{Names: sorted(sc.named), Loads: sorted(sc.loaded)}
}

var jumpTexts = []string{
	"Load `b-skill` next.",
	"Do not\n  load `b-skill` here; then c-skill.",
	"Load one of b-skill, c-skill or `d-skill`. Never b-skill!",
	"use x. b-skill\n\n- load c-skill\n  and d-skill",
	"Do not load b-skill, load c-skill instead.",
	"Load a b c d e f g h i j k b-skill l m n o p q r s c-skill",
	"Load\n| x | b-skill |\n> c-skill;d-skill.e-skill",
	"-b-skill- -c-skill's d-skill’s «e-skill» don't\n# load\nb-skill",
	"Export → `b-skill` => c-skill?d-skill ! b-skill",
	"ünï-côdé b-skill é-b-skill b-skill-x x-b-skill",
	"avoid\r\n\r\nusing b-skill\r\n  * run c-skill",
	"load", "-", "b-skill", "\n\n", "b-skill.",
}

func jumpNames() nameSet {
	return newNameSet([]string{"a-skill", "b-skill", "c-skill", "D-Skill", "e-skill", "b-skill-x"})
}

func TestScanJumpsLikeFullScan(t *testing.T) {
	names := jumpNames()
	var sc scanner
	for _, text := range jumpTexts {
		for _, self := range []string{"a-skill", "b-skill"} {
			got, want := sc.scan(self, text, names), fullScan(self, text, names)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("scan(%q, %q) differs from the full scan (-full +scan):\n%s", self, text, diff)
			}
		}
	}
	p := generated(1000)
	all := make([]string, len(p.bodies))
	for i, b := range p.bodies {
		all[i] = b.Name
	}
	gn := newNameSet(all)
	if gn.oneWord {
		t.Fatal("the generated names have no one-word name: the test needs them hyphenated")
	}
	found := 0
	for _, b := range p.bodies {
		got, want := sc.scan(b.Name, b.Text, gn), fullScan(b.Name, b.Text, gn)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("scan of %s differs from the full scan (-full +scan):\n%s", b.Name, diff)
		}
		found += len(got.Loads)
	}
	if found == 0 {
		t.Error("no calls found in the generated pack: the comparison shows nothing")
	}
}

func FuzzScanJumps(f *testing.F) {
	for _, s := range jumpTexts {
		f.Add(s)
	}
	names := jumpNames()
	f.Fuzz(func(t *testing.T, text string) {
		var sc scanner
		got, want := sc.scan("a-skill", text, names), fullScan("a-skill", text, names)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("scan(%q) differs from the full scan (-full +scan):\n%s", text, diff)
		}
	})
}
