package hostile

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// TestHostileBashGuardOneRule: a bash command that prints the whole of a
// known SKILL.md is blocked however it is written (a pipe, a filter that
// keeps every line, a glob, a list, an interpreter's one-liner), and one
// that prints only a part of it is served, as a ranged read is
// (docs/protocol.md, tool_call; issue 31). The skill's SKILL.md has 64
// lines.
func TestHostileBashGuardOneRule(t *testing.T) {
	p := newPack(t)
	var body strings.Builder
	body.WriteString("# Long skill\n")
	for i := 1; i <= 58; i++ {
		if i%10 == 0 {
			body.WriteString("\n")
			continue
		}
		fmt.Fprintf(&body, "Step %d: do the thing.\n", i)
	}
	file := writeSkill(t, p.dir, "long-skill", "A skill with a long body.", body.String())
	p.skills = append(p.skills, protocol.HostSkill{Name: "long-skill", Description: "A skill with a long body.", Path: file})
	write(t, filepath.Join(p.cwd, "notes.md"), []byte("# notes\n"))
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(p)
	rel, err := filepath.Rel(p.cwd, file)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(file)
	for _, tc := range []struct {
		command string
		block   bool
	}{
		// Whole prints.
		{"cat " + rel + " | head -400", true},
		{"cat " + rel + " | head -n 64", true},
		{"sed 's/a/a/' " + rel, true},
		{"awk '{print}' " + rel, true},
		{"awk 1 " + rel, true},
		{"grep -v '^$' " + rel, true},
		{"grep '' " + rel, true},
		{"cat -A " + rel, true},
		{"cat -n " + rel + " 2>&1", true},
		{"cd " + p.dir + " && cat */SKILL.md", true},
		{"cd " + p.dir + " && cat lo*/SKILL.md", true},
		{"ls && cat " + rel, true},
		{"ls -la; cat " + rel + "; echo done", true},
		{`python3 -c 'print(open("` + rel + `").read())'`, true},
		{`node -e 'console.log(require("fs").readFileSync("` + file + `", "utf8"))'`, true},
		{"head -30 " + rel + "; tail -n +31 " + rel, true},
		{"cat < " + rel, true},
		{`echo "$(cat ` + rel + `)"`, true},
		{"(cd " + dir + " && cat SKILL.md)", true},
		{"head -n 1000 " + rel + " | cat", true},
		{"sed -n 'p' " + rel, true},
		{"cat notes.md " + rel, true},
		// Parts, served like a ranged read.
		{"head -30 " + rel, false},
		{"sed -n 1,30p " + rel, false},
		{"tail -n 20 " + rel, false},
		{"cat " + rel + " | head -20", false},
		{"grep Step " + rel, false},
		{"grep -c Step " + rel, false},
		{"sed '1,5d' " + rel, false},
		{"awk '{print $1}' " + rel, false},
		{`python3 -c 'print(open("` + rel + `").read()[:200])'`, false},
		// Not printed to the model, or not a SKILL.md.
		{"cat " + rel + " > /tmp/copy.md", false},
		{"cat " + rel + " | wc -l", false},
		{"cat notes.md", false},
		{"cat $HOME/SKILL.md", false},
		{"cat 'unclosed", false},
	} {
		in, _ := json.Marshal(map[string]any{"command": tc.command})
		var r protocol.ToolCallResult
		s.ok(s.call(protocol.MethodToolCall, protocol.ToolCallParams{ToolName: "bash", Input: in}), &r)
		if r.Block != tc.block {
			t.Errorf("%s: block = %v, want %v", tc.command, r.Block, tc.block)
			continue
		}
		want := "long-skill"
		if strings.Contains(tc.command, "*/") {
			want = r.Skill // the glob prints every skill's SKILL.md
		}
		if r.Block && (r.Skill != want || !strings.Contains(r.Reason, `call skill with name "`+want+`"`)) {
			t.Errorf("%s: reason %q skill %q", tc.command, r.Reason, r.Skill)
		}
	}
}
