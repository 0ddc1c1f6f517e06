//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Registry is a real npm registry (verdaccio, pinned in registry/) on
// 127.0.0.1, for one test: storage in a temporary folder, no uplinks (it
// serves only what was published to it), publishing open to anyone.
type Registry struct {
	URL  string // http://127.0.0.1:PORT/
	Host string // 127.0.0.1:PORT, for .npmrc's per-registry keys
	dir  string
}

// StartRegistry starts verdaccio on a free port of 127.0.0.1 with Node 22
// and waits until it answers; it is stopped when the test ends.
func StartRegistry(t testing.TB) *Registry {
	t.Helper()
	root := RepoRoot(t)
	bin := filepath.Join(root, "tests", "e2e", "registry", "node_modules", "verdaccio", "bin", "verdaccio")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("verdaccio not installed at %s: %s", bin, setupHint)
	}
	node := Pi16(t).Node // verdaccio 6.10 needs Node 22
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	yaml := fmt.Sprintf(`storage: %s
auth:
  htpasswd:
    file: %s
    max_users: -1
uplinks: {}
packages:
  '**':
    access: $all
    publish: $all
    unpublish: $all
web:
  enable: false
max_body_size: 50mb
log: { type: file, path: %s, format: pretty, level: warn }
`, filepath.Join(dir, "storage"), filepath.Join(dir, "htpasswd"), filepath.Join(dir, "verdaccio.log"))
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	// The port is chosen free, then given to verdaccio (it does not report
	// a port it picked itself); a lost race is retried on another port.
	var lastErr string
	for attempt := 0; attempt < 3; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		host := l.Addr().String()
		l.Close()
		cmd := exec.Command(node, bin, "--config", config, "--listen", host)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatalf("start verdaccio: %v", err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		stop := func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		url := "http://" + host + "/"
		if waitForRegistry(url, exited, 60*time.Second) {
			t.Cleanup(stop)
			return &Registry{URL: url, Host: host, dir: dir}
		}
		stop()
		lastErr = out.String()
	}
	log, _ := os.ReadFile(filepath.Join(dir, "verdaccio.log"))
	t.Fatalf("verdaccio did not answer on 127.0.0.1:\n%s\n%s", lastErr, log)
	return nil
}

func waitForRegistry(url string, exited <-chan struct{}, within time.Duration) bool {
	client := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(within); time.Now().Before(deadline); {
		select {
		case <-exited:
			return false
		default:
		}
		if resp, err := client.Get(url + "-/ping"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return true
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false
}

// NPMRC is a user .npmrc that points npm at the registry. npm refuses to
// publish without a token; verdaccio, publishing being open, takes any.
func (r *Registry) NPMRC(extra ...string) string {
	lines := append([]string{"registry=" + r.URL, "//" + r.Host + "/:_authToken=e2e-anonymous", "audit=false", "fund=false", "update-notifier=false"}, extra...)
	return strings.Join(lines, "\n") + "\n"
}

// Publish publishes npm tarballs to the registry, all at once, with npm
// (the machine's) from an isolated HOME.
func (r *Registry) Publish(t testing.TB, tarballs ...string) {
	t.Helper()
	home := filepath.Join(r.dir, "publisher")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte(r.NPMRC()), 0o600); err != nil {
		t.Fatal(err)
	}
	errs := make([]string, len(tarballs))
	var wg sync.WaitGroup
	for i, tb := range tarballs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "npm", "publish", tb)
			cmd.Dir = home
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Sprintf("npm publish %s: %v\n%s", tb, err, out)
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Fatal(e)
		}
	}
}
