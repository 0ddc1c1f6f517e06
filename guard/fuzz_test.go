package guard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCheckBash: any command line is decided without a panic, the same
// way twice.
func FuzzCheckBash(f *testing.F) {
	dir := f.TempDir()
	p := filepath.Join(dir, "s", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\nname: s\n---\n"+strings.Repeat("line\n\n", 20)), 0o644); err != nil {
		f.Fatal(err)
	}
	lookup := func(q string) (Skill, bool) { return Skill{Name: "s", Path: p}, q == p }
	for _, seed := range []string{
		"cat s/SKILL.md | head -400", "sed -n '1,$p' s/SKILL.md", "grep -v '^$' s/SKILL.md",
		"awk '{print}' s/*.md", `python3 -c 'print(open("s/SKILL.md").read())'`, "echo \"$(cat s/SKILL.md)\"",
		"sed 's/[/x/' s/SKILL.md", "grep '\\(' s/SKILL.md", "head -c -5 s/SKILL.md", "tail -n +0 s/SKILL.md",
		"bat -r 3: s/SKILL.md", "cat <<EOF\nx\nEOF", "for f in *; do cat $f; done", "cd s; cd ..; cat s/SKILL.md",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		a := Check("bash", in, dir, lookup)
		if b := Check("bash", in, dir, lookup); a != b {
			t.Fatalf("%q: %+v then %+v", cmd, a, b)
		}
	})
}
