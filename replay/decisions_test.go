package replay

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// TestReplayDecisions: with Options.Decisions each engine strategy of a
// branch lists what the engine decided, at which request and turn, and
// why; a body kept due is noted once a turn; keep-all lists nothing, and
// asking changes no figure.
func TestReplayDecisions(t *testing.T) {
	// alphaBeta: alpha is due from the first request of turn 8, 16 (turn
	// 1 makes three requests, the others two).
	file, cat, cfg := alphaBeta(t, 10)
	run := func(ttl time.Duration, decisions bool) *Report {
		t.Helper()
		return replayFile(t, file, Options{TTL: ttl, Decisions: decisions, Strategies: []StrategySpec{EngineSpec("defaults", world(cat, cfg))}})
	}
	type note struct {
		Request, Turn int
		Action, Skill string
	}
	brief := func(ns []DecisionNote, skip string) []note {
		var out []note
		for _, n := range ns {
			if n.Action != skip {
				out = append(out, note{n.Request, n.Turn, n.Action, n.Skill})
			}
		}
		return out
	}

	t.Run("cold after a pause found cold", func(t *testing.T) {
		rep := run(5*time.Minute, true)
		ka, def := rep.Branches[0].Strategies[0], rep.Branches[0].Strategies[1]
		if len(ka.Decisions) > 0 {
			t.Errorf("keep-all lists decisions: %v", ka.Decisions)
		}
		want := []note{{16, 8, "due", "alpha"}, {16, 8, "archive", "alpha"}}
		if diff := cmp.Diff(want, brief(def.Decisions, "cache-lifetime")); diff != "" {
			t.Errorf("decisions (-want +got):\n%s\nall: %+v", diff, def.Decisions)
		}
		var learned bool
		for _, n := range def.Decisions {
			switch n.Action {
			case "cache-lifetime":
				learned = learned || strings.Contains(n.Text, "found it cold")
			case "due":
				if n.Code != string(rules.ArchiveNotRelevant) || !strings.Contains(n.Text, "not relevant") {
					t.Errorf("due note %+v: want the relevance reason", n)
				}
			case "archive":
				if n.Code != string(rules.TimeCold) || !strings.Contains(n.Text, "not relevant") || !strings.Contains(n.Text, "cold") {
					t.Errorf("archive note %+v: want the relevance reason and the cold cache", n)
				}
			}
		}
		if !learned {
			t.Errorf("no cache-lifetime note says a pause found the cache cold: %+v", def.Decisions)
		}
		plain := run(5*time.Minute, false)
		if d := plain.Branches[0].Strategies[1].Decisions; d != nil {
			t.Errorf("decisions kept without Options.Decisions: %v", d)
		}
		if plain.Strategies[1].CostUSD != rep.Strategies[1].CostUSD || plain.Strategies[1].Archives != rep.Strategies[1].Archives {
			t.Errorf("asking for decisions changed the run: %.6f (%d archives), without %.6f (%d)",
				rep.Strategies[1].CostUSD, rep.Strategies[1].Archives, plain.Strategies[1].CostUSD, plain.Strategies[1].Archives)
		}
		var out bytes.Buffer
		WriteDecisions(&out, rep)
		if s := out.String(); !strings.Contains(s, ", defaults:") || !strings.Contains(s, "request 16") || !strings.Contains(s, "archive") {
			t.Errorf("WriteDecisions:\n%s", s)
		}
	})

	t.Run("kept while the cache stays warm, noted once a turn", func(t *testing.T) {
		rep := run(0, true)
		def := rep.Branches[0].Strategies[1]
		want := []note{{16, 8, "due", "alpha"}, {16, 8, "kept", "alpha"}, {18, 9, "kept", "alpha"}, {20, 10, "kept", "alpha"}}
		if diff := cmp.Diff(want, brief(def.Decisions, "cache-lifetime")); diff != "" {
			t.Errorf("decisions (-want +got):\n%s\nall: %+v", diff, def.Decisions)
		}
		for _, n := range def.Decisions {
			// The figures in dollars, at the prices replay uses, and
			// positions in characters.
			if n.Action == "kept" && (n.Code != string(rules.TimeDefer) || !regexp.MustCompile(`would cost \$0\.\d{6} \(rewriting the cache after character \d+\) and save \$0\.\d{6} a request`).MatchString(n.Text)) {
				t.Errorf("kept note %+v: want the deferral and its figures, with their units", n)
			}
		}
	})
}
