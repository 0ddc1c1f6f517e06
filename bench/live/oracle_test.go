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
