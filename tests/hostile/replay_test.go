package hostile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
	"github.com/skill-lifecycle/skill-lifecycle/replay"
)

// The replay command on inputs that are not (all) sessions (issue 27,
// item 6): bounded diagnostics, every file skipped named with its reason,
// unreadable entries passed over, and a status that says when nothing
// could be replayed.

// shownDiagnostics is how many diagnostics replay lists for a file
// (docs/replay.md); the rest are counted.
const shownDiagnostics = 10

// replaySession is a small session with one model request.
func replaySession(id string) string {
	return strings.Replace(sessHeader, `"id":"s1"`, fmt.Sprintf("%q:%q", "id", id), 1) +
		sessMsg("a", "", "write a migration") +
		`{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12},"stopReason":"stop","timestamp":2}}` + "\n"
}

// replayReport is what the tests read of replay --json.
type replayReport struct {
	Files       int `json:"files"`
	Diagnostics []struct {
		File string `json:"file"`
		Line int    `json:"line"`
		Code string `json:"code"`
	} `json:"diagnostics"`
	DiagnosticsOmitted []struct {
		File    string `json:"file"`
		Omitted int    `json:"omitted"`
		Total   int    `json:"total"`
	} `json:"diagnosticsOmitted"`
	Skipped []struct {
		File   string `json:"file"`
		Reason string `json:"reason"`
	} `json:"skipped"`
	Strategies []struct {
		Requests int `json:"requests"`
	} `json:"strategies"`
}

func parseReport(t *testing.T, out string) replayReport {
	t.Helper()
	var r replayReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("--json output: %v\n%.500s", err, out)
	}
	return r
}

// TestHostileReplayJunkLines: 2 MB of junk lines after a session (lines of
// text, or JSON objects without a type) cost a count and the first few
// diagnostics, not one diagnostic a line: the report stays small, and so
// does what reading and replaying allocate. Before the fix, 6 MB of junk
// allocated 3.2 GB and wrote a 628 MB report.
func TestHostileReplayJunkLines(t *testing.T) {
	for _, tc := range []struct {
		name, line, code string
	}{
		{"text", "junk\n", "bad-json"},
		{"objects-without-a-type", "{}\n", "no-type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			junk := strings.Repeat(tc.line, 2_000_000/len(tc.line))
			lines := strings.Count(junk, "\n")
			file := write(t, filepath.Join(t.TempDir(), "junk.jsonl"), []byte(replaySession("junk")+junk))
			code, out, errOut := runCLI(t, "replay", "--json", file)
			if code != 0 {
				t.Fatalf("exit %d:\n%.2000s", code, errOut)
			}
			r := parseReport(t, out)
			if r.Files != 1 || r.Strategies[0].Requests != 1 {
				t.Errorf("%d files, %d requests replayed, want 1 and 1", r.Files, r.Strategies[0].Requests)
			}
			if len(r.Diagnostics) != shownDiagnostics || r.Diagnostics[0].Line != 4 || r.Diagnostics[0].Code != tc.code {
				t.Errorf("diagnostics %+v, want the first %d, from line 4, %s", r.Diagnostics, shownDiagnostics, tc.code)
			}
			if len(r.DiagnosticsOmitted) != 1 || r.DiagnosticsOmitted[0].Total != lines || r.DiagnosticsOmitted[0].Omitted != lines-shownDiagnostics {
				t.Errorf("omitted %+v, want %d in all", r.DiagnosticsOmitted, lines)
			}
			if len(out) > 64<<10 {
				t.Errorf("the report is %d bytes", len(out))
			}
			if want := fmt.Sprintf("%s: %d more diagnostics not shown (%d in all)", file, lines-shownDiagnostics, lines); !strings.Contains(errOut, want) {
				t.Errorf("stderr does not say %q:\n%.2000s", want, errOut)
			}
			if n := strings.Count(errOut, "\n"); n > 20 {
				t.Errorf("%d lines on stderr", n)
			}
			// In process: reading and replaying the file allocates a small
			// multiple of it.
			grew := testio.Allocated(func() {
				rn := replay.NewRunner(replay.Options{})
				if err := rn.AddFile(file); err != nil {
					t.Fatal(err)
				}
				_, _ = json.Marshal(rn.Report())
			})
			size := len(junk)
			t.Logf("%d junk lines (%.1f MB): %.1f MiB allocated", lines, float64(size)/1e6, float64(grew)/mib)
			if grew > uint64(4*size) {
				t.Errorf("replaying %d bytes of junk allocated %d MiB", size, grew/mib)
			}
		})
	}
}

// TestHostileReplayFolderSkips: in a folder, every .jsonl file that is a
// session as Pi reads one is replayed (a blank or unparsable line before
// the header, as Pi passes over them), and every other is named as
// skipped with its reason and counted. Before the fix the files whose very
// first line was not a strict header were dropped without a word.
func TestHostileReplayFolderSkips(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.jsonl"), []byte(replaySession("a")))
	write(t, filepath.Join(dir, "b-blank-first-line.jsonl"), []byte("\n"+replaySession("b")))
	write(t, filepath.Join(dir, "c-junk-first-line.jsonl"), []byte("garbage\n"+replaySession("c")))
	write(t, filepath.Join(dir, "deep", "d.jsonl"), []byte(replaySession("d")))
	write(t, filepath.Join(dir, "x.requests.jsonl"), []byte(`{"body":{"model":"m","messages":[]}}`+"\n"))
	write(t, filepath.Join(dir, "y-empty.jsonl"), nil)
	write(t, filepath.Join(dir, "z-numeric-id.jsonl"), []byte(`{"type":"session","id":7}`+"\n"+sessMsg("a", "", "hi")))
	write(t, filepath.Join(dir, "README.md"), []byte("# not a .jsonl file: not looked at\n"))
	code, out, errOut := runCLI(t, "replay", "--json", dir)
	if code != 0 {
		t.Fatalf("exit %d (skipping files that are not sessions, in a folder, is no error):\n%s", code, errOut)
	}
	r := parseReport(t, out)
	if r.Files != 4 {
		t.Errorf("%d files replayed, want 4 (a, b, c, deep/d)", r.Files)
	}
	want := map[string]string{
		"x.requests.jsonl":   "line 1, its first JSON line, is not a session header",
		"y-empty.jsonl":      "no line is a session header",
		"z-numeric-id.jsonl": "line 1, its first JSON line, is not a session header",
	}
	got := map[string]string{}
	for _, s := range r.Skipped {
		got[filepath.Base(s.File)] = s.Reason
	}
	for name, reason := range want {
		if !strings.Contains(got[name], "not a session: "+reason) {
			t.Errorf("%s: skipped with reason %q, want %q", name, got[name], reason)
		}
		if line := "replay: skipped " + filepath.Join(dir, name) + ": not a session: "; !strings.Contains(errOut, line) {
			t.Errorf("stderr does not name %s:\n%s", name, errOut)
		}
	}
	if len(got) != len(want) {
		t.Errorf("skipped %v, want only %v", got, want)
	}
	if !strings.Contains(errOut, "4 files replayed, 3 skipped") {
		t.Errorf("stderr does not count the skipped files:\n%s", errOut)
	}
}

// TestHostileReplayUnreadableEntries: a folder that cannot be read and a
// named pipe in a session folder are named as skipped, and the sessions
// beside them are replayed, with status 1. Before the fix the unreadable
// folder ended the whole run (status 2, nothing replayed) and the pipe
// was opened, which blocks until something writes to it.
func TestHostileReplayUnreadableEntries(t *testing.T) {
	dir, err := os.MkdirTemp("", "skill-lifecycle-unreadable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(dir, "locked"), 0o755); os.RemoveAll(dir) })
	write(t, filepath.Join(dir, "a.jsonl"), []byte(replaySession("a")))
	write(t, filepath.Join(dir, "locked", "inner.jsonl"), []byte(replaySession("inner")))
	write(t, filepath.Join(dir, "z", "z.jsonl"), []byte(replaySession("z")))
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "z")} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLIUnprivileged(t, 30*time.Second, "replay", "--json", dir)
	if code != 1 {
		t.Errorf("exit %d, want 1 (some input could not be read, the rest replayed):\n%s", code, errOut)
	}
	r := parseReport(t, out)
	if r.Files != 2 {
		t.Errorf("%d files replayed, want 2 (a.jsonl, z/z.jsonl)", r.Files)
	}
	for name, reason := range map[string]string{"locked": "permission denied", "pipe.jsonl": "not a regular file (a named pipe)"} {
		line := "replay: skipped " + filepath.Join(dir, name) + ": "
		if !strings.Contains(errOut, line) || !strings.Contains(errOut, reason) {
			t.Errorf("stderr does not name %s with %q:\n%s", name, reason, errOut)
		}
	}
}

// TestHostileReplayNothingReplayed: a file that is not a session, named,
// is skipped with its reason; when nothing at all could be replayed the
// status is 3 and no table of zeros is printed. Before the fix README.md
// gave status 0 and a table of zeros.
func TestHostileReplayNothingReplayed(t *testing.T) {
	dir := t.TempDir()
	readme := write(t, filepath.Join(dir, "README.md"), []byte("# Sessions\n\nRecorded with Pi.\n"))
	empty := write(t, filepath.Join(dir, "empty.jsonl"), nil)
	logs := filepath.Join(dir, "logs")
	write(t, filepath.Join(logs, "x.requests.jsonl"), []byte(`{"body":{}}`+"\n"))
	good := write(t, filepath.Join(dir, "good", "s.jsonl"), []byte(replaySession("good")))
	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"readme-named", []string{readme}, 3, []string{"skipped " + readme + ": not a session: no line of it is a session header or entry (" + readme + ":1: bad-json"}},
		{"empty-file-named", []string{empty}, 3, []string{"skipped " + empty + ": not a session"}},
		{"folder-of-logs", []string{logs}, 3, []string{"skipped " + filepath.Join(logs, "x.requests.jsonl") + ": not a session"}},
		{"readme-beside-a-session", []string{readme, good}, 1, []string{"skipped " + readme + ": not a session", "1 file replayed, 1 skipped"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"replay"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not say %q:\n%s", w, errOut)
				}
			}
			if tc.code == 3 {
				if out != "" || !strings.Contains(errOut, "nothing could be replayed") {
					t.Errorf("nothing replayed, yet stdout %q, stderr:\n%s", out, errOut)
				}
			} else if !strings.Contains(out, "keep-all") {
				t.Errorf("no table:\n%s", out)
			}
		})
	}
}

// runCLIUnprivileged runs the binary as the user nobody when the tests run
// as root (root reads any folder, whatever its mode), with a time limit:
// a run that blocks is killed and reported.
func runCLIUnprivileged(t *testing.T, limit time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	bin := binPath
	cmd := exec.Command(bin, args...)
	if os.Geteuid() == 0 {
		// nobody must be able to run the binary: a copy in a folder it
		// can enter.
		d, err := os.MkdirTemp("", "skill-lifecycle-bin-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		bin = filepath.Join(d, "skill-lifecycle")
		copyFile(t, binPath, bin)
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command(bin, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Dir = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("running %v: %v", args, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("replay %v did not end within %s (it blocked):\n%s", args, limit, errb.String())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		t.Fatalf("running %v: %v", args, err)
	}
	return 0, out.String(), errb.String()
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
