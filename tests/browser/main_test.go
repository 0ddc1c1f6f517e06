//go:build browser

package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
)

// binPath is the skill-lifecycle binary built once for the package;
// repoRoot the repository's root.
var binPath, repoRoot string

func TestMain(m *testing.M) {
	root, bin, cleanup, err := testio.BuildCLI("browser")
	if err != nil {
		fmt.Fprintln(os.Stderr, "browser:", err)
		os.Exit(1)
	}
	repoRoot, binPath = root, bin
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// chromium is the browser to run: $CHROMIUM, else Debian's
// /usr/bin/chromium. The test fails, saying how to get it, when it is
// missing.
func chromium(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("CHROMIUM")
	if bin == "" {
		bin = "/usr/bin/chromium"
	}
	st, err := os.Stat(bin)
	if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		t.Fatalf("Chromium not found at %s (%v): install Debian's package (apt-get update && apt-get install -y chromium; scripts/test.sh does it when /usr/bin/chromium is missing) or set CHROMIUM to a Chromium binary", bin, err)
	}
	return bin
}

// runChromium runs headless Chromium on url with extra flags (--dump-dom,
// --screenshot=…) and returns its standard output. The flags keep it off
// the network and out of the user's profile: a new profile folder each
// time, no sandbox (the tests may run as root), no GPU.
func runChromium(t *testing.T, url string, extra ...string) []byte {
	t.Helper()
	bin := chromium(t)
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--hide-scrollbars", "--force-device-scale-factor=1"}
	args = append(append(args, extra...), url)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, clip(stderr.String(), 4000))
	}
	return out
}

// runCLI runs the built binary; it fails the test unless it exits 0.
func runCLI(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Dir = repoRoot
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("skill-lifecycle %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
