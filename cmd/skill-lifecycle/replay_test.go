package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReplayCommand(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "tight.json")
	if err := os.WriteFile(cfg, []byte(`{"minKeep": 0, "topK": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"topK": `), 0o644); err != nil {
		t.Fatal(err)
	}
	prices := filepath.Join(dir, "prices.json")
	if err := os.WriteFile(prices, []byte(`{"default": {"input": 1, "output": 2}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "r.html")
	td := filepath.Join("..", "..", "testdata", "replay")

	var out, errb bytes.Buffer
	code := run([]string{"replay", "--json", "--prices", prices, "--config", "tight=" + cfg, "--html", html, "--all-branches", td}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var rep struct {
		Strategies []struct {
			Name     string  `json:"name"`
			Requests int     `json:"requests"`
			CostPct  float64 `json:"costPct"`
			Sessions int     `json:"sessions"`
		} `json:"strategies"`
		Files int `json:"files"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("--json output: %v\n%s", err, out.String())
	}
	var names []string
	for _, s := range rep.Strategies {
		names = append(names, s.Name)
	}
	if d := cmp.Diff([]string{"keep-all", "defaults", "tight"}, names); d != "" {
		t.Errorf("strategies (-want +got):\n%s", d)
	}
	if rep.Files != 6 || rep.Strategies[0].CostPct != 100 || rep.Strategies[0].Sessions != 7 {
		t.Errorf("report %+v", rep)
	}
	page, err := os.ReadFile(html)
	if err != nil || !bytes.Contains(page, []byte("<svg")) || !bytes.Contains(page, []byte("<polyline")) || bytes.Contains(page, []byte("<script")) {
		t.Errorf("html report: %v, %d bytes", err, len(page))
	}

	out.Reset()
	errb.Reset()
	if code := run([]string{"replay", td}, &out, &errb); code != 0 || !strings.Contains(out.String(), "keep-all") || !strings.Contains(out.String(), "orphan uses") {
		t.Errorf("table: exit %d\n%s%s", code, out.String(), errb.String())
	}

	// A folder holding request logs beside sessions: only the sessions
	// are replayed; the logs are named as skipped, not sessions, which is
	// no error.
	out.Reset()
	errb.Reset()
	sessions := filepath.Join("..", "..", "testdata", "sessions")
	if code := run([]string{"replay", "--json", sessions}, &out, &errb); code != 0 {
		t.Fatalf("sessions folder: exit %d: %s", code, errb.String())
	}
	rep.Files = 0
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Files != 2 {
		t.Errorf("sessions folder: %v, %d files, stderr %q", err, rep.Files, errb.String())
	}
	for _, log := range []string{"pi073-read-skill.requests.jsonl", "pi16-noext-three-turns.requests.jsonl"} {
		if want := "replay: skipped " + filepath.Join(sessions, log) + ": not a session: "; !strings.Contains(errb.String(), want) {
			t.Errorf("sessions folder: stderr does not say %q:\n%s", want, errb.String())
		}
	}
	if !strings.Contains(errb.String(), "2 files replayed, 2 skipped") {
		t.Errorf("sessions folder: no count of the skipped files:\n%s", errb.String())
	}

	usage := []struct {
		name string
		args []string
	}{
		{"no files", []string{"replay"}},
		{"bad config", []string{"replay", "--config", "x=" + bad, td}},
		{"config without name", []string{"replay", "--config", cfg, td}},
		{"duplicate name", []string{"replay", "--config", "defaults=" + cfg, td}},
		{"missing file", []string{"replay", filepath.Join(dir, "nope.jsonl")}},
		{"bad prices", []string{"replay", "--prices", bad, td}},
		{"negative ttl", []string{"replay", "--cache-ttl", "-1s", td}},
		{"empty folder", []string{"replay", t.TempDir()}},
	}
	for _, u := range usage {
		out.Reset()
		errb.Reset()
		if code := run(u.args, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%s: exit %d, stderr %q", u.name, code, errb.String())
		}
	}
}

// --no-comebacks switches replay's comeback model off and --all-comebacks
// brings back every archived skill a prompt asks for: on the bundled
// sessions relevance-only's archives come back with the model and never
// without it, more of them with every comeback, and the cost follows.
func TestReplayNoComebacks(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "ro.json")
	if err := os.WriteFile(cfg, []byte(`{"cacheAware": {"enabled": false}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	type strat struct {
		Name      string  `json:"name"`
		Comebacks int     `json:"comebacks"`
		CostPct   float64 `json:"costPct"`
	}
	// args replays the bundled sessions with relevance-only alone.
	args := func(extra ...string) []string {
		a := append([]string{"replay", "--cache-ttl", "0", "--no-defaults", "--skills", filepath.Join("..", "..", "testdata", "pack"),
			"--config", "ro=" + cfg}, extra...)
		return append(a, filepath.Join("..", "..", "testdata", "live-sessions"))
	}
	replayRO := func(extra ...string) (strat, bool) {
		t.Helper()
		args := args(append([]string{"--json"}, extra...)...)
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, errb.String())
		}
		var rep struct {
			Strategies   []strat `json:"strategies"`
			AllComebacks bool    `json:"allComebacks"`
		}
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Strategies) != 2 {
			t.Fatalf("%v: %v\n%s", extra, err, out.String())
		}
		return rep.Strategies[1], rep.AllComebacks
	}
	on, _ := replayRO()
	off, _ := replayRO("--no-comebacks")
	all, allFlag := replayRO("--all-comebacks")
	if on.Comebacks == 0 || off.Comebacks != 0 || off.CostPct >= on.CostPct {
		t.Errorf("with the comeback model %+v, without %+v: want comebacks only with it, and a lower cost without", on, off)
	}
	// Every comeback is at least the model's (replay.PickComebacks picks
	// among them; TestPickComebacks checks the picking). On these sessions
	// no prompt asks for two archived skills that do the work since the
	// ranking indexes bodies (docs/relevance.md), so the two may be equal.
	if !allFlag || all.Comebacks < on.Comebacks || all.CostPct < on.CostPct {
		t.Errorf("with the comeback model %+v, with every comeback %+v (flag in the report: %v): want at least as many comebacks and as high a cost with every one", on, all, allFlag)
	}
	var out, errb bytes.Buffer
	if code := run(args("--no-comebacks", "--all-comebacks"), &out, &errb); code != 2 || !strings.Contains(errb.String(), "exclude each other") {
		t.Errorf("--no-comebacks with --all-comebacks: exit %d, want 2 and a message:\n%s", code, errb.String())
	}

	// The table says which end of the band it shows.
	for _, tc := range []struct {
		flag, want string
	}{
		{"", "--no-comebacks and --all-comebacks give the ends of the band"},
		{"--no-comebacks", "comeback model off (--no-comebacks)"},
		{"--all-comebacks", "every comeback (--all-comebacks)"},
	} {
		var extra []string
		if tc.flag != "" {
			extra = []string{tc.flag}
		}
		var out, errb bytes.Buffer
		if code := run(args(extra...), &out, &errb); code != 0 || !strings.Contains(out.String(), tc.want) {
			t.Errorf("replay %q: exit %d, want a line with %q:\n%s%s", tc.flag, code, tc.want, out.String(), errb.String())
		}
	}
}

// TestReplayForesight: --foresight adds the three yardsticks. On the
// bundled sessions they cost less than relevance-only, the peak-held one
// keeps each session's largest request within 10% of relevance-only's,
// and a --config that takes one of their names is refused.
func TestReplayForesight(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "ro.json")
	if err := os.WriteFile(cfg, []byte(`{"cacheAware": {"enabled": false}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"replay", "--json", "--cache-ttl", "0", "--foresight", "--skills", filepath.Join("..", "..", "testdata", "pack"),
		"--config", "relevance-only=" + cfg, filepath.Join("..", "..", "testdata", "live-sessions")}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	type strat struct {
		Name    string  `json:"name"`
		CostUSD float64 `json:"costUSD"`
		Peak    int     `json:"peakContextTokens"`
	}
	var rep struct {
		Branches []struct {
			Strategies []strat `json:"strategies"`
		} `json:"branches"`
		Strategies []strat `json:"strategies"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	by := func(ss []strat) map[string]strat {
		m := map[string]strat{}
		for _, s := range ss {
			m[s.Name] = s
		}
		return m
	}
	all := by(rep.Strategies)
	ro := all["relevance-only"]
	for _, name := range []string{"foresight", "foresight-timing", "foresight-timing-peak"} {
		s, ok := all[name]
		if !ok || s.CostUSD >= ro.CostUSD {
			t.Errorf("%s: %+v (present %v); want it cheaper than relevance-only's %.4f USD", name, s, ok, ro.CostUSD)
		}
	}
	// foresight plays by the defaults' rules (the entry skill may go once
	// it has routed), so no session's defaults cost less.
	if f, d := all["foresight"], all["defaults"]; d.CostUSD == 0 || f.CostUSD > d.CostUSD {
		t.Errorf("foresight %.4f USD, defaults %.4f USD: want the yardstick at or below the defaults", f.CostUSD, d.CostUSD)
	}
	if len(rep.Branches) != 4 {
		t.Fatalf("%d branches, want the 4 bundled sessions", len(rep.Branches))
	}
	for i, b := range rep.Branches {
		m := by(b.Strategies)
		if p, r := m["foresight-timing-peak"].Peak, m["relevance-only"].Peak; r == 0 || float64(p) > 1.1*float64(r) {
			t.Errorf("session %d: foresight-timing-peak's largest request %d tokens, relevance-only's %d: want at most 10%% more", i, p, r)
		}
	}
	out.Reset()
	errb.Reset()
	bad := append(append([]string{}, args[:len(args)-1]...), "--config", "foresight-timing-peak="+cfg, args[len(args)-1])
	if code := run(bad, &out, &errb); code != 2 {
		t.Errorf("--config foresight-timing-peak=...: exit %d, want 2:\n%s", code, errb.String())
	}
}
