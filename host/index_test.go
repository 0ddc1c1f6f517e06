package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// TestSkillsListBounded: past maxListed skills, /skills-list names the
// skills with a tag first and says how many more there are; words
// narrow it to the skills whose name or description holds them all.
func TestSkillsListBounded(t *testing.T) {
	root := t.TempDir()
	var list []HostSkill
	for i := range maxListed + 50 {
		list = append(list, writeTestSkill(t, root, fmt.Sprintf("skill-%03d", i), "Body.\n"))
	}
	last := list[len(list)-1].Name
	s, _, err := Open(InitializeParams{Cwd: root, Skills: list}, &recorder{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SkillLoad(SkillLoadParams{Name: last, CallID: "c1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Command(CommandParams{Name: "skills-pin", Args: last}); err != nil {
		t.Fatal(err)
	}
	run := func(args string) []string {
		t.Helper()
		r, err := s.Command(CommandParams{Name: "skills-list", Args: args})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(r.Text, "\n")
	}
	got := run("")
	if n := len(got); n != maxListed+2 {
		t.Fatalf("%d lines, want a heading, %d skills and a line on the rest", n, maxListed)
	}
	if !strings.HasPrefix(got[1], "- "+last+" [pinned (user)") {
		t.Errorf("the pinned skill, last in the host's order, is not named first: %q", got[1])
	}
	if want := "… and 50 more: /skills-list <words>"; !strings.HasPrefix(got[len(got)-1], want) {
		t.Errorf("last line %q, want it to start %q", got[len(got)-1], want)
	}
	got = run("SKILL-01 things")
	if len(got) != 11 || !strings.HasPrefix(got[0], "10 of 250 skills match") || !strings.HasPrefix(got[1], "- skill-010: ") {
		t.Errorf("filtered list:\n%s", strings.Join(got, "\n"))
	}
}

// TestFileHidesSkill: a skill whose file says disable-model-invocation is
// kept from the model even when the host's list does not carry the flag
// (Pi's skill commands, which a start lists from, do not): out of the
// listing and unknown to the skill tool.
func TestFileHidesSkill(t *testing.T) {
	dir := t.TempDir()
	shown := writeTestSkill(t, dir, "alpha", "Plot charts.\n")
	p := filepath.Join(dir, "deploy", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\nname: deploy\ndescription: Deploy to production.\ndisable-model-invocation: true\n---\nHIDDEN\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, init, err := Open(InitializeParams{Cwd: t.TempDir(), Skills: []HostSkill{shown, {Name: "deploy", Description: "Deploy to production.", Path: p}}}, &recorder{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(init.SystemPromptSection, "deploy") || !strings.Contains(init.SystemPromptSection, "alpha") {
		t.Errorf("listing %q: want alpha, not the hidden deploy", init.SystemPromptSection)
	}
	if res, _ := s.SkillLoad(SkillLoadParams{Name: "deploy"}); res.Found || strings.Contains(res.Text, "HIDDEN") {
		t.Errorf("the skill tool loaded the hidden skill: %+v", res)
	}
}
