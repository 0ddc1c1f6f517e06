package host

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/guard"
)

// TestFoldersResolved: the guard's folders are resolved as
// filepath.EvalSymlinks resolves them, whether the world was read (the
// files' resolved paths at hand, a folder reached through no link taken
// as it is) or only indexed.
func TestFoldersResolved(t *testing.T) {
	root := t.TempDir()
	skillsDir := filepath.Join(root, "skills")
	direct := writeTestSkill(t, skillsDir, "direct", "D body\n")
	elsewhere := writeTestSkill(t, filepath.Join(root, "elsewhere"), "linked", "L body\n")
	if err := os.Symlink(filepath.Dir(elsewhere.Path), filepath.Join(skillsDir, "linked")); err != nil {
		t.Fatal(err)
	}
	linked := HostSkill{Name: "linked", Description: elsewhere.Description, Path: filepath.Join(skillsDir, "linked", "SKILL.md")}
	inner := writeTestSkill(t, skillsDir, "inner", "I body\n")
	if err := os.Rename(inner.Path, filepath.Join(filepath.Dir(inner.Path), "real.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.md", inner.Path); err != nil {
		t.Fatal(err)
	}
	list := []HostSkill{direct, linked, inner}
	want := map[string]string{}
	for _, s := range list {
		real, err := filepath.EvalSymlinks(filepath.Dir(s.Path))
		if err != nil {
			t.Fatal(err)
		}
		want[s.Name] = real
	}
	for name, ix := range map[string]*Index{
		"read":    Load(Source{Skills: list, Cwd: root}).Skills,
		"indexed": NewIndex(list),
	} {
		got := map[string]guard.Folder{}
		for _, f := range ix.folders() {
			got[f.Skill] = f
		}
		for _, s := range list {
			f, ok := got[s.Name]
			if !ok || f.Real != want[s.Name] || f.Dir != filepath.Dir(s.Path) {
				t.Errorf("%s: folder of %s = %+v (found %v), want dir %s resolved to %s", name, s.Name, f, ok, filepath.Dir(s.Path), want[s.Name])
			}
		}
	}
}
