package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// TestLoadCatalogIsCatalogOf checks that Load, which finds each body's
// cross-references as it reads it, builds the catalog CatalogOf builds
// from the skills it read: also when a skill that others name cannot be
// read (c-z here), whose name then extends no list of calls ("Load c-z
// ... b-y" is no call of b-y, twelve words past the verb).
func TestLoadCatalogIsCatalogOf(t *testing.T) {
	agent := t.TempDir()
	root := filepath.Join(agent, "skills")
	list := []HostSkill{
		writeTestSkill(t, root, "a-x", "Load c-z one two three four five six seven eight nine ten eleven b-y.\n"),
		writeTestSkill(t, root, "b-y", "Use `a-x` first; do not load d-w.\n"),
		writeTestSkill(t, root, "c-z", "Load a-x.\n"),
		writeTestSkill(t, root, "d-w", "# Steps\n\nRun b-y, then a-x.\n"),
	}
	if err := os.WriteFile(list[2].Path, []byte("---\nname: [c-z\n---\nLoad a-x.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := Load(Source{Skills: list, Cwd: t.TempDir(), AgentDir: agent})
	if !strings.Contains(strings.Join(w.Diagnostics, "\n"), `skill "c-z"`) {
		t.Fatalf("no diagnostic for the unreadable c-z: %q", w.Diagnostics)
	}
	var parsed []skills.Skill
	for _, hs := range list {
		if s, ok := w.Parsed[hs.Name]; ok {
			parsed = append(parsed, *s)
		}
	}
	if len(parsed) != 3 {
		t.Fatalf("%d skills read, want 3", len(parsed))
	}
	want := lifecycle.CatalogOf(parsed, nil)
	opt := cmpopts.IgnoreFields(lifecycle.Catalog{}, "Ranker")
	if d := cmp.Diff(want, w.Catalog, opt); d != "" {
		t.Errorf("Load's catalog differs from CatalogOf's (-CatalogOf +Load):\n%s", d)
	}
	for _, prompt := range []string{"load the steps", "a-x things"} {
		if d := cmp.Diff(want.Ranker.Rank(prompt, 0), w.Catalog.Ranker.Rank(prompt, 0)); d != "" {
			t.Errorf("ranking of %q differs (-CatalogOf +Load):\n%s", prompt, d)
		}
	}
}
