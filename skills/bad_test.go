package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputs: each bad SKILL.md of the list yields a diagnostic
// that names its file, in discovery and in Check, in both modes, and the
// good skill beside them still loads.
func TestBadInputs(t *testing.T) {
	laughs := "---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		laughs += n + ": &" + n + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ",") + "]\n"
		prev = n
	}
	laughs += "description: *i\n---\n"
	garbage := make([]byte, 4096)
	for i := range garbage {
		garbage[i] = byte(i*7 + i/3)
	}
	root := t.TempDir()
	tree(t, root, map[string]string{
		"s/good/SKILL.md":       sk("good", "fine"),
		"s/garbage/SKILL.md":    string(garbage),
		"s/huge/SKILL.md":       sk("huge", "five megabytes") + strings.Repeat("word ", 1<<20),
		"s/bomb/SKILL.md":       laughs,
		"s/unclosed/SKILL.md":   "---\nname: unclosed\ndescription: never closed\n# Body\n",
		"s/deep/SKILL.md":       "---\ndescription: " + strings.Repeat("{a: ", 200) + "x" + strings.Repeat("}", 200) + "\n---\n",
		"s/loop/SKILL.md":       "->SKILL.md",
		"s/loop2/inner/up":      "->../../loop2",
		"s/latin1/SKILL.md":     "---\nname: latin1\ndescription: caf\xe9\n---\n",
		"s/fm-garbage/SKILL.md": "---\n\x00\x01\x02: \xff\n---\n",
	})
	bad := map[string]string{ // folder -> a code its file must get
		"garbage":    "not-utf8",
		"huge":       "file-too-large",
		"bomb":       "field-type", // description is a list, once expanded: rejected, not expanded
		"unclosed":   "unclosed-frontmatter",
		"deep":       "invalid-yaml",
		"latin1":     "not-utf8",
		"fm-garbage": "invalid-yaml",
	}
	for _, mode := range []Mode{Lenient, Strict} {
		c := Discover(Options{Paths: []string{filepath.Join(root, "s")}, Mode: mode})
		if _, ok := c.Lookup("good"); !ok {
			t.Errorf("%s: the good skill did not load: %s", mode, describe(c.Diagnostics))
		}
		for folder, code := range bad {
			file := filepath.Join(root, "s", folder, "SKILL.md")
			found := false
			for _, d := range c.Diagnostics {
				found = found || (d.Path == file && d.Code == code)
			}
			if !found {
				t.Errorf("%s: no %s diagnostic for %s in %s", mode, code, folder, describe(c.Diagnostics))
			}
		}
		for _, r := range Check(filepath.Join(root, "s"), mode) {
			if r.Skill != nil && r.Skill.Name == "good" {
				if !r.OK {
					t.Errorf("%s: good skill invalid: %s", mode, describe(r.Diagnostics))
				}
				continue
			}
			if folder := filepath.Base(filepath.Dir(r.Path)); bad[folder] != "" && folder != "latin1" && r.OK {
				t.Errorf("%s: Check says %s is valid", mode, r.Path)
			}
		}
	}
	// the bomb's parse stays small
	data, _ := os.ReadFile(filepath.Join(root, "s", "bomb", "SKILL.md"))
	allocs := testing.AllocsPerRun(5, func() { Parse("/b/SKILL.md", data) })
	if allocs > 5000 {
		t.Errorf("parsing the alias bomb took %.0f allocations", allocs)
	}
}
