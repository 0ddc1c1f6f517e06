//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The bridge's own markers, as the sidecar writes them (protocol/prompt.go,
// rules.Placeholder).
const (
	protocolLine    = "load it with the skill tool (not by reading SKILL.md)"
	placeholderTide = `the instructions of skill "tide-tables" were archived`
	entryType       = "skill-lifecycle"
)

// slowMachineTimeout gives the sidecar more time than the bridge's default
// (1.5 s) so that a loaded test machine does not make the bridge fail open;
// TestBridgeSidecarHangs sets a short one on purpose.
const slowMachineTimeout = "SKILL_LIFECYCLE_TIMEOUT_MS=15000"

// bridgeEnv prepares an isolated Pi with the bridge, the two test skills and,
// when config is not empty, the user's skill-lifecycle.json.
func bridgeEnv(t *testing.T, pi PiInstall, script Script, config string) (*Env, *Provider, map[string]string) {
	t.Helper()
	return bridgeEnvWith(t, pi, script, config, testSkills...)
}

// bridgeEnvWith is bridgeEnv with skills as the project's skills.
func bridgeEnvWith(t *testing.T, pi PiInstall, script Script, config string, skills ...Skill) (*Env, *Provider, map[string]string) {
	t.Helper()
	prov := NewProvider(t, script)
	env := NewEnv(t, pi, prov)
	env.UseBridge(t)
	env.ExtraEnv = append(env.ExtraEnv, slowMachineTimeout)
	paths := env.AddSkills(t, skills...)
	if config != "" {
		if err := os.WriteFile(filepath.Join(env.AgentDir, "skill-lifecycle.json"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return env, prov, paths
}

// records returns the data of the bridge's session entries, in order.
func records(t *testing.T, sess *Session) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range sess.Custom(entryType) {
		var d map[string]any
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatalf("record at line %d: %v", e.Line, err)
		}
		out = append(out, d)
	}
	return out
}

func hasRecord(recs []map[string]any, action, skill string) bool {
	for _, r := range recs {
		if r["action"] == action && (skill == "" || r["skill"] == skill) {
			return true
		}
	}
	return false
}

// checkNoBridgeErrors fails on extension errors or sidecar trouble reported
// on stderr (model switches and re-attachments the bridge announces are
// not trouble).
func checkNoBridgeErrors(t *testing.T, res *Result) {
	t.Helper()
	for _, line := range strings.Split(res.Stderr, "\n") {
		if strings.HasPrefix(line, "skill-lifecycle: switch to ") || strings.HasPrefix(line, "skill-lifecycle: restore ") ||
			strings.HasPrefix(line, "skill-lifecycle: after compaction, re-attached") {
			continue
		}
		for _, bad := range []string{"skill-lifecycle:", "Extension error", "extension error"} {
			if strings.Contains(line, bad) {
				t.Errorf("stderr reports a problem (%q):\n%s", bad, res.Stderr)
				return
			}
		}
	}
}

// scenarioSkillTool: the skill tool returns <skill_content> for a skill; an
// unknown name lists the skills.
func scenarioSkillTool(t *testing.T, pi PiInstall) {
	env, prov, paths := bridgeEnv(t, pi, Steps([]Reply{
		Do(Call{Name: "skill", Args: map[string]any{"name": "tide-tables"}}),
		Do(Call{Name: "skill", Args: map[string]any{"name": "no-such-skill"}}),
		Say("Done."),
	}), "")
	res := env.RunOK(t, RunOpts{Prompts: []string{"When is high tide tomorrow?"}, Approve: pi.TrustGated})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	if len(reqs) != 3 {
		t.Fatalf("provider got %d requests, want 3", len(reqs))
	}
	sys := reqs[0].SystemPrompt()
	if !strings.Contains(sys, protocolLine) {
		t.Errorf("system prompt lacks the skill tool protocol text:\n%s", sys)
	}
	if strings.Contains(sys, "Use the read tool to load a skill's file") {
		t.Errorf("system prompt still tells the model to read skill files:\n%s", sys)
	}
	if listed := ListedNames(sys); !slices.Contains(listed, "tide-tables") || !slices.Contains(listed, "bread-proofing") {
		t.Errorf("listed skills = %v", listed)
	}
	if strings.Contains(sys, "<location>") || strings.Contains(sys, paths["tide-tables"]) {
		t.Errorf("the bridge's listing names locations (the skill tool gives the base directory):\n%s", sys)
	}
	for i := 1; i < len(reqs); i++ {
		if reqs[i].SystemPrompt() != sys {
			t.Errorf("system prompt of request %d differs from the first", i)
		}
	}
	if !contains(reqs[0].ToolNames(), "skill") {
		t.Errorf("skill tool not declared: %v", reqs[0].ToolNames())
	}

	got := reqs[1].LastToolResults()
	if len(got) != 1 {
		t.Fatalf("request 1 tool results = %+v", got)
	}
	text := got[0].Text()
	if !strings.HasPrefix(text, `<skill_content name="tide-tables">`) || !strings.HasSuffix(text, "</skill_content>") {
		t.Errorf("skill tool result is not wrapped:\n%s", text)
	}
	for _, want := range []string{"TIDE-BODY-41c7", "Base directory: " + filepath.Dir(paths["tide-tables"]), "references/"} {
		if !strings.Contains(text, want) {
			t.Errorf("skill tool result lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "description:") {
		t.Errorf("frontmatter delivered:\n%s", text)
	}
	unknown := reqs[2].LastToolResults()
	if len(unknown) != 1 || !strings.Contains(unknown[0].Text(), `Unknown skill "no-such-skill". Available skills: bread-proofing, tide-tables.`) {
		t.Errorf("unknown skill answer = %+v", unknown)
	}
	recs := records(t, MustReadSession(t, res.SessionFile))
	if !hasRecord(recs, "load", "tide-tables") {
		t.Errorf("no load record for tide-tables in %v", recs)
	}
}

func TestBridgeSkillToolPi16(t *testing.T) {
	t.Parallel()
	scenarioSkillTool(t, Pi16(t))
}

func TestBridgeSkillToolPi073(t *testing.T) {
	t.Parallel()
	scenarioSkillTool(t, Pi073(t))
}

// TestBridgeBlocksSkillReads: read of a SKILL.md is blocked with a pointer to
// the tool; cat through bash likewise; a references/ file is served.
func TestBridgeBlocksSkillReads(t *testing.T) {
	t.Parallel()
	pi := Pi16(t)
	script := func(req *Request) Reply {
		loc := ProjectSkillFile(req.SystemPrompt(), "tide-tables")
		switch req.Step {
		case 0:
			return Do(Call{Name: "read", Args: map[string]any{"path": loc}})
		case 1:
			return Do(Call{Name: "bash", Args: map[string]any{"command": "cat " + loc}})
		case 2:
			return Do(Call{Name: "read", Args: map[string]any{"path": filepath.Join(filepath.Dir(loc), "references", "constituents.md")}})
		}
		return Say("Done.")
	}
	env, prov, paths := bridgeEnv(t, pi, script, "")
	res := env.RunOK(t, RunOpts{Prompts: []string{"When is high tide tomorrow?"}, Approve: true})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	if len(reqs) != 4 {
		t.Fatalf("provider got %d requests, want 4", len(reqs))
	}
	for i, what := range []string{"read", "bash cat"} {
		r := reqs[i+1].LastToolResults()
		if len(r) != 1 {
			t.Fatalf("%s: tool results %+v", what, r)
		}
		text := r[0].Text()
		if !strings.Contains(text, "Blocked: "+paths["tide-tables"]) || !strings.Contains(text, `call skill with name "tide-tables"`) {
			t.Errorf("%s of SKILL.md not blocked with a pointer to the skill tool:\n%s", what, text)
		}
		if strings.Contains(text, "TIDE-BODY-41c7") {
			t.Errorf("%s delivered the body", what)
		}
	}
	ref := reqs[3].LastToolResults()
	if len(ref) != 1 || !strings.Contains(ref[0].Text(), "TIDE-REF-9a02") {
		t.Errorf("reading references/constituents.md was not served: %+v", ref)
	}
}

// scenarioArchive: after an unrelated prompt the body is archived in the very
// next model request (placeholder in the payload), and the reference file
// the model read from the skill's folder with it; a related prompt keeps
// both. minKeep is 0 so that a single body can go.
func scenarioArchive(t *testing.T, pi PiInstall) {
	steps := Steps(
		[]Reply{Do(Call{Name: "skill", Args: map[string]any{"name": "tide-tables"}}), {}, Say("High tide is at 06:12.")},
		[]Reply{Say("Low tide is at 12:30.")},
		[]Reply{Say("About two hours.")},
	)
	script := func(req *Request) Reply {
		if req.UserTurn == 1 && req.Step == 1 {
			ref := filepath.Join(filepath.Dir(ProjectSkillFile(req.SystemPrompt(), "tide-tables")), "references", "constituents.md")
			return Do(Call{Name: "read", Args: map[string]any{"path": ref}})
		}
		return steps(req)
	}
	env, prov, _ := bridgeEnv(t, pi, script, `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	res := env.RunOK(t, RunOpts{Prompts: []string{
		"When is high tide tomorrow at the harbour?",
		"And when are the low tides at the harbour on Friday, from the same tide tables?",
		"How long should sourdough bread dough proof at room temperature before baking?",
	}, Approve: pi.TrustGated})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	if len(reqs) != 5 {
		t.Fatalf("provider got %d requests, want 5", len(reqs))
	}
	for i, what := range []string{"TIDE-BODY-41c7", "TIDE-REF-9a02"} {
		if n := CountInMessages(reqs[2], what); n != 1 {
			t.Fatalf("%s is in request 2 %d times, want 1", what, n)
		}
		if n := CountInMessages(reqs[3], what); n != 1 {
			t.Errorf("related prompt: %s is in request 3 %d times, want 1 (kept)", what, n)
		}
		if n := CountInMessages(reqs[4], what); n != 0 {
			t.Errorf("unrelated prompt: %s is still in request 4 (%d times)", what, n)
		}
		ph := []string{placeholderTide, `references/constituents.md, a file of skill "tide-tables", was archived`}[i]
		if n := CountInMessages(reqs[4], ph); n != 1 {
			t.Errorf("unrelated prompt: request 4 holds %q %d times, want 1", ph, n)
		}
	}
	recs := records(t, MustReadSession(t, res.SessionFile))
	if !hasRecord(recs, "archive", "tide-tables") || !hasRecord(recs, "resource", "tide-tables") {
		t.Errorf("no archive or resource record for tide-tables: %v", recs)
	}
	RecordSession(t, env, res.SessionFile, "bridge-archive-"+piTag(pi))
}

// piTag names a Pi line in recorded session names.
func piTag(pi PiInstall) string {
	if pi.TrustGated {
		return "pi16"
	}
	return "pi073"
}

func TestBridgeArchivePi16(t *testing.T) {
	t.Parallel()
	scenarioArchive(t, Pi16(t))
}

func TestBridgeArchivePi073(t *testing.T) {
	t.Parallel()
	scenarioArchive(t, Pi073(t))
}
