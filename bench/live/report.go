//go:build e2e

package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

// Targets of issue 9 for the bridge's defaults, relative to no extension.
const (
	TargetCost5m = 85.0 // % with a 5-minute cache lifetime
	TargetCost   = 95.0 // % without a cache lifetime
	TargetPeak   = 70.0 // % of the peak request size
	TargetReplay = 3.0  // % replay-vs-live gap
)

// Row is one scenario in one mode (Scenario "all" sums the scenarios).
type Row struct {
	Scenario  string       `json:"scenario"`
	Mode      string       `json:"mode"`
	Figures                // summed over scenarios in the "all" rows
	CostPct   float64      `json:"costPct"`   // of the same scenario without extension
	CostPct5m float64      `json:"costPct5m"` // idem, 5-minute cache lifetime
	PeakPct   float64      `json:"peakPct"`   // of the peak request size without extension
	Replay    *ReplayCheck `json:"replay,omitempty"`
}

// ReplayCheck compares what `skill-lifecycle replay` predicts from the
// no-extension session with the live run of the same mode.
type ReplayCheck struct {
	Strategy   string  `json:"strategy"`
	PredUSD    float64 `json:"predictedUSD"`
	PredUSD5m  float64 `json:"predictedUSD5m"`
	PredPct    float64 `json:"predictedPct"`   // of replay's keep-all
	PredPct5m  float64 `json:"predictedPct5m"` // idem
	GapPct     float64 `json:"gapPct"`         // predicted cost / live cost - 1, in %
	GapPct5m   float64 `json:"gapPct5m"`
	KeepAllGap float64 `json:"keepAllGapPct"` // replay keep-all / live no-extension cost - 1, in %
	// The same prediction with the comeback model off (replay
	// --no-comebacks: the agent comes back to no archived skill the
	// session does not show it using) and with every comeback (replay
	// --all-comebacks: to every archived skill a prompt asks for). The
	// two bracket what an agent could do; BandGap is how far the live
	// cost lies outside that band (0 inside it), in % of the live cost.
	NoCBUSD      float64 `json:"predictedNoComebacksUSD"`
	NoCBUSD5m    float64 `json:"predictedNoComebacksUSD5m"`
	AllCBUSD     float64 `json:"predictedAllComebacksUSD"`
	AllCBUSD5m   float64 `json:"predictedAllComebacksUSD5m"`
	BandGapPct   float64 `json:"bandGapPct"`
	BandGapPct5m float64 `json:"bandGapPct5m"`
	// RecordedGap compares `replay --recorded` on this run's own session
	// (the bridge's recorded decisions re-applied) with its live cost: it
	// checks replay's repricing, not its prediction.
	RecordedGap   float64 `json:"recordedGapPct"`
	RecordedGap5m float64 `json:"recordedGapPct5m"`
	Err           string  `json:"error,omitempty"`
}

// Report is the benchmark's outcome.
type Report struct {
	Scenarios []ScenarioInfo `json:"scenarios"`
	Modes     []Mode         `json:"modes"`
	Rows      []Row          `json:"rows"`
	Totals    []Row          `json:"totals"`
	Pricing   string         `json:"pricing"`
	// Foresight is the bound of archiving with perfect knowledge of the
	// scenario's future, over the no-extension run and over the defaults
	// run, per scenario and summed ("all"); see Foresight.
	Foresight []ForesightRow `json:"foresight"`
	// ForesightErr is set when a bound could not be computed.
	ForesightErr string `json:"foresightError,omitempty"`
}

// ForesightRow is a Foresight with its figures relative to the
// no-extension run of the same scenario.
type ForesightRow struct {
	Foresight
	CostPct        float64 `json:"costPct"`
	CostPct5m      float64 `json:"costPct5m"`
	PeakPct        float64 `json:"peakPct"`
	MinPeakPct     float64 `json:"minPeakPct"`
	FloorPeakPct   float64 `json:"floorPeakPct"`
	MinPeakCostPct float64 `json:"minPeakCostPct"`
	MinPeakCost5m  float64 `json:"minPeakCostPct5m"`
}

// ScenarioInfo describes a scenario.
type ScenarioInfo struct {
	Name  string `json:"name"`
	About string `json:"about"`
	Turns int    `json:"turns"`
}

// BuildReport measures the runs (runs[scenario][mode]) in the order of
// scenarios and modes; the first mode is the baseline.
func BuildReport(scenarios []Scenario, modes []Mode, runs map[string]map[string]*Run) *Report {
	rep := &Report{Modes: modes, Pricing: "replay/pricing on each request's usage string (tools + messages, compact JSON, code points), 4 characters a token; longest prefix shared with the previous request read at 0.1x input, the rest written at 1.25x, output at 5x input (3/15 USD per million); cache lifetime none, and 5 minutes on the virtual timeline"}
	total := map[string]*Row{}
	for _, sc := range scenarios {
		rep.Scenarios = append(rep.Scenarios, ScenarioInfo{sc.Name, sc.About, len(sc.Turns)})
		base := Measure(runs[sc.Name][modes[0].Name])
		for _, m := range modes {
			run := runs[sc.Name][m.Name]
			if run == nil {
				continue
			}
			f := base
			if m.Name != modes[0].Name {
				f = Measure(run)
			}
			r := Row{Scenario: sc.Name, Mode: m.Name, Figures: f,
				CostPct: pct(f.CostUSD, base.CostUSD), CostPct5m: pct(f.CostUSD5m, base.CostUSD5m), PeakPct: pct(float64(f.PeakChars), float64(base.PeakChars))}
			rep.Rows = append(rep.Rows, r)
			t := total[m.Name]
			if t == nil {
				t = &Row{Scenario: "all", Mode: m.Name}
				total[m.Name] = t
			}
			addFigures(&t.Figures, f)
		}
	}
	rep.addForesight(scenarios, modes, runs)
	b := total[modes[0].Name]
	for _, m := range modes {
		if t := total[m.Name]; t != nil && b != nil {
			t.CostPct, t.CostPct5m = pct(t.CostUSD, b.CostUSD), pct(t.CostUSD5m, b.CostUSD5m)
			t.PeakPct = pct(float64(t.PeakChars), float64(b.PeakChars))
			t.Breaks = nil
			rep.Totals = append(rep.Totals, *t)
		}
	}
	return rep
}

// addFigures sums f into t; PeakChars sums each scenario's peak.
func addFigures(t *Figures, f Figures) {
	t.Requests += f.Requests
	t.CostUSD += f.CostUSD
	t.CostUSD5m += f.CostUSD5m
	t.PeakChars += f.PeakChars
	t.PromptChars += f.PromptChars
	t.CacheReadTokens += f.CacheReadTokens
	t.CacheWriteTokens += f.CacheWriteTokens
	t.OutputTokens += f.OutputTokens
	t.ColdRequests5m += f.ColdRequests5m
	t.PrefixBreaks += f.PrefixBreaks
	t.BrokenChars += f.BrokenChars
	t.Loads += f.Loads
	t.Reloads += f.Reloads
	t.Comebacks += f.Comebacks
	t.ComebackReloads += f.ComebackReloads
	t.Stranded += f.Stranded
	t.OrphanUses += f.OrphanUses
	t.OrphanStranded += f.OrphanStranded
	t.NoteChars += f.NoteChars
	t.UsageMismatches += f.UsageMismatches
	t.Problems = append(t.Problems, f.Problems...)
}

func pct(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * a / b
}

// replayStrategies runs `skill-lifecycle replay --json` on a session with
// the given cache lifetime and returns cost per strategy name.
func replayStrategies(bin, packDir, session, ttl string, configs map[string]string, extra ...string) (map[string]float64, error) {
	dir, err := os.MkdirTemp("", "live-bench-replay-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	args := append([]string{"replay", "--json", "--skills", packDir, "--cache-ttl", ttl}, extra...)
	for name, cfg := range configs {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
			return nil, err
		}
		args = append(args, "--config", name+"="+p)
	}
	args = append(args, session)
	var out, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("skill-lifecycle %s: %v\n%s", strings.Join(args, " "), err, clip(stderr.String(), 2000))
	}
	var rep struct {
		Strategies []struct {
			Name    string  `json:"name"`
			CostUSD float64 `json:"costUSD"`
		} `json:"strategies"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return nil, fmt.Errorf("replay --json: %v", err)
	}
	costs := map[string]float64{}
	for _, s := range rep.Strategies {
		costs[s.Name] = s.CostUSD
	}
	return costs, nil
}

// AddReplay fills each bridge row's replay check from the scenario's
// no-extension session.
func (rep *Report) AddReplay(bin string, packs map[string]string, runs map[string]map[string]*Run) {
	configs := map[string]string{}
	strategy := map[string]string{}
	for _, m := range rep.Modes[1:] {
		if m.Config != "" {
			configs[m.Name] = m.Config
		}
		strategy[m.Name] = m.Strategy()
	}
	byScenario := map[string][6]map[string]float64{}
	errs := map[string]string{}
	for _, sc := range rep.Scenarios {
		base := runs[sc.Name][rep.Modes[0].Name]
		// Without and with a lifetime, then the same without comebacks
		// and with every comeback.
		var c [6]map[string]float64
		var err error
		for i, run := range [6]struct {
			ttl   string
			extra []string
		}{{"0", nil}, {"5m", nil}, {"0", []string{"--no-comebacks"}}, {"5m", []string{"--no-comebacks"}},
			{"0", []string{"--all-comebacks"}}, {"5m", []string{"--all-comebacks"}}} {
			if c[i], err = replayStrategies(bin, packs[sc.Name], base.SessionFile, run.ttl, configs, run.extra...); err != nil {
				break
			}
		}
		if err != nil {
			errs[sc.Name] = fmt.Sprint(err)
			continue
		}
		byScenario[sc.Name] = c
	}
	baseRow := map[string]Row{}
	for _, r := range rep.Rows {
		if r.Mode == rep.Modes[0].Name {
			baseRow[r.Scenario] = r
		}
	}
	for i := range rep.Rows {
		r := &rep.Rows[i]
		if r.Mode == rep.Modes[0].Name {
			continue
		}
		chk := &ReplayCheck{Strategy: strategy[r.Mode]}
		r.Replay = chk
		if e, ok := errs[r.Scenario]; ok {
			chk.Err = e
			continue
		}
		c := byScenario[r.Scenario]
		p0, ok0 := c[0][chk.Strategy]
		p5, ok5 := c[1][chk.Strategy]
		n0, okN0 := c[2][chk.Strategy]
		n5, okN5 := c[3][chk.Strategy]
		a0, okA0 := c[4][chk.Strategy]
		a5, okA5 := c[5][chk.Strategy]
		if !ok0 || !ok5 || !okN0 || !okN5 || !okA0 || !okA5 {
			chk.Err = "replay has no strategy " + chk.Strategy
			continue
		}
		chk.PredUSD, chk.PredUSD5m = p0, p5
		chk.PredPct, chk.PredPct5m = pct(p0, c[0]["keep-all"]), pct(p5, c[1]["keep-all"])
		chk.GapPct, chk.GapPct5m = pct(p0, r.CostUSD)-100, pct(p5, r.CostUSD5m)-100
		chk.KeepAllGap = pct(c[0]["keep-all"], baseRow[r.Scenario].CostUSD) - 100
		chk.NoCBUSD, chk.NoCBUSD5m = n0, n5
		chk.AllCBUSD, chk.AllCBUSD5m = a0, a5
		// The model's own prediction is part of the band: it lies between
		// the two ends unless its comebacks change what is archived later.
		chk.BandGapPct, chk.BandGapPct5m = bandGap(r.CostUSD, p0, n0, a0), bandGap(r.CostUSD5m, p5, n5, a5)
		own := runs[r.Scenario][r.Mode].SessionFile
		r0, err0 := replayStrategies(bin, packs[r.Scenario], own, "0", nil, "--recorded", "--no-defaults")
		r5, err5 := replayStrategies(bin, packs[r.Scenario], own, "5m", nil, "--recorded", "--no-defaults")
		if err := firstErr(err0, err5); err != nil {
			chk.Err = "--recorded: " + err.Error()
			continue
		}
		chk.RecordedGap, chk.RecordedGap5m = pct(r0["recorded"], r.CostUSD)-100, pct(r5["recorded"], r.CostUSD5m)-100
	}
	// Totals: predicted and live costs summed over the scenarios.
	for i := range rep.Totals {
		t := &rep.Totals[i]
		if t.Mode == rep.Modes[0].Name {
			continue
		}
		chk := &ReplayCheck{Strategy: strategy[t.Mode]}
		var live, live5, keep float64
		for _, r := range rep.Rows {
			if r.Mode != t.Mode || r.Replay == nil {
				continue
			}
			if r.Replay.Err != "" {
				chk.Err = r.Replay.Err
				break
			}
			chk.PredUSD += r.Replay.PredUSD
			chk.PredUSD5m += r.Replay.PredUSD5m
			chk.NoCBUSD += r.Replay.NoCBUSD
			chk.NoCBUSD5m += r.Replay.NoCBUSD5m
			chk.AllCBUSD += r.Replay.AllCBUSD
			chk.AllCBUSD5m += r.Replay.AllCBUSD5m
			live += r.CostUSD
			live5 += r.CostUSD5m
			keep += r.Replay.PredUSD / r.Replay.PredPct * 100
		}
		if chk.Err == "" && live > 0 {
			chk.PredPct = pct(chk.PredUSD, keep)
			chk.GapPct, chk.GapPct5m = pct(chk.PredUSD, live)-100, pct(chk.PredUSD5m, live5)-100
			chk.BandGapPct, chk.BandGapPct5m = bandGap(live, chk.PredUSD, chk.NoCBUSD, chk.AllCBUSD), bandGap(live5, chk.PredUSD5m, chk.NoCBUSD5m, chk.AllCBUSD5m)
		}
		t.Replay = chk
	}
}

// bandGap is how far live lies outside the band the predictions span
// (from the lowest to the highest), in % of live: 0 inside it, negative
// below it, positive above.
func bandGap(live float64, preds ...float64) float64 {
	if len(preds) == 0 {
		return 0
	}
	lo, hi := slices.Min(preds), slices.Max(preds)
	switch {
	case live <= 0:
		return 0
	case live < lo:
		return pct(lo, live) - 100
	case live > hi:
		return pct(hi, live) - 100
	}
	return 0
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// Table renders the report as text.
func (rep *Report) Table() string {
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "scenario\tmode\treq\tcost %\tcost % 5m\tpeak %\tbreaks\tlost chars\tloads\treloads\tcomebacks (reloaded)\tstranded\treplay %\treplay gap\treplay gap 5m\tband gap\trecorded gap\t")
	// A mode run against a provider whose cache expires is described only
	// by the pricing under that lifetime: its decisions followed that
	// provider's usage, so its cost without a lifetime is not shown.
	world := map[string]bool{}
	for _, m := range rep.Modes {
		world[m.Name] = m.CacheTTL > 0
	}
	row := func(r Row) {
		rp, g0, g5, bg, rg := "", "", "", "", ""
		c0 := fmt.Sprintf("%.1f", r.CostPct)
		if c := r.Replay; c != nil {
			if c.Err != "" {
				rp = "error"
			} else {
				rp = fmt.Sprintf("%.1f", c.PredPct)
				g0 = fmt.Sprintf("%+.1f", c.GapPct)
				g5 = fmt.Sprintf("%+.1f", c.GapPct5m)
				bg = fmt.Sprintf("%+.1f/%+.1f", c.BandGapPct, c.BandGapPct5m)
				if world[r.Mode] {
					bg = fmt.Sprintf("-/%+.1f", c.BandGapPct5m)
				}
				if r.Scenario != "all" {
					rg = fmt.Sprintf("%+.1f/%+.1f", c.RecordedGap, c.RecordedGap5m)
				}
			}
		}
		if world[r.Mode] {
			c0, g0 = "-", "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%.1f\t%.1f\t%d\t%d\t%d\t%d\t%d (%d)\t%d\t%d (%d)\t%s\t%s\t%s\t%s\t%s\t\n", r.Scenario, r.Mode, r.Requests,
			c0, r.CostPct5m, r.PeakPct, r.PrefixBreaks, r.BrokenChars, r.Loads, r.Reloads, r.Comebacks, r.ComebackReloads, r.Stranded, r.OrphanUses, r.OrphanStranded, rp, g0, g5, bg, rg)
	}
	for _, r := range rep.Rows {
		row(r)
	}
	for _, r := range rep.Totals {
		row(r)
	}
	_ = w.Flush()
	fmt.Fprintf(&b, "\nNo extension: ")
	for _, r := range rep.Totals {
		if r.Mode == rep.Modes[0].Name {
			fmt.Fprintf(&b, "%d requests, %.4f USD (%.4f USD with a 5-minute cache lifetime), peaks summed %d characters.\n", r.Requests, r.CostUSD, r.CostUSD5m, r.PeakChars)
		}
	}
	for _, r := range rep.Totals {
		if r.Mode == "defaults" {
			// The 5-minute figure comes from the run against a provider
			// whose cache expires after 5 minutes, when there is one: the
			// bridge learns the lifetime from its usage.
			c5, from := r.CostPct5m, "defaults"
			for _, w := range rep.Totals {
				if w.Mode == DefaultsWorld5m {
					c5, from = w.CostPct5m, DefaultsWorld5m
				}
			}
			fmt.Fprintf(&b, "Targets for defaults: cost %.1f%% (≤ %.0f%%), 5m %.1f%% (≤ %.0f%%, from %s), peak %.1f%% (≤ %.0f%%), stranded %d (0), orphan uses %d, stranded %d (0), notes %d characters.\n",
				r.CostPct, TargetCost, c5, TargetCost5m, from, r.PeakPct, TargetPeak, r.Stranded, r.OrphanUses, r.OrphanStranded, r.NoteChars)
		}
	}
	var problems []string
	for _, r := range rep.Rows {
		for _, p := range r.Problems {
			problems = append(problems, r.Scenario+"/"+r.Mode+": "+p)
		}
		if r.Replay != nil && r.Replay.Err != "" {
			problems = append(problems, r.Scenario+"/"+r.Mode+": replay: "+clip(r.Replay.Err, 300))
		}
	}
	if len(problems) > 0 {
		fmt.Fprintf(&b, "\nProblems:\n  %s\n", strings.Join(problems, "\n  "))
	}
	if len(rep.Foresight) > 0 {
		fmt.Fprintf(&b, "\nForesight bound (archiving with perfect knowledge of which skills the scenario uses again, no reloads; %% of no extension):\n")
		w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(w, "scenario\tover\tcost %\tcost % 5m\tpeak %\tmin peak %\tits cost %\tits cost % 5m\tpeak floor %\t")
		for _, f := range rep.Foresight {
			fmt.Fprintf(w, "%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t\n", f.Scenario, f.Over, f.CostPct, f.CostPct5m, f.PeakPct, f.MinPeakPct, f.MinPeakCostPct, f.MinPeakCost5m, f.FloorPeakPct)
		}
		_ = w.Flush()
		fmt.Fprintf(&b, "Peak floor: every body archived in every turn that does not use its skill, reloads allowed; no policy that keeps a turn's skills until it ends goes lower.\n")
	}
	if rep.ForesightErr != "" {
		fmt.Fprintf(&b, "\nForesight bound: %s\n", rep.ForesightErr)
	}
	fmt.Fprintf(&b, "\nPrefix breaks (what broke the cache):\n")
	for _, r := range rep.Rows {
		for _, br := range r.Breaks {
			fmt.Fprintf(&b, "  %s/%s turn %d request %d: %s, %d characters not reused\n", r.Scenario, r.Mode, br.Turn, br.Request, br.Cause, br.LostChars)
		}
	}
	return b.String()
}
