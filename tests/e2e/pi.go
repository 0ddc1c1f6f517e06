//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// RepoRoot returns the repository root (the directory holding go.mod above
// the test's working directory).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", dir)
		}
	}
}

// PiInstall is one installed Pi release and the Node that runs it.
type PiInstall struct {
	Version string // "1.6.0" or "0.73.1"
	CLI     string // the package's bin entry (a .js file)
	Node    string // the node binary that runs it
	// PathPrefix goes first on PATH for Pi and everything it starts.
	PathPrefix string
	// TrustGated says whether project resources need -a (Pi 1.6 and later).
	TrustGated bool
}

const setupHint = "run scripts/setup-pi.sh (scripts/e2e.sh does) to install Node 22 and the pinned Pi releases"

// Pi16 locates Pi 1.6.0 and Node 22 installed by scripts/setup-pi.sh.
func Pi16(t testing.TB) PiInstall {
	t.Helper()
	root := RepoRoot(t)
	node := filepath.Join(root, ".tools", "node22", "bin", "node")
	cli := binTarget(t, filepath.Join(root, "tests", "e2e", "node_modules", ".bin", "pi"), "Pi 1.6")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("Node 22 not found at %s: %s", node, setupHint)
	}
	p := PiInstall{Version: "1.6.0", CLI: cli, Node: node, PathPrefix: filepath.Dir(node), TrustGated: true}
	checkVersion(t, p)
	return p
}

// piLines are the two Pi lines, for a test that runs on each.
var piLines = []struct {
	name string
	get  func(testing.TB) PiInstall
}{{"pi16", Pi16}, {"pi073", Pi073}}

// Pi073 locates Pi 0.73.1 (tests/e2e/pi073) and the machine's Node 20 (the
// first `node` on PATH that is not .tools/node22; E2E_NODE20 overrides it).
func Pi073(t testing.TB) PiInstall {
	t.Helper()
	root := RepoRoot(t)
	cli := binTarget(t, filepath.Join(root, "tests", "e2e", "pi073", "node_modules", ".bin", "pi"), "Pi 0.73.1")
	node := os.Getenv("E2E_NODE20")
	if node == "" {
		skip := filepath.Join(root, ".tools", "node22", "bin")
		for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
			if dir == "" || filepath.Clean(dir) == skip {
				continue
			}
			if c := filepath.Join(dir, "node"); isExecutable(c) {
				node = c
				break
			}
		}
	}
	if node == "" {
		t.Fatalf("no Node 20 on PATH for Pi 0.73.1 (set E2E_NODE20 to a node binary)")
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "v20.") {
		t.Fatalf("Pi 0.73.1 is tested on the machine's Node 20; %s reports %q (%v); set E2E_NODE20", node, strings.TrimSpace(string(out)), err)
	}
	p := PiInstall{Version: "0.73.1", CLI: cli, Node: node, PathPrefix: filepath.Dir(node)}
	checkVersion(t, p)
	return p
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

func binTarget(t testing.TB, link, what string) string {
	t.Helper()
	target, err := filepath.EvalSymlinks(link)
	if err != nil {
		t.Fatalf("%s not installed (%v): %s", what, err, setupHint)
	}
	return target
}

var versionChecked sync.Map

func checkVersion(t testing.TB, p PiInstall) {
	t.Helper()
	if _, ok := versionChecked.Load(p.CLI); ok {
		return
	}
	cmd := exec.Command(p.Node, p.CLI, "--version")
	cmd.Env = []string{"PATH=" + p.PathPrefix + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PI_OFFLINE=1"}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), p.Version) {
		t.Fatalf("%s --version: %q (%v); want %s: %s", p.CLI, strings.TrimSpace(string(out)), err, p.Version, setupHint)
	}
	versionChecked.Store(p.CLI, true)
}

// Model is a model declared in the test's models.json under provider
// "scripted"; prices are USD per million tokens.
type Model struct {
	ID                                   string
	Reasoning                            bool
	Input, Output, CacheRead, CacheWrite float64
}

// DefaultModel is the model Pi uses unless a test says otherwise; its prices
// are those of the scenario sessions.
var DefaultModel = Model{ID: "scripted-model", Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}

// ProviderName is the provider name of the scripted models in models.json.
const ProviderName = "scripted"

// Env is one isolated Pi installation state: an agent directory, a HOME and
// a project directory, all temporary, wired to a scripted provider.
type Env struct {
	Pi         PiInstall
	Provider   *Provider
	AgentDir   string // PI_CODING_AGENT_DIR
	Home       string // HOME
	ProjectDir string // Pi's working directory
	// ExtraEnv is added to the environment of every run (KEY=VALUE).
	ExtraEnv []string
	// Bridge, when set, is loaded with -e before RunOpts.Extensions (see UseBridge).
	Bridge string
}

// NewEnv prepares an isolated Pi for pi with the given models (DefaultModel
// when none; the first is the default model) served by provider.
func NewEnv(t testing.TB, pi PiInstall, provider *Provider, models ...Model) *Env {
	t.Helper()
	base := t.TempDir()
	e := &Env{
		Pi: pi, Provider: provider,
		AgentDir:   filepath.Join(base, "agent"),
		Home:       filepath.Join(base, "home"),
		ProjectDir: filepath.Join(base, "project"),
	}
	for _, d := range []string{e.AgentDir, e.Home, e.ProjectDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if len(models) == 0 {
		models = []Model{DefaultModel}
	}
	var ms []any
	for _, m := range models {
		ms = append(ms, map[string]any{
			"id": m.ID, "name": m.ID, "reasoning": m.Reasoning, "input": []string{"text"},
			"cost":          map[string]float64{"input": m.Input, "output": m.Output, "cacheRead": m.CacheRead, "cacheWrite": m.CacheWrite},
			"contextWindow": 200000, "maxTokens": 16384,
		})
	}
	writeJSONFile(t, filepath.Join(e.AgentDir, "models.json"), map[string]any{
		"providers": map[string]any{ProviderName: map[string]any{
			"baseUrl": provider.URL, "api": "openai-completions", "apiKey": "scripted-key", "models": ms,
		}},
	})
	writeJSONFile(t, filepath.Join(e.AgentDir, "settings.json"), map[string]any{
		"defaultProvider": ProviderName, "defaultModel": models[0].ID,
		"defaultThinkingLevel": "off", "cacheWarming": "off", "quietStartup": true,
	})
	return e
}

func writeJSONFile(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Skill is a skill a test writes into the project.
type Skill struct {
	Name, Description, Body string
	Files                   map[string]string // extra files, relative to the skill directory
}

// SkillDir is where Pi finds project skills in the Agent Skills layout.
const SkillDir = ".agents/skills"

// AddSkills writes skills under ProjectDir/SkillDir and returns the
// absolute path of each SKILL.md, by name.
func (e *Env) AddSkills(t testing.TB, skills ...Skill) map[string]string {
	t.Helper()
	paths := map[string]string{}
	for _, s := range skills {
		dir := filepath.Join(e.ProjectDir, SkillDir, s.Name)
		content := fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n%s", s.Name, s.Description, s.Body)
		files := map[string]string{"SKILL.md": content}
		for k, v := range s.Files {
			files[k] = v
		}
		for rel, text := range files {
			p := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		paths[s.Name] = filepath.Join(dir, "SKILL.md")
	}
	return paths
}

// CopyPack copies a skill pack directory (one sub-directory per skill) to
// ProjectDir/SkillDir.
func (e *Env) CopyPack(t testing.TB, src string) {
	t.Helper()
	dst := filepath.Join(e.ProjectDir, SkillDir)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy pack %s: %v", src, err)
	}
}

// RunOpts are the options of one `pi -p` run.
type RunOpts struct {
	Prompts    []string // the messages, in order (one run handles them all)
	Approve    bool     // -a: trust project resources (Pi 1.6 only)
	Continue   bool     // --continue the most recent session of ProjectDir
	Extensions []string // -e paths
	Args       []string // more arguments before the prompts
	Env        []string // more environment for this run
	Timeout    time.Duration
}

// Result is what one run produced.
type Result struct {
	Stdout, Stderr string
	ExitCode       int
	Duration       time.Duration
	SessionFile    string // the most recently written session file ("" if none)
	Args           []string
}

// DefaultTimeout bounds one Pi run.
const DefaultTimeout = 90 * time.Second

// Run starts Pi headless in ProjectDir and waits for it. It fails the test if
// Pi cannot be started or times out; a non-zero exit is returned, not fatal.
func (e *Env) Run(t testing.TB, o RunOpts) *Result {
	t.Helper()
	args := []string{e.Pi.CLI, "--offline", "-p"}
	if o.Approve {
		if !e.Pi.TrustGated {
			t.Fatalf("Pi %s has no -a flag", e.Pi.Version)
		}
		args = append(args, "-a")
	}
	if o.Continue {
		args = append(args, "--continue")
	}
	exts := o.Extensions
	if e.Bridge != "" {
		exts = append([]string{e.Bridge}, exts...)
	}
	for _, x := range exts {
		args = append(args, "-e", x)
	}
	args = append(args, o.Args...)
	args = append(args, o.Prompts...)
	timeout := o.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Pi.Node, args...)
	cmd.Dir = e.ProjectDir
	cmd.Env = e.environ(o.Env)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := &Result{Stdout: stdout.String(), Stderr: stderr.String(), Duration: time.Since(start), Args: args[1:]}
	if ctx.Err() != nil {
		t.Fatalf("pi %s timed out after %v\nargs: %q\nstdout:\n%s\nstderr:\n%s", e.Pi.Version, timeout, args[1:], res.Stdout, res.Stderr)
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		t.Fatalf("pi %s: %v", e.Pi.Version, err)
	}
	res.SessionFile = e.LatestSession()
	return res
}

// RunOK is Run that fails the test unless Pi exits with status 0.
func (e *Env) RunOK(t testing.TB, o RunOpts) *Result {
	t.Helper()
	r := e.Run(t, o)
	if r.ExitCode != 0 {
		t.Fatalf("pi %s exited with %d\nargs: %q\nstdout:\n%s\nstderr:\n%s", e.Pi.Version, r.ExitCode, r.Args, r.Stdout, r.Stderr)
	}
	return r
}

func (e *Env) environ(extra []string) []string {
	env := []string{
		"PATH=" + e.Pi.PathPrefix + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + e.Home,
		"PI_CODING_AGENT_DIR=" + e.AgentDir,
		"PI_OFFLINE=1",
		"PI_SKIP_VERSION_CHECK=1",
		"PI_TELEMETRY=0",
		"TERM=dumb",
		"LANG=C.UTF-8",
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	env = append(env, e.ExtraEnv...)
	return append(env, extra...)
}

// Sessions lists the session files under AgentDir, oldest first by
// modification time.
func (e *Env) Sessions() []string {
	type f struct {
		path string
		mod  time.Time
	}
	var files []f
	_ = filepath.WalkDir(filepath.Join(e.AgentDir, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			if st, err := d.Info(); err == nil {
				files = append(files, f{p, st.ModTime()})
			}
		}
		return nil
	})
	sort.SliceStable(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	out := make([]string, len(files))
	for i, x := range files {
		out[i] = x.path
	}
	return out
}

// LatestSession returns the most recently written session file, or "".
func (e *Env) LatestSession() string {
	s := e.Sessions()
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}
