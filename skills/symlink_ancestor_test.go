package skills

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiscoverLinkToAncestor: a skill folder that is a link to "/" (or to
// any folder holding the scanned one) is reported and not followed, instead
// of scanning the whole file system; links to other folders still are.
func TestDiscoverLinkToAncestor(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		"s/good/SKILL.md":       sk("good", "g"),
		"s/evil":                "->/",
		"s/deeper/up":           "->../..",
		"s/self":                "->.",
		"s/sibling":             "->../other",
		"other/linked/SKILL.md": sk("linked", "reached through a link to a sibling folder"),
		"outside/SKILL.md":      sk("outside", "beside the skills folder: must not be found"),
	})
	c := Discover(Options{Paths: []string{filepath.Join(root, "s")}})
	if diff := cmp.Diff([]string{"good", "linked"}, c.Names()); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	var got []string
	for _, d := range c.Diagnostics {
		rel, _ := filepath.Rel(root, d.Path)
		got = append(got, filepath.ToSlash(rel)+" "+d.Code)
	}
	want := []string{"s/deeper/up symlink-to-ancestor", "s/evil symlink-to-ancestor"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}
