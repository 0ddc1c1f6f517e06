//go:build e2e

package live

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/tests/e2e"
)

// TestScenarios pins what issue 9 asks of the scenarios themselves.
func TestScenarios(t *testing.T) {
	root := e2e.RepoRoot(t)
	total := 0
	comeback := false
	for _, sc := range Scenarios() {
		if err := sc.Check(); err != nil {
			t.Error(err)
		}
		total += sc.MinRequests()
		pack := sc.PackDirs(root)[0]
		missing := false
		for _, p := range sc.PackDirs(root) {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: skill pack %s missing (the shared corpora are read beside the repository): %v", sc.Name, p, err)
				missing = true
			}
		}
		if missing {
			continue
		}
		over5 := 0
		for i, turn := range sc.Turns {
			if i > 0 && turn.Think > CacheTTL {
				over5++
			}
			if d := turn.Think - CacheTTL; i > 0 && d > -time.Minute && d < time.Minute {
				t.Errorf("%s turn %d: think time %v is within a minute of the cache lifetime", sc.Name, i+1, turn.Think)
			}
			for _, st := range turn.Steps {
				if st.Skill != "" {
					if _, err := os.Stat(filepath.Join(pack, st.Skill, "SKILL.md")); err != nil {
						t.Errorf("%s: step names skill %q not in %s", sc.Name, st.Skill, pack)
					}
				}
				if st.Kind == NeedSkill {
					comeback = true
				}
			}
		}
		if over5 == 0 {
			t.Errorf("%s: no think time over the 5-minute cache lifetime", sc.Name)
		}
		if sc.Turns[0].Steps[0].Kind != LoadSkill {
			t.Errorf("%s: the first step should load a skill", sc.Name)
		}
	}
	if n := len(Scenarios()); n < 3 {
		t.Errorf("%d scenarios, want at least 3", n)
	}
	if total < 150 {
		t.Errorf("%d model requests without extension in all, want at least 150", total)
	}
	if !comeback {
		t.Error("no scenario comes back to a skill")
	}
	if n := Short().MaxRequests(); n > 40 {
		t.Errorf("short scenario makes up to %d requests, want at most 40", n)
	}
}

func TestCheckRejects(t *testing.T) {
	tests := []struct {
		name string
		sc   Scenario
	}{
		{"no turns", Scenario{Name: "x"}},
		{"answer not last", Scenario{Name: "x", Turns: []Turn{{Prompt: "p", Steps: []Step{Say("a"), Bash("ls")}}}}},
		{"no answer", Scenario{Name: "x", Turns: []Turn{{Prompt: "p", Steps: []Step{Bash("ls")}}}}},
		{"missing skill", Scenario{Name: "x", Turns: []Turn{{Prompt: "p", Steps: []Step{Load(""), Say("a")}}}}},
		{"empty prompt", Scenario{Name: "x", Turns: []Turn{{Steps: []Step{Say("a")}}}}},
	}
	for _, tt := range tests {
		if err := tt.sc.Check(); err == nil {
			t.Errorf("%s: Check accepted it", tt.name)
		}
	}
}

func TestBodyMarker(t *testing.T) {
	tests := []struct{ in, want string }{
		{"---\nname: a\ndescription: a long enough description line here\n---\n\n# A\n\nThe first body line that is long enough.\nshort\n", "The first body line that is long enough."},
		{"no frontmatter but a line of thirty-plus characters\nx", "no frontmatter but a line of thirty-plus characters"},
		{"---\nname: a\n---\nshort\n", ""},
	}
	for _, tt := range tests {
		if got := bodyMarker(tt.in); got != tt.want {
			t.Errorf("bodyMarker(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func msg(role, text string) e2e.Message {
	b, _ := json.Marshal(text)
	return e2e.Message{Role: role, Content: b}
}

func TestDiagnose(t *testing.T) {
	ph := func(s string) string {
		return `[skill-lifecycle: the instructions of skill "` + s + `" were archived to save context. If you need them again, call the skill tool: skill("` + s + `").]`
	}
	sys, user := msg("system", "sys"), msg("user", "hi")
	bodyA, bodyB := msg("tool", "<skill_content name=\"a\">A body"), msg("tool", "<skill_content name=\"b\">B body")
	tests := []struct {
		name      string
		prev, cur []e2e.Message
		want      Break
	}{
		{"archive of one body", []e2e.Message{sys, user, bodyA, bodyB}, []e2e.Message{sys, user, msg("tool", ph("a")), bodyB, user},
			Break{Message: 2, Messages: 4, Archived: []string{"a"}, Cause: "archived a at message 2 of 4"}},
		{"two archived in one break", []e2e.Message{sys, user, bodyA, bodyB}, []e2e.Message{sys, user, msg("tool", ph("a")), msg("tool", ph("b"))},
			Break{Message: 2, Messages: 4, Archived: []string{"a", "b"}, Cause: "archived a, b at message 2 of 4"}},
		{"system prompt", []e2e.Message{sys, user}, []e2e.Message{msg("system", "other"), user},
			Break{Message: 0, Messages: 2, Cause: "system prompt changed"}},
		{"other change", []e2e.Message{sys, user, bodyA}, []e2e.Message{sys, user, bodyB},
			Break{Message: 2, Messages: 3, Cause: "message 2 of 3 (tool) changed"}},
	}
	for _, tt := range tests {
		got := diagnose(&e2e.Request{Messages: tt.prev}, &e2e.Request{Messages: tt.cur})
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, d)
		}
	}
}
