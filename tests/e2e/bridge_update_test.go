//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// scopeExtension, loaded before the bridge, takes bread-proofing out of
// the skills Pi puts in the system prompt, as an extension that scopes
// skills per project would: before_agent_start hands every handler the
// same systemPromptOptions.
const scopeExtension = `export default function (pi) {
	pi.on("before_agent_start", (event) => {
		const skills = event.systemPromptOptions?.skills;
		if (!Array.isArray(skills)) return;
		const i = skills.findIndex((s) => s?.name === "bread-proofing");
		if (i >= 0) skills.splice(i, 1);
	});
}
`

// scoped is the extensions to run: scopeExtension, then the bridge
// (taken from env, which loads it first otherwise).
func scoped(t *testing.T, env *Env) []string {
	t.Helper()
	scope := filepath.Join(t.TempDir(), "scope.ts")
	if err := os.WriteFile(scope, []byte(scopeExtension), 0o644); err != nil {
		t.Fatal(err)
	}
	bridge := env.Bridge
	env.Bridge = ""
	return []string{scope, bridge}
}

// TestBridgeSkillsUpdate: the skills Pi lists in the prompt differ from
// the skill commands the sidecar started from, twice: another extension
// takes bread-proofing out, and deploy-prod's file says
// `disable-model-invocation: true`, which the commands do not carry. The
// bridge sends skills/update at the first prompt; the first request lists
// neither, the skill tool answers both as unknown, tide-tables loads, and
// no request holds the hidden body. On both Pi lines.
func TestBridgeSkillsUpdatePi16(t *testing.T) {
	t.Parallel()
	scenarioSkillsUpdate(t, Pi16(t))
}

func TestBridgeSkillsUpdatePi073(t *testing.T) {
	t.Parallel()
	scenarioSkillsUpdate(t, Pi073(t))
}

func scenarioSkillsUpdate(t *testing.T, pi PiInstall) {
	env, prov, _ := bridgeEnv(t, pi, Steps([]Reply{
		load("deploy-prod"),
		load("bread-proofing"),
		load("tide-tables"),
		Say("Done."),
	}), "")
	dir := filepath.Join(env.ProjectDir, SkillDir, "deploy-prod")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	hidden := "---\nname: deploy-prod\ndescription: Deploy the service to production.\ndisable-model-invocation: true\n---\n\n# Deploy\n\nHIDDEN-BODY-7d2e\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(hidden), 0o644); err != nil {
		t.Fatal(err)
	}
	res := env.RunOK(t, RunOpts{Prompts: []string{"Deploy, bake, then tell me when high tide is."}, Approve: pi.TrustGated, Extensions: scoped(t, env)})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	if len(reqs) != 4 {
		t.Fatalf("provider got %d requests, want 4", len(reqs))
	}
	if listed := ListedNames(reqs[0].SystemPrompt()); !slices.Equal(listed, []string{"tide-tables"}) {
		t.Errorf("the first request lists %v, want [tide-tables]", listed)
	}
	for i, name := range []string{"deploy-prod", "bread-proofing"} {
		if got := reqs[i+1].LastToolResults(); len(got) != 1 || !strings.Contains(got[0].Text(), `Unknown skill "`+name+`"`) {
			t.Errorf("the skill tool's answer for %s = %q, want it unknown", name, texts(got))
		}
	}
	if got := reqs[3].LastToolResults(); len(got) != 1 || !strings.Contains(got[0].Text(), "TIDE-BODY-41c7") {
		t.Errorf("tide-tables did not load: %q", texts(got))
	}
	for i, r := range reqs {
		if CountInMessages(r, "HIDDEN-BODY-7d2e") != 0 {
			t.Errorf("request %d holds the hidden skill's body", i)
		}
	}
}

func texts(ms []Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Text())
	}
	return out
}

// TestBridgeSkillsUpdateLate: the first skills/update is answered past
// the bridge's wait. The sidecar is restarted from the new list, so the
// next prompt sends no update again (one in all, where the bridge used to
// restart from the old list and send it at every prompt) and lists only
// what the prompt's options keep.
func TestBridgeSkillsUpdateLate(t *testing.T) {
	t.Parallel()
	env, prov, _ := bridgeEnv(t, Pi16(t), Steps([]Reply{Say("One.")}, []Reply{load("bread-proofing"), Say("Two.")}), "")
	faults := NewFaults(t, "skills/update:1:late")
	// The update waits 2 × the timeout; the late answer comes after it.
	runEnv := append(faults.Env(t), "SKILL_LIFECYCLE_TIMEOUT_MS=4000", "FAULT_DELAY=12s")
	res := env.RunOK(t, RunOpts{Prompts: []string{"First.", "Second."}, Approve: true, Extensions: scoped(t, env), Env: runEnv})
	if got := faults.Injected(); len(got) != 1 {
		t.Fatalf("faults injected: %v, want the first skills/update late", got)
	}
	if n := faults.countOf("skills/update"); n != 1 {
		t.Errorf("skills/update sent %d times, want once (the restarted sidecar starts from the new list)", n)
	}
	reqs := prov.Requests()
	second := firstOfTurn(t, reqs, 2)
	if listed := ListedNames(second.SystemPrompt()); !slices.Equal(listed, []string{"tide-tables"}) {
		t.Errorf("the second prompt lists %v, want [tide-tables]\nstderr:\n%s", listed, res.Stderr)
	}
	if got := reqs[len(reqs)-1].LastToolResults(); len(got) != 1 || !strings.Contains(got[0].Text(), `Unknown skill "bread-proofing"`) {
		t.Errorf("the skill tool's answer for bread-proofing = %q, want it unknown", texts(got))
	}
}
