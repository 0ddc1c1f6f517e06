//go:build e2e

package live

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/tests/e2e"
)

// synthRun builds a run of turns requests whose first request loads a
// skill body of bodyChars characters; each request adds stepChars.
func synthRun(t *testing.T, turns, bodyChars, stepChars int, gap time.Duration) *Run {
	t.Helper()
	msgs := []map[string]any{{"role": "system", "content": "sys"}, {"role": "user", "content": "go"},
		{"role": "tool", "tool_call_id": "c1", "content": "---\nname: alpha\ndescription: a\n---\n" + strings.Repeat("a", bodyChars)}}
	run := &Run{Scenario: "synth"}
	at := VirtualStart
	for i := 0; i < turns; i++ {
		msgs = append(msgs, map[string]any{"role": "user", "content": strings.Repeat("x", stepChars)})
		body, err := json.Marshal(map[string]any{"model": "m", "messages": msgs, "tools": []any{}})
		if err != nil {
			t.Fatal(err)
		}
		s, err := e2e.UsageString(body)
		if err != nil {
			t.Fatal(err)
		}
		req := &e2e.Request{Index: i, Body: body, Model: "m", S: s}
		run.Requests = append(run.Requests, Req{Request: req, Turn: i + 1, VTime: at, Chars: len(s)})
		at = at.Add(gap)
	}
	return run
}

func synthScenario(turns int) Scenario {
	sc := Scenario{Name: "synth"}
	for i := 0; i < turns; i++ {
		st := []Step{Say("ok")}
		if i == 0 {
			st = []Step{Load("alpha"), Say("ok")}
		}
		sc.Turns = append(sc.Turns, Turn{Prompt: "p", Steps: st})
	}
	return sc
}

func TestForesight(t *testing.T) {
	for _, tc := range []struct {
		name                string
		turns, body, step   int
		gap                 time.Duration
		wantTurn, wantTurn5 int // 0: never archived
	}{
		// A large body, little after it, many requests: archive at once.
		{"pays-at-once", 30, 20000, 200, time.Minute, 2, 2},
		// A small body under a long context, few requests, warm cache:
		// never; with pauses over the lifetime every request is cold and
		// archiving is free, so at once.
		{"never-warm", 4, 2000, 20000, time.Minute, 0, 0},
		{"free-when-cold", 4, 2000, 20000, 6 * time.Minute, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := synthRun(t, tc.turns, tc.body, tc.step, tc.gap)
			f, err := MeasureForesight(synthScenario(tc.turns), "none", run)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Plan["alpha"]; got != tc.wantTurn {
				t.Errorf("plan: alpha from turn %d, want %d (%v)", got, tc.wantTurn, f.Plan)
			}
			if got := f.Plan5m["alpha"]; got != tc.wantTurn5 {
				t.Errorf("5-minute plan: alpha from turn %d, want %d (%v)", got, tc.wantTurn5, f.Plan5m)
			}
			base := Measure(run)
			if f.CostUSD > base.CostUSD || f.CostUSD5m > base.CostUSD5m {
				t.Errorf("the bound costs more than doing nothing: %.6f/%.6f > %.6f/%.6f", f.CostUSD, f.CostUSD5m, base.CostUSD, base.CostUSD5m)
			}
			if f.MinPeakChars >= base.PeakChars {
				t.Errorf("min peak %d not below the run's peak %d", f.MinPeakChars, base.PeakChars)
			}
			if f.UnchangedUSD != base.CostUSD {
				t.Errorf("empty plan: %.9f USD, measured %.9f", f.UnchangedUSD, base.CostUSD)
			}
		})
	}
}

// TestForesightPeakFloor: alpha is used in turns 1 and 3 of 4, and its
// body dwarfs each turn's growth. The floor archives it in turns 2 and 4,
// so its peak is turn 3's request, whole; with one skill that is also the
// no-reload minimum. Unused after turn 1, it is the larger of turn 1's
// request and turn 4's with a placeholder.
func TestForesightPeakFloor(t *testing.T) {
	const body, step = 20000, 300
	run := synthRun(t, 4, body, step, time.Minute)
	sc := synthScenario(4)
	sc.Turns[2].Steps = []Step{Need("alpha"), Say("ok")}
	f, err := MeasureForesight(sc, "none", run)
	if err != nil {
		t.Fatal(err)
	}
	if want := run.Requests[2].Chars; f.FloorPeakChars != want || f.MinPeakChars != want {
		t.Errorf("floor peak %d, min peak %d: want turn 3's request, %d", f.FloorPeakChars, f.MinPeakChars, want)
	}
	f, err = MeasureForesight(synthScenario(4), "none", run)
	if err != nil {
		t.Fatal(err)
	}
	if want := run.Requests[0].Chars; f.FloorPeakChars != want {
		t.Errorf("used once: floor peak %d, want turn 1's request, %d (turn 4's would be %d with the body)", f.FloorPeakChars, want, run.Requests[3].Chars)
	}
}

// The bound swaps a file the agent read from a skill's folder with that
// skill's body: its peak plan drops both.
func TestForesightSwapsSkillFiles(t *testing.T) {
	run := synthRun(t, 6, 2000, 100, time.Minute)
	ref := ".agents/skills/alpha/references/guide.md"
	for i := range run.Requests {
		var b map[string]any
		if err := json.Unmarshal(run.Requests[i].Body, &b); err != nil {
			t.Fatal(err)
		}
		msgs := b["messages"].([]any)
		extra := []any{
			map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "r1", "type": "function",
				"function": map[string]any{"name": "read", "arguments": `{"path":"` + ref + `"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": "r1", "content": strings.Repeat("g", 5000)},
		}
		b["messages"] = append(append(append([]any{}, msgs[:3]...), extra...), msgs[3:]...)
		body, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		run.Requests[i].Body = body
	}
	reqs, err := splitRequests(run)
	if err != nil {
		t.Fatal(err)
	}
	var skills []string
	for _, i := range []int{2, 4} {
		skills = append(skills, reqs[0].skill[i])
	}
	if skills[0] != "alpha" || skills[1] != "alpha" {
		t.Fatalf("swappable messages of request 1: body %q, file %q; want alpha for both", skills[0], skills[1])
	}
	if alt := string(reqs[0].alt[4]); !strings.Contains(alt, "guide.md, a file of skill") {
		t.Errorf("the file's replacement is %s", alt)
	}
}
