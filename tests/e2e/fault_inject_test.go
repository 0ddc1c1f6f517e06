//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	proxyOnce sync.Once
	proxyPath string
	proxyErr  string
)

// FaultProxyBin builds tests/e2e/faultproxy once per test binary run and
// returns its path.
func FaultProxyBin(t testing.TB) string {
	t.Helper()
	root := RepoRoot(t)
	SkillLifecycleBin(t) // makes binDir
	proxyOnce.Do(func() {
		out := filepath.Join(binDir, "faultproxy")
		cmd := exec.Command("go", "build", "-tags", "e2e", "-o", out, "./tests/e2e/faultproxy")
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			proxyErr = "go build ./tests/e2e/faultproxy: " + err.Error() + "\n" + string(b)
			return
		}
		proxyPath = out
	})
	if proxyErr != "" {
		t.Fatal(proxyErr)
	}
	return proxyPath
}

// Faults is a fault plan for the proxy (see faultproxy's doc) and where it
// keeps its counts and log.
type Faults struct {
	Dir  string
	Plan string
}

// NewFaults prepares a plan: "method:occurrences:fault[,...]".
func NewFaults(t testing.TB, plan string) *Faults {
	t.Helper()
	return &Faults{Dir: t.TempDir(), Plan: plan}
}

// Env is the environment that puts the proxy between the bridge and the
// sidecar, with the plan, for one run (after UseBridge's, so it wins).
func (f *Faults) Env(t testing.TB) []string {
	t.Helper()
	return []string{BinEnv + "=" + FaultProxyBin(t), "FAULT_SIDECAR=" + SkillLifecycleBin(t), "FAULT_DIR=" + f.Dir, "FAULT_PLAN=" + f.Plan}
}

// Injected lists the faults the proxy injected: "method occurrence fault".
func (f *Faults) Injected() []string {
	b, _ := os.ReadFile(filepath.Join(f.Dir, "injected"))
	return strings.Fields(strings.ReplaceAll(string(b), " ", "_"))
}

// faultBoundaries are the protocol boundaries the fault tests spoil, with
// the occurrence that matters in the scenario: the first initialize; the
// tide load; the direct read of bread's SKILL.md (the second tool_call;
// the first is the tide reference); the bread prompt, which archives tide;
// the request that carries the tide load's result; the restore of the
// continued session (with records), in a second run.
var faultBoundaries = []struct {
	method, occurrence string
	resumed            bool
}{
	{"initialize", "1", false},
	{"skill/load", "1", false},
	{"tool_call", "2", false},
	{"user_prompt", "2", false},
	{"before_request", "2", false},
	{"session/restore", "2", true},
}

var faultKinds = []string{"late", "drop", "corrupt"}

// TestFaultInjection (issue 27, "Done when"): a proxy between the bridge
// and the sidecar answers late (past the timeout), loses the answer with
// the process, or puts junk in its place, at each protocol boundary, on
// Pi 1.6 and Pi 0.73. At every boundary and fault the run completes, the
// model receives every body it asks for (each request is checked: the
// scripted model moves on only once the body is in it, and an "already
// loaded" answer must come with the body in the same request), and every
// placeholder stands in for the tool result it replaces.
func TestFaultInjection(t *testing.T) {
	t.Parallel()
	for _, pi := range piLines {
		for _, b := range faultBoundaries {
			for _, kind := range faultKinds {
				name := fmt.Sprintf("%s/%s/%s", pi.name, strings.ReplaceAll(b.method, "/", "-"), kind)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					faultScenario(t, pi.get(t), fmt.Sprintf("%s:%s:%s", b.method, b.occurrence, kind), b.resumed)
				})
			}
		}
	}
}

// The scenario's goals: the body each user turn needs, by marker.
var faultGoals = map[int]struct{ skill, marker string }{
	1: {"tide-tables", "TIDE-BODY-41c7"},
	2: {"bread-proofing", "BREAD-BODY-5e18"},
}

var readInstead = regexp.MustCompile(`read (\S+/SKILL\.md) with the read tool`)

// faultModel is a scripted model that behaves as a model following the
// bridge's instructions would: it calls the skill tool for the skill its
// turn needs (in turn 2 it first reads the SKILL.md directly, which the
// guard blocks), reads the file when the tool says to, calls the tool
// again when a read is blocked, and moves on only once the body is in the
// request. In turn 1 it then reads the skill's reference file.
type faultModel struct {
	mu       sync.Mutex
	problems []string
}

func (fm *faultModel) problem(format string, a ...any) {
	fm.mu.Lock()
	fm.problems = append(fm.problems, fmt.Sprintf(format, a...))
	fm.mu.Unlock()
}

// reply answers r; every tool call it makes has the id "call_0", as some
// providers do, so that the loads' names (and the records restored by
// them after each restart) are tested too.
func (fm *faultModel) reply(r *Request) Reply {
	rep := fm.decide(r)
	for i := range rep.Calls {
		rep.Calls[i].ID = "call_0"
	}
	return rep
}

func (fm *faultModel) decide(r *Request) Reply {
	goal, ok := faultGoals[r.UserTurn]
	if !ok {
		return Say("Done.")
	}
	skillFile := ProjectSkillFile(r.SystemPrompt(), goal.skill)
	var last string
	if res := r.LastToolResults(); len(res) > 0 && r.Step > 0 {
		last = res[len(res)-1].Text()
	}
	have := CountInMessages(r, goal.marker) > 0
	if strings.Contains(last, "is already loaded") && !have {
		fm.problem("request %d: the skill tool answered %q but the body of %s is not in the request", r.Index, last, goal.skill)
	}
	switch {
	case have && r.UserTurn == 1 && CountInMessages(r, "TIDE-REF-9a02") == 0:
		return Do(Call{Name: "read", Args: map[string]any{"path": filepath.Join(filepath.Dir(skillFile), "references", "constituents.md")}})
	case have:
		return Say("Done.")
	case r.Step >= 8:
		fm.problem("request %d: after %d steps the body of %s is still not in the request", r.Index, r.Step, goal.skill)
		return Say("GAVE UP")
	case r.Step == 0 && r.UserTurn == 2:
		return Do(Call{Name: "read", Args: map[string]any{"path": skillFile}})
	}
	if m := readInstead.FindStringSubmatch(last); m != nil {
		return Do(Call{Name: "read", Args: map[string]any{"path": m[1]}})
	}
	if contains(r.ToolNames(), "skill") {
		return load(goal.skill)
	}
	return Do(Call{Name: "read", Args: map[string]any{"path": skillFile}})
}

func faultScenario(t *testing.T, pi PiInstall, plan string, resumed bool) *Faults {
	fm := &faultModel{}
	env, prov, _ := bridgeEnv(t, pi, fm.reply, `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	faults := NewFaults(t, plan)
	runEnv := append(faults.Env(t), "SKILL_LIFECYCLE_TIMEOUT_MS=1500", "FAULT_DELAY=4s")
	prompts := []string{
		"When is high tide tomorrow at the harbour?",
		"How long should sourdough bread dough proof at room temperature before baking?",
	}
	start := time.Now()
	var res *Result
	if resumed {
		env.RunOK(t, RunOpts{Approve: pi.TrustGated, Env: runEnv, Prompts: prompts[:1]})
		res = env.RunOK(t, RunOpts{Approve: pi.TrustGated, Env: runEnv, Continue: true, Prompts: prompts[1:]})
	} else {
		res = env.RunOK(t, RunOpts{Approve: pi.TrustGated, Env: runEnv, Prompts: prompts})
	}
	method := plan[:strings.Index(plan, ":")]
	inj := faults.Injected()
	if !slicesContainPrefix(inj, method+"_") {
		t.Errorf("the fault %s was never injected (injected: %v)", plan, inj)
	}
	for _, p := range fm.problems {
		t.Error(p)
	}
	reqs := prov.Requests()
	for turn := range faultGoals {
		done := false
		for _, r := range reqs {
			if r.UserTurn == turn && r.Reply.Text == "Done." {
				done = true
			}
		}
		if !done {
			t.Errorf("user turn %d never finished with its body", turn)
		}
	}
	if res.SessionFile != "" {
		checkPlaceholders(t, reqs, MustReadSession(t, res.SessionFile))
	} else {
		t.Error("no session file was written")
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
	}
	t.Logf("%s on Pi %s: %d requests, %v, injected %v", plan, pi.Version, len(reqs), time.Since(start).Round(time.Millisecond), inj)
	return faults
}

func slicesContainPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// checkPlaceholders checks every tool result of every request against the
// result Pi recorded at the same position: sent as recorded, or replaced
// by the placeholder of what it holds (the body of a skill, or a file of
// its folder), never by another's.
func checkPlaceholders(t *testing.T, reqs []*Request, sess *Session) {
	t.Helper()
	var recorded []string
	for _, m := range sess.Messages("toolResult") {
		recorded = append(recorded, m.Text())
	}
	owners := []struct{ marker, placeholder string }{
		{"TIDE-BODY-41c7", placeholderTide},
		{"TIDE-REF-9a02", `constituents.md, a file of skill "tide-tables", was archived`},
		{"BREAD-BODY-5e18", `the instructions of skill "bread-proofing" were archived`},
	}
	for _, r := range reqs {
		k := 0
		for _, m := range r.Messages {
			if m.Role != "tool" {
				continue
			}
			if k >= len(recorded) {
				t.Errorf("request %d has more tool results than the session records", r.Index)
				break
			}
			sent, orig := m.Text(), recorded[k]
			k++
			if sent == orig {
				continue
			}
			ok := false
			for _, o := range owners {
				if strings.Contains(orig, o.marker) && strings.Contains(sent, o.placeholder) {
					ok = true
				}
			}
			if !ok {
				t.Errorf("request %d, tool result %d: sent %.100q in place of %.100q", r.Index, k-1, sent, orig)
			}
		}
	}
}
