//go:build e2e

package live

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/tests/e2e"
)

var (
	flagFull  = flag.Bool("live.full", false, "run every scenario (default: the short one)")
	flagJSON  = flag.Bool("live.json", false, "write the report as JSON instead of a table")
	flagOut   = flag.String("live.out", "", "write the report to this file (default: the test log)")
	flagKeep  = flag.String("live.keep", "", "keep sessions and request logs in this folder")
	flagModes = flag.String("live.modes", "", "comma-separated modes to run (default: all)")
	flagOnly  = flag.String("live.scenario", "", "run only this scenario")
	flagFrom  = flag.String("live.from", "", "do not run Pi: rebuild the report from runs kept in this folder by -live.keep")
	flagConfs configFlags
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binDir  string
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// bin builds cmd/skill-lifecycle from the working tree once.
func bin(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "live-bench-bin-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "skill-lifecycle")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/skill-lifecycle")
		cmd.Dir = e2e.RepoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = err
			t.Logf("%s", out)
		}
	})
	if binErr != nil {
		t.Fatalf("go build ./cmd/skill-lifecycle: %v", binErr)
	}
	return binPath
}

// TestLiveBench runs the short scenario (or every scenario with
// -live.full) in every mode through real Pi 1.6, prices the runs, checks
// replay against them, and writes the report (-live.out, -live.json). It
// fails when the harness misbehaves (a turn not completed, a request the
// script did not expect, pricing that disagrees with the provider's usage,
// a bridge run that loaded a skill with read) or when a skill the agent
// came back to was left archived without a way to load it again.
func TestLiveBench(t *testing.T) {
	root := e2e.RepoRoot(t)
	scenarios := []Scenario{Short()}
	if *flagFull {
		scenarios = Scenarios()
	}
	if *flagOnly != "" {
		var keep []Scenario
		for _, sc := range Scenarios() {
			if sc.Name == *flagOnly {
				keep = append(keep, sc)
			}
		}
		if len(keep) == 0 {
			t.Fatalf("-live.scenario %q: no such scenario", *flagOnly)
		}
		scenarios = keep
	}
	modes := append(Modes(), flagConfs...)
	if *flagModes != "" {
		want := map[string]bool{}
		for _, m := range strings.Split(*flagModes, ",") {
			want[strings.TrimSpace(m)] = true
		}
		var keep []Mode
		for i, m := range append(modes, OptionalModes()...) {
			if i == 0 || want[m.Name] {
				keep = append(keep, m)
			}
		}
		modes = keep
	}
	out := *flagKeep
	if out == "" {
		out = t.TempDir()
	}
	o := Options{Bin: bin(t), Root: root, OutDir: out}
	var mu sync.Mutex
	runs := map[string]map[string]*Run{}
	if *flagFrom != "" {
		for _, sc := range scenarios {
			runs[sc.Name] = map[string]*Run{}
			for _, m := range modes {
				run, err := LoadRun(*flagFrom, sc.Name, m.Name)
				if err != nil {
					t.Fatal(err)
				}
				runs[sc.Name][m.Name] = run
			}
		}
	}
	t.Run("run", func(t *testing.T) {
		if *flagFrom != "" {
			return
		}
		for _, sc := range scenarios {
			for _, m := range modes {
				t.Run(sc.Name+"/"+m.Name, func(t *testing.T) {
					t.Parallel()
					run := RunScenario(t, sc, m, o)
					mu.Lock()
					if runs[sc.Name] == nil {
						runs[sc.Name] = map[string]*Run{}
					}
					runs[sc.Name][m.Name] = run
					mu.Unlock()
				})
			}
		}
	})
	if t.Failed() {
		return
	}
	rep := BuildReport(scenarios, modes, runs)
	packs := map[string]string{}
	for _, sc := range scenarios {
		packs[sc.Name] = sc.PackDirs(root)[0]
	}
	rep.AddReplay(o.Bin, packs, runs)
	var text []byte
	if *flagJSON {
		var err error
		if text, err = json.MarshalIndent(rep, "", "  "); err != nil {
			t.Fatal(err)
		}
		text = append(text, '\n')
	} else {
		text = []byte(rep.Table())
	}
	if *flagOut != "" {
		if err := os.WriteFile(*flagOut, text, 0o644); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Logf("\n%s", text)
	}
	checkRuns(t, scenarios, rep, runs)
}

// checkRuns asserts what must hold whatever the engine decides.
func checkRuns(t *testing.T, scenarios []Scenario, rep *Report, runs map[string]map[string]*Run) {
	t.Helper()
	byName := map[string]Scenario{}
	for _, sc := range scenarios {
		byName[sc.Name] = sc
	}
	for _, r := range rep.Rows {
		sc := byName[r.Scenario]
		id := r.Scenario + "/" + r.Mode
		if r.UsageMismatches != 0 {
			t.Errorf("%s: pricing disagrees with the provider's usage on %d requests", id, r.UsageMismatches)
		}
		for _, p := range r.Problems {
			t.Errorf("%s: %s", id, p)
		}
		if r.Stranded != 0 {
			t.Errorf("%s: %d comebacks found a skill archived with no way to load it again", id, r.Stranded)
		}
		bridge := r.Mode != NoExtension
		lo, hi := sc.MinRequests(), sc.MaxRequests()
		if !bridge {
			hi = lo
		}
		if r.Requests < lo || r.Requests > hi {
			t.Errorf("%s: %d requests, want %d to %d", id, r.Requests, lo, hi)
		}
		if !bridge && r.ComebackReloads != 0 {
			t.Errorf("%s: %d comebacks reloaded without any extension", id, r.ComebackReloads)
		}
		for _, e := range runs[r.Scenario][r.Mode].Events {
			if (e.Kind == "load" || e.Kind == "reload") && (e.Via == "skill") != bridge {
				t.Errorf("%s: turn %d loaded %s with %s", id, e.Turn, e.Skill, e.Via)
			}
		}
		if r.Replay != nil && r.Replay.Err != "" {
			t.Errorf("%s: replay: %s", id, r.Replay.Err)
		}
	}
}
