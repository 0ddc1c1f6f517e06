//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBridgeWithoutDependency (issue 29, item 3): a copy of the bridge whose
// own dependency (vscode-jsonrpc) was never installed — a local install
// without `npm ci`. Pi used to stop before the first prompt ("Failed to load
// extension … Cannot find module 'vscode-jsonrpc/node'", exit 1); now the
// bridge loads, fails open (Pi's own listing, reads of SKILL.md served, no
// skill tool) and the user is told once, naming the dependency and the fix.
func TestBridgeWithoutDependency(t *testing.T) {
	t.Parallel()
	scenarioWithoutDependency(t, Pi16(t))
}

func TestBridgeWithoutDependencyPi073(t *testing.T) {
	t.Parallel()
	scenarioWithoutDependency(t, Pi073(t))
}

func scenarioWithoutDependency(t *testing.T, pi PiInstall) {
	env, prov, paths := bridgeEnv(t, pi, readSkillScript("tide-tables"), "")
	// The bridge's files alone (its manifest and the modules it lists), in
	// a folder with no node_modules in it or above it.
	dir := filepath.Join(t.TempDir(), "skill-lifecycle")
	src := filepath.Dir(BridgeExtension(t))
	for _, f := range append(bridgeModules(t), "package.json") {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for d := dir; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "node_modules", "vscode-jsonrpc")); err == nil {
			t.Fatalf("vscode-jsonrpc is installed in %s, above the copy of the bridge: the test needs a folder without it", d)
		}
	}
	env.Bridge = filepath.Join(dir, "index.ts")
	res := env.Run(t, RunOpts{Approve: pi.TrustGated, Prompts: []string{"When is high tide tomorrow?", "And the day after?"}})
	if res.ExitCode != 0 {
		t.Fatalf("pi %s exited with %d: it did not run with a bridge missing its dependency\nstdout:\n%s\nstderr:\n%s", pi.Version, res.ExitCode, res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "The skill is loaded.") {
		t.Errorf("stdout %q lacks the scripted answer", res.Stdout)
	}
	reqs := prov.Requests()
	if len(reqs) < 3 {
		t.Fatalf("provider got %d requests, want 3 (two prompts, one read)", len(reqs))
	}
	if strings.Contains(reqs[0].SystemPrompt(), protocolLine) || !strings.Contains(reqs[0].SystemPrompt(), "Use the read tool to load a skill's file") {
		t.Errorf("the prompt does not hold Pi's own skills listing alone")
	}
	if contains(reqs[0].ToolNames(), "skill") {
		t.Errorf("the skill tool is declared without its dependency")
	}
	if r := reqs[1].LastToolResults(); len(r) != 1 || !strings.Contains(r[0].Text(), "TIDE-BODY-41c7") {
		t.Errorf("reading %s was not served: %+v", paths["tide-tables"], r)
	}
	want := "skill-lifecycle: its dependency vscode-jsonrpc could not be loaded (Cannot find module 'vscode-jsonrpc/node'); run `npm ci` in " + dir
	if n := strings.Count(res.Stderr, "skill-lifecycle:"); n != 1 || !strings.Contains(res.Stderr, want) || !strings.Contains(res.Stderr, "running without it") {
		t.Errorf("the user was told %d times (want once, %q); stderr:\n%s", n, want, res.Stderr)
	}
}

// bridgeModules are the TypeScript files of the bridge's package, as the
// "files" of extension/package.json list them.
func bridgeModules(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(BridgeExtension(t)), "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Files []string }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("extension/package.json: %v", err)
	}
	var ts []string
	for _, f := range m.Files {
		if strings.HasSuffix(f, ".ts") {
			ts = append(ts, f)
		}
	}
	if !slices.Contains(ts, "index.ts") {
		t.Fatalf("extension/package.json: files %q lack index.ts", m.Files)
	}
	return ts
}
