package skills

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestReadSkillStatLinkedCatalogue: the skills of a catalogue folder
// reached through a link are all read, each as ReadSkillWith reads it,
// and the one-call open is tried only until loopsToSkip of them were
// refused.
func TestReadSkillStatLinkedCatalogue(t *testing.T) {
	dir := t.TempDir()
	const n = loopsToSkip + 8
	for i := range n {
		p := filepath.Join(dir, "real", fmt.Sprintf("s%02d", i), "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("---\nname: s%02d\ndescription: skill %d\n---\n# S%d\n", i, i, i)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real", filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	r := NewResolver()
	for i := range n {
		p := filepath.Join(dir, "linked", fmt.Sprintf("s%02d", i), "SKILL.md")
		s, real, _, err := ReadSkillStat(r, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		want, _, _ := ReadSkillWith(NewResolver(), p)
		if s.Body != want.Body || s.Description != want.Description || real != filepath.Join(dir, "real", fmt.Sprintf("s%02d", i), "SKILL.md") {
			t.Errorf("%s: %q %q, real %s", p, s.Description, s.Body, real)
		}
	}
	if got := r.loops[filepath.Join(dir, "linked")]; got != loopsToSkip {
		t.Errorf("%d refusals counted, want the one-call open tried %d times", got, loopsToSkip)
	}
}
