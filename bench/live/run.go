//go:build e2e

package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/tests/e2e"
)

// Mode is one way of running Pi: without extension, or with the bridge and
// a skill-lifecycle.json (Config, "" for none: the defaults).
type Mode struct {
	Name   string `json:"name"`
	Bridge bool   `json:"bridge"`
	Config string `json:"config,omitempty"`
	// CacheTTL, when set, is the scripted provider's cache lifetime on the
	// virtual timeline: a request more than CacheTTL after the previous
	// one is reported with no cached tokens, so the bridge sees the usage
	// of a provider with that lifetime. 0: the cache never expires. Only
	// the pricing under the same lifetime describes such a run.
	CacheTTL time.Duration `json:"cacheTTL,omitempty"`
}

// Strategy is the name of the replay strategy that predicts the mode: the
// mode's own name for a named configuration, else "defaults".
func (m Mode) Strategy() string {
	if m.Config == "" {
		return "defaults"
	}
	return m.Name
}

// DefaultsWorld5m is the mode of the bridge's defaults against a provider
// whose cache expires after CacheTTL: the run that the 5-minute column of
// the defaults comes from.
const DefaultsWorld5m = "defaults-5m"

// NoExtension is the baseline mode.
const NoExtension = "none"

// Modes returns the modes every scenario runs in; the first is the
// baseline.
func Modes() []Mode {
	return []Mode{
		{Name: NoExtension},
		{Name: "defaults", Bridge: true},
		{Name: DefaultsWorld5m, Bridge: true, CacheTTL: CacheTTL},
		{Name: "relevance-only", Bridge: true, Config: `{"cacheAware": {"enabled": false}}`},
		{Name: "cache-aware", Bridge: true, Config: `{"cacheAware": {"enabled": true}}`},
	}
}

// OptionalModes are modes that run only when -live.modes names them: the
// other ways of applying an archival than the default's Pi 1.6 context
// edits (archiveVia, docs/pi-host.md "Context edits"), each without and
// with a provider cache lifetime.
func OptionalModes() []Mode {
	const hook, only = `{"archiveVia": "hook"}`, `{"archiveVia": "context_edit_only"}`
	return []Mode{
		{Name: "hook", Bridge: true, Config: hook},
		{Name: "hook-5m", Bridge: true, Config: hook, CacheTTL: CacheTTL},
		{Name: "context-edit-only", Bridge: true, Config: only},
		{Name: "context-edit-only-5m", Bridge: true, Config: only, CacheTTL: CacheTTL},
	}
}

// VirtualStart is the virtual time of every scenario's first prompt.
var VirtualStart = time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)

// Req is one captured request.
type Req struct {
	*e2e.Request `json:"-"`
	Turn         int       `json:"turn"` // 1-based
	VTime        time.Time `json:"vtime"`
	Chars        int       `json:"chars"` // code points of the usage string
}

// Run is one scenario run in one mode.
type Run struct {
	Scenario    string        `json:"scenario"`
	Mode        Mode          `json:"mode"`
	Requests    []Req         `json:"-"`
	Events      []Event       `json:"events"`
	SessionFile string        `json:"sessionFile"` // kept copy of Pi's session
	Wall        time.Duration `json:"wallNs"`
}

// Options of RunScenario.
type Options struct {
	Bin    string // skill-lifecycle binary for the bridge
	Root   string // the repository root (Scenario.Packs are under it)
	OutDir string // where sessions and request logs are kept
}

// RunScenario runs sc through real Pi 1.6 in mode m: one `pi --offline -p`
// per user turn (`--continue` after the first), the clock of each process
// shifted to the turn's virtual time.
func RunScenario(t testing.TB, sc Scenario, m Mode, o Options) *Run {
	t.Helper()
	if err := sc.Check(); err != nil {
		t.Fatal(err)
	}
	packs := sc.PackDirs(o.Root)
	for _, p := range packs {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("scenario %s needs the skill pack %s (the shared corpora are read beside the repository): %v", sc.Name, p, err)
		}
	}
	ag, err := newAgent(packs[0], sc.Turns)
	if err != nil {
		t.Fatal(err)
	}
	prov := e2e.NewProvider(t, ag.script)
	if m.CacheTTL > 0 {
		prov.ExpireCache(m.CacheTTL, func(at time.Time) time.Time { return at.Add(ag.currentOffset()) })
	}
	env := e2e.NewEnv(t, e2e.Pi16(t), prov)
	for _, p := range packs {
		env.CopyPack(t, p)
	}
	setupProject(t, env, sc)
	if m.Bridge {
		env.Bridge = e2e.BridgeExtension(t)
		env.ExtraEnv = append(env.ExtraEnv, e2e.BinEnv+"="+o.Bin)
		if m.Config != "" {
			if err := os.WriteFile(filepath.Join(env.AgentDir, "skill-lifecycle.json"), []byte(m.Config), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	clock := filepath.Join(e2e.RepoRoot(t), "bench", "live", "clock.cjs")
	start := time.Now()
	virt := VirtualStart
	for i, turn := range sc.Turns {
		if i > 0 {
			virt = virt.Add(turn.Think)
		}
		offset := time.Until(virt)
		ag.startTurn(i, offset)
		env.RunOK(t, e2e.RunOpts{
			Prompts: []string{turn.Prompt}, Approve: true, Continue: i > 0, Timeout: 3 * time.Minute,
			Env: []string{"NODE_OPTIONS=--require " + clock, "LIVE_BENCH_CLOCK_OFFSET_MS=" + strconv.FormatInt(offset.Milliseconds(), 10)},
		})
		if err := ag.endTurn(); err != nil {
			t.Fatalf("%s/%s: %v\nprovider log: %s", sc.Name, m.Name, err, prov.LogPath())
		}
		virt = time.Now().Add(offset)
	}
	run := &Run{Scenario: sc.Name, Mode: m, Wall: time.Since(start)}
	ag.mu.Lock()
	run.Events = append([]Event(nil), ag.events...)
	for _, r := range prov.Requests() {
		off, ok := ag.reqOffset[r.Index]
		if !ok {
			t.Fatalf("%s/%s: request %d arrived outside a turn", sc.Name, m.Name, r.Index)
		}
		run.Requests = append(run.Requests, Req{Request: r, Turn: ag.reqTurn[r.Index] + 1, VTime: r.Time.Add(off).UTC(), Chars: len([]rune(r.S))})
	}
	ag.mu.Unlock()
	if o.OutDir != "" {
		run.SessionFile = keep(t, o.OutDir, sc.Name, m.Name, env, run)
	} else {
		run.SessionFile = env.LatestSession()
	}
	return run
}

// setupProject writes the scenario's files and commits them with fixed
// author and dates, so that every mode sees the same hashes.
func setupProject(t testing.TB, env *e2e.Env, sc Scenario) {
	t.Helper()
	project := sc.Project
	if project == nil {
		project = serviceFiles
	}
	files := project()
	for k, v := range sc.Files {
		files[k] = v
	}
	files[".gitignore"] = ".agents/\n.pi/\n"
	for rel, text := range files {
		p := filepath.Join(env.ProjectDir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitEnv := []string{"GIT_AUTHOR_NAME=Bench", "GIT_AUTHOR_EMAIL=bench@example.com", "GIT_COMMITTER_NAME=Bench",
		"GIT_COMMITTER_EMAIL=bench@example.com", "GIT_AUTHOR_DATE=2026-11-28T12:00:00Z", "GIT_COMMITTER_DATE=2026-11-28T12:00:00Z"}
	env.ExtraEnv = append(env.ExtraEnv, gitEnv...)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "shopd v1.7.2"}, {"tag", "v1.7.2"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = env.ProjectDir
		cmd.Env = append(os.Environ(), gitEnv...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// keep copies the session and writes the request log (with virtual times)
// under outDir/scenario/; it returns the session copy's path.
func keep(t testing.TB, outDir, scenario, mode string, env *e2e.Env, run *Run) string {
	t.Helper()
	dir := filepath.Join(outDir, scenario)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := env.LatestSession()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatalf("session of %s/%s: %v", scenario, mode, err)
	}
	sess := filepath.Join(dir, mode+".session.jsonl")
	if err := os.WriteFile(sess, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, mode+".requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, r := range run.Requests {
		line, _ := json.Marshal(map[string]any{"index": r.Index, "turn": r.Turn, "vtime": r.VTime.Format(time.RFC3339Nano),
			"time": r.Time.UTC().Format(time.RFC3339Nano), "chars": r.Chars, "usage": r.Usage, "body": json.RawMessage(r.Body)})
		if _, err := fmt.Fprintf(f, "%s\n", line); err != nil {
			t.Fatal(err)
		}
	}
	ev, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, mode+".run.json"), ev, 0o644); err != nil {
		t.Fatal(err)
	}
	return sess
}

// LoadRun reads a run kept by an earlier benchmark (-live.keep) back from
// dir/scenario/mode.{run.json,requests.jsonl,session.jsonl}.
func LoadRun(dir, scenario, mode string) (*Run, error) {
	base := filepath.Join(dir, scenario, mode)
	b, err := os.ReadFile(base + ".run.json")
	if err != nil {
		return nil, err
	}
	run := &Run{}
	if err := json.Unmarshal(b, run); err != nil {
		return nil, fmt.Errorf("%s.run.json: %v", base, err)
	}
	run.SessionFile = base + ".session.jsonl"
	lines, err := os.ReadFile(base + ".requests.jsonl")
	if err != nil {
		return nil, err
	}
	for n, line := range bytes.Split(lines, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var l struct {
			Index int             `json:"index"`
			Turn  int             `json:"turn"`
			VTime time.Time       `json:"vtime"`
			Time  time.Time       `json:"time"`
			Usage e2e.Usage       `json:"usage"`
			Body  json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return nil, fmt.Errorf("%s.requests.jsonl line %d: %v", base, n+1, err)
		}
		r := &e2e.Request{Index: l.Index, Time: l.Time, Body: l.Body, Usage: l.Usage}
		var wire struct {
			Model    string            `json:"model"`
			Messages []e2e.Message     `json:"messages"`
			Tools    []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(l.Body, &wire); err != nil {
			return nil, fmt.Errorf("%s.requests.jsonl line %d: body: %v", base, n+1, err)
		}
		r.Model, r.Messages, r.Tools = wire.Model, wire.Messages, wire.Tools
		if r.S, err = e2e.UsageString(l.Body); err != nil {
			return nil, fmt.Errorf("%s.requests.jsonl line %d: %v", base, n+1, err)
		}
		run.Requests = append(run.Requests, Req{Request: r, Turn: l.Turn, VTime: l.VTime, Chars: len([]rune(r.S))})
	}
	return run, nil
}
