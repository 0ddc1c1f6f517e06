//go:build e2e

package e2e

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
)

// TestBridgeLargeCatalog: with 1,000 skills installed, the skills section
// Pi sends is bounded (it lists fewer, and says how many are left out and
// how to find them), byte-identical on every request of two sessions
// turns, and a skill it leaves out is found with the skill tool's query
// and loaded by name (issue 30).
func TestBridgeLargeCatalog(t *testing.T) {
	t.Parallel()
	pack := gen.Pack(gen.Options{N: 1000, Seed: 30, MinBody: 300, MaxBody: 600})
	var mu sync.Mutex
	var target string
	prov := NewProvider(t, func(r *Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		if r.UserTurn == 1 && r.Step == 0 {
			listed := map[string]bool{}
			for _, n := range ListedNames(r.SystemPrompt()) {
				listed[n] = true
			}
			for _, s := range pack {
				if !listed[s.Name] {
					target = s.Name
					return Do(Call{Name: "skill", Args: map[string]any{"query": strings.Join(strings.Fields(s.Description), " ")}})
				}
			}
			return Say("every skill is listed")
		}
		if r.UserTurn == 1 && r.Step == 1 && target != "" {
			return Do(Call{Name: "skill", Args: map[string]any{"name": target}})
		}
		return Say("Done.")
	})
	env := NewEnv(t, Pi16(t), prov)
	env.UseBridge(t)
	env.ExtraEnv = append(env.ExtraEnv, slowMachineTimeout)
	if err := gen.Write(filepath.Join(env.ProjectDir, SkillDir), pack); err != nil {
		t.Fatal(err)
	}
	res := env.RunOK(t, RunOpts{Prompts: []string{"Please help me with the task at hand."}, Approve: true})
	checkNoBridgeErrors(t, res)
	res = env.RunOK(t, RunOpts{Prompts: []string{"Thanks. Now summarise what you did."}, Approve: true, Continue: true})
	checkNoBridgeErrors(t, res)

	reqs := prov.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	first := reqs[0].SystemPrompt()
	names := ListedNames(first)
	if len(names) == 0 || len(names) >= len(pack) {
		t.Fatalf("the system prompt lists %d of %d skills", len(names), len(pack))
	}
	if len(reqs) < 4 {
		t.Fatalf("%d model requests, want at least 4", len(reqs))
	}
	if !strings.Contains(first, "more skills are not listed") || !strings.Contains(first, "query") {
		t.Errorf("no line on the skills left out:\n%.2000s", first[strings.Index(first, "</available_skills>"):])
	}
	for i, r := range reqs[1:] {
		if sp := r.SystemPrompt(); sp != first {
			t.Errorf("request %d: the system prompt differs from the first (%d vs %d characters)", i+2, len(sp), len(first))
		}
	}
	mu.Lock()
	name := target
	mu.Unlock()
	if name == "" {
		t.Fatal("no skill was left out of the listing")
	}
	if _, m, ok := FindToolResult(reqs, "Skills matching"); !ok || !strings.Contains(m.Text(), "- "+name+":") {
		t.Errorf("the query's answer does not name %q:\n%s", name, m.Text())
	}
	if _, _, ok := FindToolResult(reqs, `<skill_content name="`+name+`">`); !ok {
		t.Errorf("%q, found by the query, was not loaded", name)
	}
}
