//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// faultPrompts is the scripted session the kill test repeats: two skills
// loaded by the skill tool, a reference file read (never to be blocked;
// archived with its skill's body), a
// direct read of a SKILL.md (to be blocked), topic changes that archive
// bodies.
var faultPrompts = []string{
	"When is high tide tomorrow at the harbour?",
	"How long should sourdough bread dough proof at room temperature before baking?",
	"And the high tide on Sunday, at the same harbour?",
	"How warm should the kitchen be for the bread dough?",
}

// faultScript answers the prompts; kill, called before each answer with the
// request's index, may kill the sidecar.
func faultScript(kill func(i int)) Script {
	return func(req *Request) Reply {
		kill(req.Index)
		tide := ProjectSkillFile(req.SystemPrompt(), "tide-tables")
		switch {
		case req.UserTurn == 1 && req.Step == 0:
			return load("tide-tables")
		case req.UserTurn == 1 && req.Step == 1:
			return Do(Call{Name: "read", Args: map[string]any{"path": filepath.Join(filepath.Dir(tide), "references", "constituents.md")}})
		case req.UserTurn == 2 && req.Step == 0:
			return load("bread-proofing")
		case req.UserTurn == 3 && req.Step == 0:
			return Do(Call{Name: "read", Args: map[string]any{"path": tide}})
		case req.UserTurn == 3 && req.Step == 1:
			return load("tide-tables")
		}
		return Say("Done.")
	}
}

// faultOutcome is what a run of the scripted session produced: for each
// model request, what each tool result in its context holds; and the
// decisions recorded in the session file.
type faultOutcome struct {
	requests    [][]string
	records     []string
	modelStates int
	stderr      string
}

// classify names what a tool result holds.
func classify(m Message) string {
	text := m.Text()
	switch {
	case strings.Contains(text, "TIDE-BODY-41c7"):
		return m.ToolCallID + ":tide-body"
	case strings.Contains(text, "BREAD-BODY-5e18"):
		return m.ToolCallID + ":bread-body"
	case strings.Contains(text, placeholderTide):
		return m.ToolCallID + ":tide-archived"
	case strings.Contains(text, `the instructions of skill "bread-proofing" were archived`):
		return m.ToolCallID + ":bread-archived"
	case strings.Contains(text, "TIDE-REF-9a02"):
		return m.ToolCallID + ":reference"
	case strings.Contains(text, `constituents.md, a file of skill "tide-tables", was archived`):
		return m.ToolCallID + ":reference-archived"
	case strings.Contains(text, "Blocked:"):
		return m.ToolCallID + ":blocked"
	}
	return m.ToolCallID + ":other " + strconv.Quote(text[:min(60, len(text))])
}

// runFaultSession runs the session once, killing the sidecar with SIGKILL
// before the model answers each request whose index is in killAt.
func runFaultSession(t *testing.T, killAt map[int]bool) faultOutcome {
	t.Helper()
	var env *Env
	killed := 0
	script := faultScript(func(i int) {
		if !killAt[i] {
			return
		}
		for _, pid := range sidecarPIDs(t, env.AgentDir) {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
			}
		}
		// Give the bridge time to see the process exit, so that the next
		// event meets a dead sidecar rather than a dying one.
		time.Sleep(200 * time.Millisecond)
	})
	env, prov, _ := bridgeEnv(t, Pi16(t), script, `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	res := env.RunOK(t, RunOpts{Approve: true, Prompts: faultPrompts})
	if len(killAt) > 0 && killed == 0 {
		t.Fatalf("no sidecar was running to kill at requests %v", killAt)
	}
	var out faultOutcome
	for _, r := range prov.Requests() {
		var row []string
		for _, m := range r.Messages {
			if m.Role == "tool" {
				row = append(row, classify(m))
			}
		}
		out.requests = append(out.requests, row)
	}
	for _, e := range MustReadSession(t, res.SessionFile).Custom(entryType) {
		var d struct {
			Action string `json:"action"`
			Skill  string `json:"skill"`
			ID     string `json:"id"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatalf("record at line %d: %v", e.Line, err)
		}
		// model-state records are counted apart: a restarted sidecar must
		// not add any (it once added one per restart).
		if d.Action == "model-state" {
			out.modelStates++
			continue
		}
		out.records = append(out.records, d.Action+" "+d.Skill+" "+d.ID)
	}
	out.stderr = res.Stderr
	return out
}

// TestFaultSidecarKilledAtRandom: the sidecar is killed with SIGKILL before
// randomly chosen model requests of a scripted four-prompt session (one or
// two kills per run). Every Pi run completes; every model request holds
// exactly what it holds in a run without kills (so no tool call is blocked
// wrongly, none served that should be blocked, and the archive state the
// restarted sidecar restores from the session is the one recorded there);
// and the session records the same decisions. Three runs by default;
// SKILL_LIFECYCLE_SOAK_RUNS=20 for a soak, SKILL_LIFECYCLE_SOAK_SEED to
// repeat a sequence.
func TestFaultSidecarKilledAtRandom(t *testing.T) {
	runs := 3
	if v := os.Getenv("SKILL_LIFECYCLE_SOAK_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("SKILL_LIFECYCLE_SOAK_RUNS=%q: want a positive number", v)
		}
		runs = n
	}
	seed := time.Now().UnixNano()
	if v := os.Getenv("SKILL_LIFECYCLE_SOAK_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("SKILL_LIFECYCLE_SOAK_SEED=%q: %v", v, err)
		}
		seed = n
	}
	t.Logf("seed %d (SKILL_LIFECYCLE_SOAK_SEED to repeat), %d runs", seed, runs)
	rng := rand.New(rand.NewSource(seed))

	control := runFaultSession(t, nil)
	n := len(control.requests)
	if n < 8 {
		t.Fatalf("the control run made %d model requests, want at least 8", n)
	}
	if !strings.Contains(strings.Join(control.records, "\n"), "archive") {
		t.Fatalf("the control run archived nothing; records %q", control.records)
	}
	for run := 0; run < runs; run++ {
		killAt := map[int]bool{rng.Intn(n): true}
		if rng.Intn(2) == 1 {
			killAt[rng.Intn(n)] = true
		}
		var points []int
		for i := 0; i < n; i++ {
			if killAt[i] {
				points = append(points, i)
			}
		}
		t.Run(fmt.Sprintf("run%02d-kill%v", run, points), func(t *testing.T) {
			got := runFaultSession(t, killAt)
			if d := cmp.Diff(control.requests, got.requests); d != "" {
				t.Errorf("model requests differ from the run without kills (-control +killed):\n%s", d)
			}
			if d := cmp.Diff(control.records, got.records); d != "" {
				t.Errorf("recorded decisions differ (-control +killed):\n%s", d)
			}
			if got.modelStates != control.modelStates {
				t.Errorf("%d model-state records after %d kills, the run without kills has %d", got.modelStates, len(points), control.modelStates)
			}
			if told := strings.Count(got.stderr, "skill-lifecycle: the sidecar stopped"); told > len(points) {
				t.Errorf("the user was told %d times for %d kills:\n%s", told, len(points), got.stderr)
			}
		})
	}
}
