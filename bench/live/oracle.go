//go:build e2e

package live

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"time"
	"unicode/utf8"

	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/tests/e2e"
)

// Foresight is the bound on what archiving alone could save on one run:
// the run's own requests re-priced as if skill bodies (with the files of
// their folders the agent read, as archiveResources does) had been replaced
// by their placeholders, by a policy that knows the scenario's future. It
// archives only bodies of skills the scenario does not use again (no
// Load, Need or Ref step in any later turn), at the first request of a
// turn after the last use, so it never pays for a reload. Two plans:
//
//   - Cost: per skill, in order of last use, the turn (or never) that
//     gives the lowest cost under the lifetime, greedily, once per
//     lifetime (none and CacheTTL);
//   - Peak: every such body archived at the first turn after its last
//     use, whatever it costs: the smallest peak reachable without reloads.
//
// Applied to the no-extension run it bounds any archiving policy with
// Pi's listing; applied to the bridge's defaults run (which archives
// nothing in these scenarios), the bridge with a perfect policy.
type Foresight struct {
	Scenario string `json:"scenario"`
	Over     string `json:"over"` // the mode whose run was re-priced
	// Cost plan, priced with no lifetime and with CacheTTL; PeakChars is
	// the cost plan's peak (no lifetime).
	CostUSD   float64        `json:"costUSD"`
	CostUSD5m float64        `json:"costUSD5m"`
	PeakChars int            `json:"peakChars"`
	Plan      map[string]int `json:"plan"` // skill → turn (1-based) from which it is archived
	Plan5m    map[string]int `json:"plan5m"`
	// Peak plan.
	MinPeakChars   int     `json:"minPeakChars"`
	MinPeakCostUSD float64 `json:"minPeakCostUSD"`
	MinPeak5mUSD   float64 `json:"minPeakCostUSD5m"`
	// FloorPeakChars is the peak with every body archived in every turn
	// that does not use its skill (no Load, Need or Ref step of it): no
	// policy that keeps the bodies a turn uses until the turn ends has a
	// smaller peak, with or without reloads (a reload brings back the same
	// body, plus a call and a placeholder).
	FloorPeakChars int `json:"floorPeakChars"`
	// UnchangedUSD is the run re-priced with no plan (no lifetime): it
	// must equal the run's measured cost.
	UnchangedUSD float64 `json:"unchangedUSD"`
}

var (
	piBodyRE     = regexp.MustCompile(`^---\r?\nname:\s*([a-z0-9-]+)`)
	bridgeBodyRE = regexp.MustCompile(`^<skill_content name="([a-z0-9-]+)">`)
)

// skillFileRE finds the skill and the file in a path under a scenario's
// skill folder.
var skillFileRE = regexp.MustCompile(`(?:^|/)` + regexp.QuoteMeta(e2e.SkillDir) + `/([a-z0-9-]+)/(.+)$`)

// noteReads records the path of each read among an assistant message's
// tool calls (OpenAI chat completions form).
func noteReads(raw json.RawMessage, reads map[string]string) {
	var calls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &calls) != nil {
		return
	}
	for _, c := range calls {
		var a struct {
			Path string `json:"path"`
		}
		if c.Function.Name == "read" && json.Unmarshal([]byte(c.Function.Arguments), &a) == nil {
			reads[c.ID] = a.Path
		}
	}
}

// foresightReq is one request split so that bodies can be swapped.
type foresightReq struct {
	turn   int
	vtime  time.Time
	model  string
	output int
	body   map[string]json.RawMessage
	msgs   []json.RawMessage
	skill  map[int]string          // message index → skill whose body it is
	alt    map[int]json.RawMessage // message index → the message with the placeholder
}

// lastUse is, per skill, the last turn (1-based) that uses it, from
// turnSkills.
func lastUse(used []map[string]bool) map[string]int {
	last := map[string]int{}
	for i, skills := range used {
		for sk := range skills {
			last[sk] = i + 1
		}
	}
	return last
}

// turnSkills is, per turn, the skills it loads, needs or reads a file of.
func turnSkills(sc Scenario) []map[string]bool {
	out := make([]map[string]bool, len(sc.Turns))
	for i, t := range sc.Turns {
		out[i] = map[string]bool{}
		for _, st := range t.Steps {
			if st.Skill != "" {
				out[i][st.Skill] = true
			}
		}
	}
	return out
}

func splitRequests(run *Run) ([]foresightReq, error) {
	var out []foresightReq
	for _, r := range run.Requests {
		fr := foresightReq{turn: r.Turn, vtime: r.VTime, model: r.Model, output: r.Usage.CompletionTokens,
			skill: map[int]string{}, alt: map[int]json.RawMessage{}}
		if err := json.Unmarshal(r.Body, &fr.body); err != nil {
			return nil, fmt.Errorf("request %d: %v", r.Index, err)
		}
		if err := json.Unmarshal(fr.body["messages"], &fr.msgs); err != nil {
			return nil, fmt.Errorf("request %d: messages: %v", r.Index, err)
		}
		reads := map[string]string{} // tool call id -> path of a read
		for i, raw := range fr.msgs {
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) != nil {
				continue
			}
			var role, content string
			if json.Unmarshal(m["role"], &role) == nil && role == "assistant" {
				noteReads(m["tool_calls"], reads)
				continue
			}
			if role != "tool" || json.Unmarshal(m["content"], &content) != nil {
				continue
			}
			sk, ph := "", ""
			if g := piBodyRE.FindStringSubmatch(content); g != nil {
				sk = g[1]
			} else if g := bridgeBodyRE.FindStringSubmatch(content); g != nil {
				sk = g[1]
			} else {
				// A file of a skill's folder goes with its body
				// (archiveResources), the same turns.
				var id string
				_ = json.Unmarshal(m["tool_call_id"], &id)
				if g := skillFileRE.FindStringSubmatch(reads[id]); g != nil && g[2] != "SKILL.md" {
					sk, ph = g[1], rules.ResourcePlaceholder(g[1], reads[id])
				}
			}
			if sk == "" {
				continue
			}
			if ph == "" {
				ph = rules.Placeholder(sk)
			}
			m["content"], _ = json.Marshal(ph)
			alt, err := json.Marshal(m)
			if err != nil {
				return nil, err
			}
			fr.skill[i], fr.alt[i] = sk, alt
		}
		out = append(out, fr)
	}
	return out, nil
}

// pricePlan prices reqs with the skills of plan archived from their turn
// on; it returns the cost and the peak size in code points.
func pricePlan(reqs []foresightReq, plan map[string]int, ttl time.Duration) (float64, int, error) {
	return priceArchived(reqs, func(turn int, sk string) bool {
		t, ok := plan[sk]
		return ok && turn >= t
	}, ttl)
}

// priceArchived prices reqs with the body of sk replaced by its
// placeholder in every request of a turn where archived(turn, sk).
func priceArchived(reqs []foresightReq, archived func(turn int, sk string) bool, ttl time.Duration) (float64, int, error) {
	m := pricing.NewMeter(pricing.Options{CharsPerToken: 4, TTL: ttl})
	peak := 0
	for _, r := range reqs {
		msgs, copied := r.msgs, false
		for i, sk := range r.skill {
			if archived(r.turn, sk) {
				if !copied {
					msgs, copied = append([]json.RawMessage(nil), r.msgs...), true
				}
				msgs[i] = r.alt[i]
			}
		}
		raw, err := json.Marshal(map[string]any{"tools": r.body["tools"], "messages": msgs})
		if err != nil {
			return 0, 0, err
		}
		s, err := e2e.UsageString(raw)
		if err != nil {
			return 0, 0, err
		}
		peak = max(peak, utf8.RuneCountInString(s))
		m.Price(pricing.Request{Time: r.vtime, Provider: e2e.ProviderName, Model: r.model,
			Segments: []pricing.Segment{pricing.TextSegment(s)}, OutputTokens: r.output})
	}
	return m.Totals.Total, peak, nil
}

// MeasureForesight computes the foresight bound of run, a run of sc.
func MeasureForesight(sc Scenario, mode string, run *Run) (Foresight, error) {
	f := Foresight{Scenario: sc.Name, Over: mode}
	reqs, err := splitRequests(run)
	if err != nil {
		return f, err
	}
	used := turnSkills(sc)
	last := lastUse(used)
	var skills []string
	for sk := range last {
		skills = append(skills, sk)
	}
	sort.Slice(skills, func(i, j int) bool {
		if last[skills[i]] != last[skills[j]] {
			return last[skills[i]] < last[skills[j]]
		}
		return skills[i] < skills[j]
	})
	greedy := func(ttl time.Duration) (map[string]int, error) {
		plan := map[string]int{}
		for _, sk := range skills {
			best, bestTurn := -1.0, 0
			for t := last[sk] + 1; t <= len(sc.Turns)+1; t++ { // len+1: never
				if t <= len(sc.Turns) {
					plan[sk] = t
				} else {
					delete(plan, sk)
				}
				c, _, err := pricePlan(reqs, plan, ttl)
				if err != nil {
					return nil, err
				}
				if best < 0 || c < best {
					best, bestTurn = c, t
				}
			}
			if bestTurn <= len(sc.Turns) {
				plan[sk] = bestTurn
			} else {
				delete(plan, sk)
			}
		}
		return plan, nil
	}
	if f.UnchangedUSD, _, err = pricePlan(reqs, nil, 0); err != nil {
		return f, err
	}
	if f.Plan, err = greedy(0); err != nil {
		return f, err
	}
	if f.Plan5m, err = greedy(CacheTTL); err != nil {
		return f, err
	}
	if f.CostUSD, f.PeakChars, err = pricePlan(reqs, f.Plan, 0); err != nil {
		return f, err
	}
	if f.CostUSD5m, _, err = pricePlan(reqs, f.Plan5m, CacheTTL); err != nil {
		return f, err
	}
	peakPlan := map[string]int{}
	for sk, t := range last {
		if t < len(sc.Turns) {
			peakPlan[sk] = t + 1
		}
	}
	if f.MinPeakCostUSD, f.MinPeakChars, err = pricePlan(reqs, peakPlan, 0); err != nil {
		return f, err
	}
	if f.MinPeak5mUSD, _, err = pricePlan(reqs, peakPlan, CacheTTL); err != nil {
		return f, err
	}
	if _, f.FloorPeakChars, err = priceArchived(reqs, func(turn int, sk string) bool {
		return turn < 1 || turn > len(used) || !used[turn-1][sk]
	}, 0); err != nil {
		return f, err
	}
	return f, nil
}

// addForesight computes the foresight bound over the baseline run and over
// the defaults run of each scenario, relative to the figures of rep.Rows.
// The bound of an empty plan must equal the run's measured cost; a
// mismatch is reported, not hidden.
func (rep *Report) addForesight(scenarios []Scenario, modes []Mode, runs map[string]map[string]*Run) {
	over := []string{modes[0].Name}
	for _, m := range modes[1:] {
		if m.Name == "defaults" {
			over = append(over, m.Name)
		}
	}
	measured := map[[2]string]Figures{}
	for _, r := range rep.Rows {
		measured[[2]string{r.Scenario, r.Mode}] = r.Figures
	}
	sum := map[string]*Foresight{}
	var base Figures
	for _, sc := range scenarios {
		bf, ok := measured[[2]string{sc.Name, modes[0].Name}]
		if !ok {
			continue
		}
		addFigures(&base, bf)
		for _, mode := range over {
			run := runs[sc.Name][mode]
			if run == nil {
				continue
			}
			f, err := MeasureForesight(sc, mode, run)
			if m := measured[[2]string{sc.Name, mode}].CostUSD; err == nil && (f.UnchangedUSD < m*0.9999 || f.UnchangedUSD > m*1.0001) {
				err = fmt.Errorf("%s/%s: re-pricing the run unchanged gives %.6f USD, measured %.6f", sc.Name, mode, f.UnchangedUSD, m)
			}
			if err != nil {
				rep.ForesightErr = err.Error()
				return
			}
			rep.Foresight = append(rep.Foresight, foresightRow(f, bf))
			t := sum[mode]
			if t == nil {
				t = &Foresight{Scenario: "all", Over: mode}
				sum[mode] = t
			}
			t.CostUSD += f.CostUSD
			t.CostUSD5m += f.CostUSD5m
			t.PeakChars += f.PeakChars
			t.MinPeakChars += f.MinPeakChars
			t.FloorPeakChars += f.FloorPeakChars
			t.MinPeakCostUSD += f.MinPeakCostUSD
			t.MinPeak5mUSD += f.MinPeak5mUSD
			t.UnchangedUSD += f.UnchangedUSD
		}
	}
	for _, mode := range over {
		if t := sum[mode]; t != nil {
			rep.Foresight = append(rep.Foresight, foresightRow(*t, base))
		}
	}
}

// foresightRow puts f's figures relative to base, the no-extension run.
func foresightRow(f Foresight, base Figures) ForesightRow {
	peak := float64(base.PeakChars)
	return ForesightRow{Foresight: f,
		CostPct: pct(f.CostUSD, base.CostUSD), CostPct5m: pct(f.CostUSD5m, base.CostUSD5m), PeakPct: pct(float64(f.PeakChars), peak),
		MinPeakPct: pct(float64(f.MinPeakChars), peak), FloorPeakPct: pct(float64(f.FloorPeakChars), peak), MinPeakCostPct: pct(f.MinPeakCostUSD, base.CostUSD), MinPeakCost5m: pct(f.MinPeak5mUSD, base.CostUSD5m)}
}
