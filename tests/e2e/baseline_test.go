//go:build e2e

package e2e

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testSkills is a tiny original pack: two skills with distinct markers in
// their bodies and one reference file.
var testSkills = []Skill{
	{
		Name:        "tide-tables",
		Description: "Compute high and low tide times from a harmonic constants file. Use when the user asks about tides.",
		Body:        "# Tide tables\n\nMarker: TIDE-BODY-41c7.\n\n1. Load the constants with the script in scripts/.\n2. Sum the constituents hour by hour.\n3. Report the turning points, not every hour.\n\nSee references/constituents.md for the constituent names.\n",
		Files:       map[string]string{"references/constituents.md": "# Constituents\n\nM2, S2, N2, K1, O1. Marker: TIDE-REF-9a02.\n"},
	},
	{
		Name:        "bread-proofing",
		Description: "Plan dough proofing times from room temperature and flour type. Use when baking bread.",
		Body:        "# Bread proofing\n\nMarker: BREAD-BODY-5e18.\n\nWarmer rooms shorten proofing; whole grain ferments faster than white flour.\n",
	},
}

// readSkillScript reads the SKILL.md of `skill` at the location the system
// prompt lists, then answers.
func readSkillScript(skill string) Script {
	return func(req *Request) Reply {
		if req.UserTurn == 1 && req.Step == 0 {
			loc, ok := ListedSkills(req.SystemPrompt())[skill]
			if !ok {
				return Say("NO-SKILL-LISTED")
			}
			return Do(Call{Name: "read", Args: map[string]any{"path": loc}})
		}
		return Say("The skill is loaded.")
	}
}

// baseline runs one prompt in which the model reads a skill with `read`, and
// checks the listing, the loaded body and the usage Pi recorded.
func baseline(t *testing.T, pi PiInstall) (*Env, *Result) {
	prov := NewProvider(t, readSkillScript("tide-tables"))
	env := NewEnv(t, pi, prov)
	paths := env.AddSkills(t, testSkills...)
	res := env.RunOK(t, RunOpts{Prompts: []string{"When is high tide tomorrow?"}, Approve: pi.TrustGated})
	t.Logf("pi %s run took %v", pi.Version, res.Duration)

	if got := strings.TrimSpace(res.Stdout); got != "The skill is loaded." {
		t.Errorf("stdout = %q, want the scripted final answer", got)
	}
	reqs := prov.Requests()
	if len(reqs) != 2 {
		t.Fatalf("provider got %d requests, want 2 (read, answer)", len(reqs))
	}
	listed := ListedSkills(reqs[0].SystemPrompt())
	want := map[string]string{"tide-tables": paths["tide-tables"], "bread-proofing": paths["bread-proofing"]}
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("skills listed in the system prompt (-want +got):\n%s\nsystem prompt:\n%s", diff, reqs[0].SystemPrompt())
	}
	if n := CountInMessages(reqs[0], "TIDE-BODY-41c7"); n != 0 {
		t.Errorf("first request already carries the skill body (%d times)", n)
	}
	results := reqs[1].LastToolResults()
	if len(results) != 1 || !strings.Contains(results[0].Text(), "TIDE-BODY-41c7") {
		t.Fatalf("second request's tool results = %+v, want the SKILL.md body", results)
	}
	if strings.Contains(results[0].Text(), "BREAD-BODY-5e18") {
		t.Errorf("the other skill's body was loaded too")
	}
	if n := CountInMessages(reqs[1], "TIDE-BODY-41c7"); n != 1 {
		t.Errorf("second request carries the body %d times, want 1", n)
	}
	for _, name := range []string{"read", "bash"} {
		if !contains(reqs[0].ToolNames(), name) {
			t.Errorf("tool %q not declared; tools = %v", name, reqs[0].ToolNames())
		}
	}

	sess := MustReadSession(t, res.SessionFile)
	checkUsage(t, sess, reqs, DefaultModel)
	return env, res
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkUsage compares each assistant message's usage with what the provider
// reported for the request it answered, and its cost with the model's prices.
func checkUsage(t *testing.T, sess *Session, reqs []*Request, m Model) {
	t.Helper()
	asst := sess.Messages("assistant")
	if len(asst) != len(reqs) {
		t.Fatalf("session has %d assistant messages, provider got %d requests", len(asst), len(reqs))
	}
	for i, a := range asst {
		u := reqs[i].Usage
		if a.Usage == nil {
			t.Errorf("assistant message %d has no usage", i)
			continue
		}
		got := [4]int{a.Usage.Input, a.Usage.CacheRead, a.Usage.CacheWrite, a.Usage.Output}
		want := [4]int{u.PromptTokens - u.CachedTokens, u.CachedTokens, 0, u.CompletionTokens}
		if got != want {
			t.Errorf("request %d: session usage [input cacheRead cacheWrite output] = %v, provider reported %v", i, got, want)
		}
		wantCost := (float64(want[0])*m.Input + float64(want[1])*m.CacheRead + float64(want[3])*m.Output) / 1e6
		if math.Abs(a.Usage.Cost.Total-wantCost) > 1e-9 {
			t.Errorf("request %d: cost %.9f, want %.9f", i, a.Usage.Cost.Total, wantCost)
		}
	}
	if len(reqs) > 1 && reqs[1].Usage.CachedTokens == 0 {
		t.Errorf("second request shares no prefix with the first: %+v", reqs[1].Usage)
	}
}

func TestBaselinePi16(t *testing.T) {
	t.Parallel()
	baseline(t, Pi16(t))
}

func TestBaselinePi073(t *testing.T) {
	t.Parallel()
	env, res := baseline(t, Pi073(t))
	RecordSession(t, env, res.SessionFile, "pi073-read-skill")
}

// TestPi16UntrustedProjectHasNoSkills: without -a, print mode skips project
// .agents/skills (no prompt can ask for trust).
func TestPi16UntrustedProjectHasNoSkills(t *testing.T) {
	t.Parallel()
	prov := NewProvider(t, func(*Request) Reply { return Say("ok") })
	env := NewEnv(t, Pi16(t), prov)
	env.AddSkills(t, testSkills...)
	env.RunOK(t, RunOpts{Prompts: []string{"hello"}})
	reqs := prov.Requests()
	if len(reqs) != 1 {
		t.Fatalf("provider got %d requests, want 1", len(reqs))
	}
	if got := ListedSkills(reqs[0].SystemPrompt()); len(got) != 0 {
		t.Errorf("untrusted project's skills were listed: %v", got)
	}
}

// TestSessionFileReadable: the file Pi 1.6 writes is JSONL with the header
// first, a consistent tree, and survives a second run with --continue.
func TestSessionFileReadable(t *testing.T) {
	t.Parallel()
	env, first := baseline(t, Pi16(t))
	env.Provider.SetScript(func(*Request) Reply { return Say("Second answer.") })
	second := env.RunOK(t, RunOpts{Prompts: []string{"And the low tide?"}, Approve: true, Continue: true})
	if second.SessionFile != first.SessionFile {
		t.Errorf("--continue wrote %s, want the first run's %s", second.SessionFile, first.SessionFile)
	}
	sess := MustReadSession(t, second.SessionFile)
	if v, _ := sess.Header["version"].(float64); v != 3 {
		t.Errorf("header version = %v, want 3", sess.Header["version"])
	}
	if sess.Header["cwd"] != env.ProjectDir {
		t.Errorf("header cwd = %v, want %s", sess.Header["cwd"], env.ProjectDir)
	}
	if err := sess.CheckTree(); err != nil {
		t.Error(err)
	}
	users := sess.Messages("user")
	if len(users) != 2 || users[1].Text() != "And the low tide?" {
		t.Errorf("user messages = %d, last %q", len(users), users[len(users)-1].Text())
	}
	reqs := env.Provider.Requests()
	last := reqs[len(reqs)-1]
	if last.UserTurn != 2 || CountInMessages(last, "TIDE-BODY-41c7") != 1 {
		t.Errorf("continued request: turn %d, body copies %d; want turn 2 with the loaded body", last.UserTurn, CountInMessages(last, "TIDE-BODY-41c7"))
	}
	checkUsage(t, sess, reqs, DefaultModel)
}
