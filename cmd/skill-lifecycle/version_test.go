package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// TestVersionFlag: --version, -version and the version subcommand print one
// line on stdout, exit 0, and say the stamped version and commit.
func TestVersionFlag(t *testing.T) {
	defer func(v, c, m string) { version, commit, modified = v, c, m }(version, commit, modified)
	version, commit, modified = "v1.2.3", "0123456789abcdef0123456789abcdef01234567", "true"
	want := fmt.Sprintf("skill-lifecycle v1.2.3 (commit 0123456789abcdef0123456789abcdef01234567, modified) %s %s/%s\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH)
	for _, args := range [][]string{{"--version"}, {"-version"}, {"version"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 0 {
			t.Errorf("%v: exit %d; stderr %q", args, code, errb.String())
		}
		if out.String() != want || errb.Len() != 0 {
			t.Errorf("%v: stdout %q, stderr %q; want stdout %q", args, out.String(), errb.String(), want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"version", "now"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), `unexpected argument "now"`) {
		t.Errorf("version now: exit %d, stderr %q; want 2 naming the argument", code, errb.String())
	}
}

// TestVersionUnstamped: without a stamp the version comes from the build
// information ("devel" for a checkout built without VCS information) and
// initialize reports the same.
func TestVersionUnstamped(t *testing.T) {
	defer func(v, c, m string) { version, commit, modified = v, c, m }(version, commit, modified)
	version, commit, modified = "", "", ""
	v := currentVersion()
	if v.Version == "" || v.Go != runtime.Version() {
		t.Errorf("currentVersion() = %+v", v)
	}
	if serveVersion() != v.Version {
		t.Errorf("serveVersion() = %q, want %q", serveVersion(), v.Version)
	}
}

// TestVersionLdflags builds the binary as scripts/package.sh does and checks
// that the -X stamps land (a misspelt -X name is silently ignored by the
// linker): --version prints them, initialize reports the version.
func TestVersionLdflags(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "skill-lifecycle")
	build := exec.Command("go", "build", "-trimpath", "-o", bin,
		"-ldflags", "-s -w -X main.version=v7.8.9 -X main.commit=feedface -X main.modified=false", ".")
	build.Env = append(build.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("--version: %v", err)
	}
	if want := "skill-lifecycle v7.8.9 (commit feedface) " + runtime.Version() + " "; !strings.HasPrefix(string(out), want) {
		t.Errorf("--version printed %q, want it to start with %q", out, want)
	}
	cwd := t.TempDir()
	serve := exec.Command(bin, "serve")
	serve.Stdin = strings.NewReader(frames(
		fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%d,"cwd":%q,"skills":[]}}`, protocol.Version, cwd),
		`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`))
	res, err := serve.Output()
	if err != nil {
		t.Fatalf("serve: %v", err)
	}
	got := responses(t, res)
	if len(got) == 0 {
		t.Fatal("no answer to initialize")
	}
	if r, _ := got[0]["result"].(map[string]any); r["serverVersion"] != "v7.8.9" {
		t.Errorf("initialize answered %v, want serverVersion v7.8.9", got[0])
	}
}
