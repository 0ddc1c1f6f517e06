//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// BinEnv names the environment variable that tells the bridge extension
// where the skill-lifecycle binary is.
const BinEnv = "SKILL_LIFECYCLE_BIN"

var (
	binOnce sync.Once
	binPath string
	binErr  string
	binDir  string // removed by TestMain
)

// SkillLifecycleBin builds ./cmd/skill-lifecycle once per test binary run
// (into a temporary directory) and returns its path.
func SkillLifecycleBin(t testing.TB) string {
	t.Helper()
	root := RepoRoot(t)
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "skill-lifecycle-e2e-bin-")
		if err != nil {
			binErr = err.Error()
			return
		}
		binDir = dir
		out := filepath.Join(dir, "skill-lifecycle")
		cmd := exec.Command("go", "build", "-o", out, "./cmd/skill-lifecycle")
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			binErr = "go build ./cmd/skill-lifecycle: " + err.Error() + "\n" + string(b)
			return
		}
		binPath = out
	})
	if binErr != "" {
		t.Fatal(binErr)
	}
	return binPath
}

// BridgeExtension is the bridge's entry point, loaded with -e.
func BridgeExtension(t testing.TB) string {
	t.Helper()
	p := filepath.Join(RepoRoot(t), "extension", "index.ts")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("bridge extension not found: %v", err)
	}
	return p
}

// UseBridge makes every later run of e load the bridge (-e extension/index.ts)
// with SKILL_LIFECYCLE_BIN pointing at a freshly built binary.
func (e *Env) UseBridge(t testing.TB) {
	t.Helper()
	e.Bridge = BridgeExtension(t)
	e.ExtraEnv = append(e.ExtraEnv, BinEnv+"="+SkillLifecycleBin(t))
}
