package host

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// findWorld is a world of the skills named in bodies (in that order),
// each with that body; a name starting with "hidden" is not
// model-visible.
func findWorld(names []string, bodies map[string]string) *World {
	var list []HostSkill
	var parsed []skills.Skill
	for _, n := range names {
		list = append(list, HostSkill{Name: n, Description: n, Path: "/s/" + n + "/SKILL.md", DisableModelInvocation: strings.HasPrefix(n, "hidden")})
		parsed = append(parsed, skills.Skill{Name: n, Description: n, Dir: "/s/" + n, Body: bodies[n]})
	}
	return NewWorld(list, parsed, rules.Default(), nil)
}

// TestBodyIn: the finder answers as looking for every trimmed body of 64
// bytes or more in the text would: the longest found, the first in the
// host's order among equals, the hash of the text found.
func TestBodyIn(t *testing.T) {
	long := strings.Repeat("Step one: read the data, then plot it. ", 4) // 156 bytes
	short := long[:80]
	bodies := map[string]string{
		"long":        "\n\n" + long + "\n",
		"short":       short,
		"twin":        "  " + short + "\t",
		"tiny":        "Only a few words.",
		"hidden-long": long + " and more than the others have",
		"other":       strings.Repeat("x", 63) + "y",
	}
	w := findWorld([]string{"short", "long", "twin", "tiny", "hidden-long", "other"}, bodies)
	for _, c := range []struct {
		name, text, want string
	}{
		{"none", "nothing of the skills here", ""},
		{"whole long body", "$ cat SKILL.md\n---\nname: long\n---\n" + long + "\n", "long"},
		{"at the very start and end", long, "long"},
		{"the short one; its twin comes later", "out: " + short + " end", "short"},
		{"long holds short: the longest", "a " + short + "\n" + long, "long"},
		{"a byte changed at the end", long[:len(long)-2] + "!", "short"},
		{"too short to look for", "x " + bodies["tiny"], ""},
		{"hidden skill's body alone", bodies["hidden-long"], "long"},
		{"63 bytes of x then y", strings.Repeat("x", 200) + "y", "other"},
		{"the head but not the rest", short[:64] + " something else entirely", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &Session{world: w}
			got := s.bodyIn(c.text)
			name := ""
			if got != nil {
				name = got.Skill
				body := strings.TrimSpace(bodies[name])
				if got.Hash != lifecycle.HashBody(body) {
					t.Errorf("hash %s, want that of %q's body", got.Hash, name)
				}
			}
			if name != c.want {
				t.Errorf("found %q, want %q", name, c.want)
			}
			if want := linearBodyIn(w, c.text); want != name {
				t.Errorf("found %q, a search of every body finds %q", name, want)
			}
		})
	}
}

// linearBodyIn is bodyIn as a search of each body in turn.
func linearBodyIn(w *World, text string) string {
	best, n := "", 0
	for _, hs := range w.Skills.visible() {
		body := strings.TrimSpace(w.Parsed[hs.Name].Body)
		if len(body) >= minFoundBody && len(body) > n && strings.Contains(text, body) {
			best, n = hs.Name, len(body)
		}
	}
	return best
}

// TestBodyInBounded: bodies that share their start with every window of
// a crafted output cost at most maxFindBytes of hashing.
func TestBodyInBounded(t *testing.T) {
	head := strings.Repeat("a", minFoundBody)
	bodies := map[string]string{}
	var names []string
	for i := range 300 {
		n := fmt.Sprintf("s%d", i)
		names = append(names, n)
		bodies[n] = head + strings.Repeat("a", 100000+i) + "b"
	}
	w := findWorld(names, bodies)
	s := &Session{world: w}
	if got := s.bodyIn(strings.Repeat("a", 300000)); got != nil {
		t.Fatalf("found %+v in a text holding no whole body", got)
	}
	whole := bodies["s7"]
	if got := s.bodyIn(whole); got == nil || got.Skill != "s7" {
		t.Fatalf("found %+v, want s7", got)
	}
}

// BenchmarkToolResultBody measures bodyIn on a 50 KB output that holds
// no body, over generated catalogues.
func BenchmarkToolResultBody(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		pack := gen.Pack(gen.Options{N: n, Seed: 30})
		names := make([]string, len(pack))
		bodies := map[string]string{}
		for i, s := range pack {
			names[i], bodies[s.Name] = s.Name, s.Body
		}
		w := findWorld(names, bodies)
		text := strings.Repeat("a line of output from some command, nothing to see here 12345\n", 800)
		s := &Session{world: w}
		s.bodyIn(text) // the finder is made at the first use
		b.Run(fmt.Sprintf("gen-%d", n), func(b *testing.B) {
			for b.Loop() {
				s.bodyIn(text)
			}
		})
		b.Run(fmt.Sprintf("gen-%d-each-body", n), func(b *testing.B) {
			for b.Loop() {
				linearBodyIn(w, text)
			}
		})
	}
}
