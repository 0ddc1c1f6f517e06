package hostile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
)

// binPath is the skill-lifecycle binary built once for the package.
var binPath string

// repoRoot is the repository's root folder (two levels up from here).
var repoRoot string

func TestMain(m *testing.M) {
	root, bin, cleanup, err := testio.BuildCLI("hostile")
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
	repoRoot, binPath = root, bin
	// The sidecar's start-up cache goes to a folder of the run's, not the
	// user's cache folder.
	cache, err := os.MkdirTemp("", "hostile-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	cleanup()
	os.Exit(code)
}

const mib = 1 << 20

// write creates a file (and its folders) with the given content.
func write(t testing.TB, path string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// skillMD renders a SKILL.md with a name, a description and a body.
func skillMD(name, desc, body string) []byte {
	return []byte(fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n%s\n", name, desc, body))
}

// writeSkill writes <pack>/<name>/SKILL.md and returns its path.
func writeSkill(t testing.TB, pack, name, desc, body string) string {
	t.Helper()
	return write(t, filepath.Join(pack, name, "SKILL.md"), skillMD(name, desc, body))
}

// symlink makes a symbolic link or fails the test.
func symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// runCLI runs the built binary and returns its exit code and output.
func runCLI(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String(), errb.String()
		}
		t.Fatalf("running %v: %v", args, err)
	}
	return 0, out.String(), errb.String()
}
