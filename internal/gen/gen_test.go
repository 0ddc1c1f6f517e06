package gen

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"gopkg.in/yaml.v3"
)

func TestPackDeterministic(t *testing.T) {
	a := Pack(Options{N: 60, Seed: 7})
	b := Pack(Options{N: 60, Seed: 7})
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("same seed, different packs:\n%s", diff)
	}
	c := Pack(Options{N: 60, Seed: 8})
	if cmp.Equal(a, c) {
		t.Fatal("different seeds gave the same pack")
	}
}

func TestPackShape(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 200} {
		skills := Pack(Options{N: n, Seed: 1, MinBody: 500, MaxBody: 3000})
		if len(skills) != n {
			t.Fatalf("N=%d: got %d skills", n, len(skills))
		}
		seen := map[string]bool{}
		for i, s := range skills {
			if seen[s.Name] {
				t.Fatalf("N=%d: name %s twice", n, s.Name)
			}
			seen[s.Name] = true
			if s.Router != (i == 0) {
				t.Fatalf("N=%d: skill %d router=%v", n, i, s.Router)
			}
			if s.Description == "" || len(s.Headings) == 0 || len(s.Headings) != len(s.Levels) {
				t.Fatalf("N=%d: skill %s lacks description or headings", n, s.Name)
			}
			if i > 0 && (len(s.Body) < 500 || len(s.Body) > 3000+2000) {
				t.Errorf("N=%d: %s body %d bytes, outside about [500, 3000]", n, s.Name, len(s.Body))
			}
			for _, h := range s.Headings {
				if !strings.Contains(s.Body, "# "+h+"\n") {
					t.Errorf("%s: heading %q not in the body", s.Name, h)
				}
			}
		}
	}
}

// TestPackCrossRefs checks the generated references against the relevance
// package's reading of the bodies, and that the router is inferred as the
// entry.
func TestPackCrossRefs(t *testing.T) {
	skills := Pack(Options{N: 300, Seed: 3})
	bodies := make([]relevance.Body, len(skills))
	names := make([]string, len(skills))
	for i, s := range skills {
		bodies[i] = relevance.Body{Name: s.Name, Text: s.Body}
		names[i] = s.Name
	}
	refs := relevance.CrossRefs(bodies)
	for _, s := range skills {
		r := refs[s.Name]
		for _, c := range s.Calls {
			if !slices.Contains(r.Loads, c) {
				t.Errorf("%s calls %s, not found as a load in %v", s.Name, c, r.Loads)
			}
		}
		for _, f := range s.Forbids {
			if !slices.Contains(r.Names, f) {
				t.Errorf("%s forbids %s, not found as a name", s.Name, f)
			}
			if !slices.Contains(s.Calls, f) && slices.Contains(r.Loads, f) {
				t.Errorf("%s forbids %s, read as a load", s.Name, f)
			}
		}
		for _, m := range s.Mentions {
			if !slices.Contains(r.Names, m) {
				t.Errorf("%s mentions %s, not found", s.Name, m)
			}
		}
	}
	if got := relevance.InferEntry(names, refs); got != skills[0].Name {
		t.Errorf("inferred entry %q, want the router %q", got, skills[0].Name)
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	skills := Pack(Options{N: 5, Seed: 2})
	if err := Write(dir, skills); err != nil {
		t.Fatal(err)
	}
	for _, s := range skills {
		data, err := os.ReadFile(filepath.Join(dir, s.Name, "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		end := strings.Index(text[4:], "\n---\n")
		if !strings.HasPrefix(text, "---\n") || end < 0 {
			t.Fatalf("%s: no frontmatter", s.Name)
		}
		var fm struct{ Name, Description string }
		if err := yaml.Unmarshal([]byte(text[4:4+end]), &fm); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if fm.Name != s.Name || strings.Join(strings.Fields(fm.Description), " ") != s.Description {
			t.Errorf("%s: frontmatter %+v does not match", s.Name, fm)
		}
		if !strings.HasSuffix(text, s.Body) {
			t.Errorf("%s: body not written", s.Name)
		}
	}
}
