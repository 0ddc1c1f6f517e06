package guard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkCheckBash is the guard on bash commands a coding agent
// typically runs: "typical" names no SKILL.md (7 commands), "skill-md"
// prints one (3 commands, which the guard reads to count its lines).
func BenchmarkCheckBash(b *testing.B) {
	root := b.TempDir()
	known := map[string]Skill{}
	for _, n := range []string{"alpha", "beta", "gamma", "delta"} {
		p := filepath.Join(root, "skills", n, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nname: "+n+"\n---\n"+strings.Repeat("Check the output.\n", 200)), 0o644); err != nil {
			b.Fatal(err)
		}
		known[p] = Skill{Name: n, Path: p}
	}
	lookup := func(p string) (Skill, bool) { s, ok := known[p]; return s, ok }
	skill := filepath.Join(root, "skills", "alpha", "SKILL.md")
	cmds := []string{
		"ls -la",
		"go test ./... 2>&1 | tail -30",
		"cat README.md",
		"grep -rn 'func main' --include=*.go . | head -20",
		"cd " + root + " && git status --short && git diff --stat",
		"cat " + skill,
		"cd " + filepath.Dir(skill) + " && cat SKILL.md",
		"sed -n '1,40p' " + skill,
		"python3 -c 'import sys; print(sys.version)'",
		"for f in *.go; do echo \"$f\"; wc -l \"$f\"; done",
	}
	for _, set := range []struct {
		name string
		cmds []string
	}{
		{"typical", append(append([]string{}, cmds[:5]...), cmds[8:]...)},
		{"skill-md", cmds[5:8]},
	} {
		inputs := make([]json.RawMessage, len(set.cmds))
		for i, c := range set.cmds {
			inputs[i], _ = json.Marshal(map[string]string{"command": c})
		}
		b.Run(set.name, func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				for _, in := range inputs {
					Check("bash", in, root, lookup)
				}
			}
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
