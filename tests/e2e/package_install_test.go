//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPackagedInstall (issue 29, item 2): what a user gets from
// `pi install npm:skill-lifecycle`. scripts/package.sh builds the six
// tarballs (the Pi package and one binary package per platform), they are
// published to a real npm registry on 127.0.0.1 (verdaccio), and Pi installs
// the package from it in an isolated HOME and agent folder, as a user would
// (the registry named in ~/.npmrc). Then one real prompt with a skill load:
// the bridge is loaded from the installed package (no -e), offers the skill
// tool, serves the body, and the sidecar that answered is the binary of the
// platform package under Pi's install folder, not SKILL_LIFECYCLE_BIN nor
// skill-lifecycle on PATH (both set to decoys that leave a mark when run).
// Pi 1.6 installs into <agentDir>/npm; Pi 0.73 runs `npm install -g`, here
// into the npm prefix the user's .npmrc names.
func TestPackagedInstall(t *testing.T) {
	t.Parallel()
	root := RepoRoot(t)
	pi16, pi073 := Pi16(t), Pi073(t)

	start := time.Now()
	out := t.TempDir()
	build := exec.Command("bash", filepath.Join(root, "scripts", "package.sh"), "--out", out)
	build.Dir = root
	b, err := build.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("scripts/package.sh: %v\n%s%s", err, b, stderr)
	}
	tarballs := strings.Fields(string(b))
	if len(tarballs) != 6 {
		t.Fatalf("scripts/package.sh printed %q, want six tarballs", tarballs)
	}
	t.Logf("scripts/package.sh (5 platforms): %v", time.Since(start).Round(100*time.Millisecond))

	start = time.Now()
	reg := StartRegistry(t)
	t.Logf("verdaccio up on %s: %v", reg.Host, time.Since(start).Round(100*time.Millisecond))
	start = time.Now()
	// The platform packages first, the Pi package that depends on them last.
	version := packageVersion(t, filepath.Join(root, "extension", "package.json"))
	main := slices.IndexFunc(tarballs, func(p string) bool { return filepath.Base(p) == "skill-lifecycle-"+version+".tgz" })
	if main < 0 {
		t.Fatalf("scripts/package.sh made no skill-lifecycle-%s.tgz: %q", version, tarballs)
	}
	reg.Publish(t, slices.Delete(slices.Clone(tarballs), main, main+1)...)
	reg.Publish(t, tarballs[main])
	t.Logf("published %d tarballs: %v", len(tarballs), time.Since(start).Round(100*time.Millisecond))

	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse HEAD: %v", err)
	}
	want := packagedRun{version: version, commit: strings.TrimSpace(string(head)), reg: reg}
	t.Run("pi16", func(t *testing.T) { t.Parallel(); scenarioPackagedInstall(t, pi16, want) })
	t.Run("pi073", func(t *testing.T) { t.Parallel(); scenarioPackagedInstall(t, pi073, want) })
}

type packagedRun struct {
	version, commit string
	reg             *Registry
}

func packageVersion(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Version string }
	if err := json.Unmarshal(b, &m); err != nil || m.Version == "" {
		t.Fatalf("%s: no version (%v)", path, err)
	}
	return m.Version
}

// nodePlatform is the platform package's suffix for this machine, as
// Node's process.platform and process.arch name it.
func nodePlatform() string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	return runtime.GOOS + "-" + arch
}

func scenarioPackagedInstall(t *testing.T, pi PiInstall, want packagedRun) {
	var sidecars []string // the executables of the sidecar processes seen during the load
	var agentDir string
	script := func(r *Request) Reply {
		switch {
		case r.UserTurn == 1 && r.Step == 0:
			return load("tide-tables")
		case r.UserTurn == 1 && r.Step == 1:
			// The sidecar just answered skill/load and lives until Pi's
			// session ends.
			sidecars = sidecarProcesses(t, agentDir)
		}
		return Say("Tide loaded.")
	}
	prov := NewProvider(t, script)
	env := NewEnv(t, pi, prov)
	agentDir = env.AgentDir
	env.AddSkills(t, testSkills...)
	prefix := filepath.Join(env.Home, "npm-global") // 0.73's `npm install -g` goes there
	if err := os.WriteFile(filepath.Join(env.Home, ".npmrc"), []byte(want.reg.NPMRC("prefix="+prefix)), 0o600); err != nil {
		t.Fatal(err)
	}
	// Decoys: SKILL_LIFECYCLE_BIN and skill-lifecycle on PATH, each leaving
	// a mark if it is ever run.
	decoys := t.TempDir()
	marks := filepath.Join(decoys, "marks")
	decoy := "#!/bin/sh\necho \"$0 $*\" >> " + marks + "\nexit 1\n"
	for _, p := range []string{filepath.Join(decoys, "env", "skill-lifecycle"), filepath.Join(decoys, "path", "skill-lifecycle")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(decoy), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runEnv := []string{
		BinEnv + "=" + filepath.Join(decoys, "env", "skill-lifecycle"),
		"PATH=" + filepath.Join(decoys, "path") + string(os.PathListSeparator) + pi.PathPrefix + string(os.PathListSeparator) + os.Getenv("PATH"),
		slowMachineTimeout,
	}

	start := time.Now()
	install := env.piCommand(t, runEnv, "install", "npm:skill-lifecycle")
	t.Logf("pi %s install npm:skill-lifecycle: %v\n%s", pi.Version, time.Since(start).Round(100*time.Millisecond), install)

	// Where each Pi line puts it.
	pkgRoot := filepath.Join(env.AgentDir, "npm", "node_modules", "skill-lifecycle")
	platformDir := filepath.Join(env.AgentDir, "npm", "node_modules", "@skill-lifecycle")
	if !pi.TrustGated {
		pkgRoot = filepath.Join(prefix, "lib", "node_modules", "skill-lifecycle")
		platformDir = filepath.Join(pkgRoot, "node_modules", "@skill-lifecycle")
	}
	if _, err := os.Stat(filepath.Join(pkgRoot, "index.ts")); err != nil {
		t.Fatalf("the bridge is not where Pi %s installs npm packages: %v", pi.Version, err)
	}
	if got := packageVersion(t, filepath.Join(pkgRoot, "package.json")); got != want.version {
		t.Errorf("installed skill-lifecycle %s, want %s", got, want.version)
	}
	for _, f := range []string{"CHANGELOG.md", "README.md", "LICENSE"} {
		if _, err := os.Stat(filepath.Join(pkgRoot, f)); err != nil {
			t.Errorf("the installed package lacks %s", f)
		}
	}
	entries, _ := os.ReadDir(platformDir)
	var platforms []string
	for _, e := range entries {
		platforms = append(platforms, e.Name())
	}
	if len(platforms) != 1 || platforms[0] != nodePlatform() {
		t.Errorf("platform packages installed in %s: %v, want only %s", platformDir, platforms, nodePlatform())
	}
	bin := filepath.Join(platformDir, nodePlatform(), "bin", "skill-lifecycle")
	if !isExecutable(bin) {
		t.Fatalf("%s is not an executable file", bin)
	}
	if list := env.piCommand(t, runEnv, "list"); !strings.Contains(list, "npm:skill-lifecycle") {
		t.Errorf("pi list does not show npm:skill-lifecycle:\n%s", list)
	}

	res := env.RunOK(t, RunOpts{Approve: pi.TrustGated, Env: runEnv, Prompts: []string{"When is high tide tomorrow?"}})
	t.Logf("pi %s prompt with the installed package: %v", pi.Version, res.Duration.Round(100*time.Millisecond))
	reqs := prov.Requests()
	if len(reqs) != 2 {
		t.Fatalf("provider got %d requests, want 2\nstderr:\n%s", len(reqs), res.Stderr)
	}
	if !contains(reqs[0].ToolNames(), "skill") || !strings.Contains(reqs[0].SystemPrompt(), protocolLine) {
		t.Errorf("the installed bridge did not offer the skill tool and its listing\nstderr:\n%s", res.Stderr)
	}
	if r := reqs[1].LastToolResults(); len(r) != 1 || !strings.Contains(r[0].Text(), "TIDE-BODY-41c7") {
		var texts []string
		for _, m := range r {
			texts = append(texts, m.Text())
		}
		t.Errorf("the skill tool did not serve the body: %q\nstderr:\n%s", texts, res.Stderr)
	}
	binReal, _ := filepath.EvalSymlinks(bin)
	if len(sidecars) != 1 || sidecars[0] != binReal {
		t.Errorf("sidecar processes during the load: %q, want one running %s", sidecars, binReal)
	}
	if b, err := os.ReadFile(marks); err == nil {
		t.Errorf("a decoy ran instead of the packaged binary:\n%s", b)
	}
	if strings.Contains(res.Stderr, "skill-lifecycle:") {
		t.Errorf("the bridge warned:\n%s", res.Stderr)
	}
	// The binary is the one package.sh built from this commit.
	v, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	if w := "skill-lifecycle v" + want.version + " (commit " + want.commit; !strings.HasPrefix(string(v), w) {
		t.Errorf("%s --version = %q, want it to start with %q", bin, v, w)
	}
}

// piCommand runs `pi ARGS` (a package command) in the environment of e's
// runs plus extra, fails the test unless it exits 0, and returns its output.
func (e *Env) piCommand(t *testing.T, extra []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(e.Pi.Node, append([]string{e.Pi.CLI}, args...)...)
	cmd.Dir = e.ProjectDir
	cmd.Env = e.environ(extra)
	cmd.WaitDelay = 5 * time.Second
	done := make(chan struct{})
	timer := time.AfterFunc(3*time.Minute, func() { _ = cmd.Process.Kill(); close(done) })
	out, err := cmd.CombinedOutput()
	if !timer.Stop() {
		<-done
		t.Fatalf("pi %s %s: no end after 3 minutes\n%s", e.Pi.Version, strings.Join(args, " "), out)
	}
	if err != nil {
		t.Fatalf("pi %s %s: %v\n%s", e.Pi.Version, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// sidecarProcesses lists, from /proc, the executables of the running
// processes whose command line is `<bin> serve` for a bin named
// skill-lifecycle, started by a Pi of agentDir (the sidecar inherits Pi's
// environment).
func sidecarProcesses(t *testing.T, agentDir string) []string {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Errorf("read /proc: %v", err)
		return nil
	}
	var out []string
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if len(args) != 2 || args[1] != "serve" || filepath.Base(args[0]) != "skill-lifecycle" {
			continue
		}
		environ, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil || !slices.Contains(strings.Split(string(environ), "\x00"), "PI_CODING_AGENT_DIR="+agentDir) {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", d.Name(), "exe"))
		if err != nil {
			continue
		}
		out = append(out, exe)
	}
	return out
}
