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

// TestHostWithoutDescriptions: a host list without descriptions (the
// bridge's) is listed, searched and shown with each file's description;
// one the host gives is kept; a file that cannot be read lists its name
// alone.
func TestHostWithoutDescriptions(t *testing.T) {
	agent := t.TempDir()
	root := filepath.Join(agent, "skills")
	a := writeTestSkill(t, root, "plot-charts", "Draw the data.\n")
	b := writeTestSkill(t, root, "load-csv", "Read the file.\n")
	c := writeTestSkill(t, root, "broken", "Nothing.\n")
	if err := os.WriteFile(c.Path, []byte("---\nname: [broken\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.Description, c.Description = "", ""
	b.Description = "Load CSV files, as the host says"
	s, res, err := Open(InitializeParams{Cwd: t.TempDir(), AgentDir: agent, Skills: []HostSkill{a, b, c}}, &recorder{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<description>plot-charts things</description>", "<description>Load CSV files, as the host says</description>", "<name>broken</name>\n    <description></description>"} {
		if !strings.Contains(res.SystemPromptSection, want) {
			t.Errorf("section lacks %q:\n%s", want, res.SystemPromptSection)
		}
	}
	got := map[string]string{}
	for _, hs := range s.world.Skills.List() {
		got[hs.Name] = hs.Description
	}
	want := map[string]string{"plot-charts": "plot-charts things", "load-csv": "Load CSV files, as the host says", "broken": ""}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the world's descriptions (-want +got):\n%s", d)
	}
	if ms := s.world.search("plot charts", 3); len(ms) == 0 || ms[0].Description != "plot-charts things" {
		t.Errorf("search: %+v, want plot-charts with its file's description first", ms)
	}
}
