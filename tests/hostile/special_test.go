//go:build unix

package hostile

// Special files (issue 27, item 5): a named pipe, a device or a folder
// where a skill file, a configuration file or a session is expected. Each
// is refused without being opened or waited on, gets a diagnostic naming
// its path, and everything around it keeps working; a sidecar stuck on
// one used to ignore SIGTERM and a closed stdin.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// hangLimit is how long a command may take before it counts as hung. It
// is no speed limit: every command here ends in well under a second.
const hangLimit = 30 * time.Second

// mkfifo makes a named pipe (and its folders) or fails the test.
func mkfifo(t testing.TB, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
	return path
}

// runCLIBounded is runCLI that fails the test when the command does not
// end within hangLimit (a named pipe used to block it forever).
func runCLIBounded(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, binPath, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("skill-lifecycle %s hung: killed after %v\n%s%s", strings.Join(args, " "), hangLimit, out.String(), errb.String())
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

// TestHostileSpecialSkillFiles: a named pipe as a SKILL.md (in a skill
// folder, and as a root *.md), beside a good skill. list, validate,
// explain and replay --skills end, name the pipe, and the good skill is
// still there. They used to hang on opening it.
func TestHostileSpecialSkillFiles(t *testing.T) {
	dir := t.TempDir()
	pack := filepath.Join(dir, "pack")
	writeSkill(t, pack, "tide-tables", "Tide tables for harbours, high and low water times.", "# Tides\n\nRead the table.")
	writeSkill(t, pack, "sourdough", "Bake sourdough bread, starter, proofing and oven.", "# Bread\n\nFeed the starter.")
	pipe := mkfifo(t, filepath.Join(pack, "piped", "SKILL.md"))
	rootPipe := mkfifo(t, filepath.Join(pack, "loose.md"))
	session := write(t, filepath.Join(dir, "s.jsonl"), []byte(sessHeader+sessMsg("a", "", "one")))
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		words []string
	}{
		{"list", []string{"list", "--skills", pack}, 0, []string{"tide-tables", pipe, rootPipe, "named pipe"}},
		{"validate", []string{"validate", pack}, -1, []string{"tide-tables", pipe, "named pipe"}},
		{"validate-the-pipe", []string{"validate", pipe}, 1, []string{pipe, "named pipe"}},
		{"explain", []string{"explain", "--skills", pack, "when is high water at the harbour"}, 0, []string{"tide-tables"}},
		{"replay-skills", []string{"replay", "--skills", pack, session}, 0, []string{"keep-all"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLIBounded(t, tc.args...)
			if tc.code >= 0 && code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.words {
				if !strings.Contains(out+errOut, w) {
					t.Errorf("output does not mention %q:\n%s%s", w, out, errOut)
				}
			}
		})
	}
}

// TestHostileSkillFolderOddEntries (item 11): a folder named SKILL.md, a
// broken, a looping and a device SKILL.md, a named pipe: Pi skips each one
// silently; discovery skips it too and names it.
func TestHostileSkillFolderOddEntries(t *testing.T) {
	pack := t.TempDir()
	writeSkill(t, pack, "good", "A good skill.", "# Good")
	dirMD := filepath.Join(pack, "folder-named", "SKILL.md")
	if err := os.MkdirAll(dirMD, 0o755); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(pack, "broken", "SKILL.md")
	symlink(t, filepath.Join(pack, "broken", "gone.md"), broken)
	loop := filepath.Join(pack, "loop", "SKILL.md")
	symlink(t, loop, loop)
	device := filepath.Join(pack, "device", "SKILL.md")
	symlink(t, "/dev/zero", device)
	pipe := mkfifo(t, filepath.Join(pack, "pipe", "SKILL.md"))
	rootBroken := filepath.Join(pack, "dangling.md")
	symlink(t, filepath.Join(pack, "nothing.md"), rootBroken)

	done := make(chan *skills.Catalog, 1)
	go func() { done <- skills.Discover(skills.Options{Paths: []string{pack}, NoDefaults: true}) }()
	var cat *skills.Catalog
	select {
	case cat = <-done:
	case <-time.After(hangLimit):
		t.Fatalf("discovery hung for %v", hangLimit)
	}
	if got := cat.Names(); len(got) != 1 || got[0] != "good" {
		t.Errorf("skills = %v, want [good]", got)
	}
	for _, want := range []struct{ path, code, words string }{
		{dirMD, "not-a-regular-file", "a folder"},
		{broken, "broken-symlink", "does not exist"},
		{loop, "symlink-loop", "loops"},
		{device, "not-a-regular-file", "character device"},
		{pipe, "not-a-regular-file", "named pipe"},
		{rootBroken, "broken-symlink", "does not exist"},
	} {
		found := false
		for _, d := range cat.Diagnostics {
			if d.Path == want.path && d.Code == want.code && strings.Contains(d.Message, want.words) {
				found = true
			}
		}
		if !found {
			t.Errorf("no %s diagnostic (%q) for %s; diagnostics:\n%v", want.code, want.words, want.path, cat.Diagnostics)
		}
	}
	code, out, errOut := runCLIBounded(t, "list", "--skills", pack)
	if code != 0 {
		t.Errorf("list exit %d:\n%s%s", code, out, errOut)
	}
	for _, p := range []string{dirMD, broken, loop, device, pipe, rootBroken} {
		if !strings.Contains(out+errOut, p) {
			t.Errorf("list does not name %s:\n%s%s", p, out, errOut)
		}
	}
}

// TestHostileSpecialSessionFiles: a named pipe in a session folder and one
// named on the command line; replay ends and names it, and replays the
// good session beside it.
func TestHostileSpecialSessionFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "good.jsonl"), []byte(sessHeader+sessMsg("a", "", "one")))
	pipe := mkfifo(t, filepath.Join(dir, "piped.jsonl"))
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"folder", []string{"replay", dir}},
		{"named", []string{"replay", pipe, filepath.Join(dir, "good.jsonl")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLIBounded(t, tc.args...)
			if !strings.Contains(errOut, pipe) || !strings.Contains(errOut, "named pipe") {
				t.Errorf("replay does not name the pipe (exit %d):\n%s%s", code, out, errOut)
			}
			if !strings.Contains(out, "keep-all") {
				t.Errorf("the good session was not replayed (exit %d):\n%s%s", code, out, errOut)
			}
		})
	}
}

// TestHostileSpecialConfigFiles: a named pipe, a link to a device and a
// folder as the user's skill-lifecycle.json, and a named pipe as a
// trusted project's: initialize answers, names the file, and the defaults
// (or the other file) apply. A pipe used to make initialize never answer.
func TestHostileSpecialConfigFiles(t *testing.T) {
	for _, tc := range []struct {
		name    string
		project bool
		make    func(t *testing.T, path string)
		words   string
	}{
		{"user-named-pipe", false, func(t *testing.T, p string) { mkfifo(t, p) }, "named pipe"},
		{"user-link-to-dev-zero", false, func(t *testing.T, p string) { symlink(t, "/dev/zero", p) }, "character device"},
		{"user-folder", false, func(t *testing.T, p string) { os.MkdirAll(p, 0o755) }, "a folder"},
		{"trusted-project-named-pipe", true, func(t *testing.T, p string) { mkfifo(t, p) }, "named pipe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPack(t)
			file := filepath.Join(p.agentDir, rules.FileName)
			ip := p.initParams()
			if tc.project {
				write(t, filepath.Join(p.agentDir, rules.FileName), []byte(`{"pinned": ["go-tests"]}`))
				file = filepath.Join(p.cwd, ".pi", rules.FileName)
				yes := true
				ip.Trusted = &yes
			}
			tc.make(t, file)
			sc := startSidecar(t)
			var init protocol.InitializeResult
			sc.ok(sc.call(protocol.MethodInitialize, ip), &init)
			found := false
			for _, d := range init.Diagnostics {
				found = found || (strings.Contains(d, file) && strings.Contains(d, tc.words))
			}
			if !found {
				t.Errorf("no diagnostic names %s (%s): %q", file, tc.words, init.Diagnostics)
			}
			text := sc.listText()
			if tc.project && !strings.Contains(text, "go-tests [pinned") {
				t.Errorf("the user's file did not apply beside the refused project file:\n%s", text)
			}
		})
	}
}

// TestHostileSidecarStopsWhenTold: a sidecar given a named pipe as its
// configuration ends on SIGTERM, and on a closed stdin, however far it
// got. One used to stay blocked in initialize, ignoring both (one was
// still alive 33 minutes later).
func TestHostileSidecarStopsWhenTold(t *testing.T) {
	for _, how := range []string{"sigterm", "stdin-closed"} {
		t.Run(how, func(t *testing.T) {
			p := newPack(t)
			mkfifo(t, filepath.Join(p.agentDir, rules.FileName))
			sc := startSidecar(t)
			_, body := sc.request(protocol.MethodInitialize, p.initParams())
			sc.send(body)
			// The answer is not required: a stuck sidecar never gives it.
			select {
			case <-sc.msgs:
			case <-time.After(2 * time.Second):
			}
			switch how {
			case "sigterm":
				if err := sc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			default:
				sc.stdin.Close()
			}
			select {
			case <-sc.exited:
			case <-time.After(hangLimit):
				t.Fatalf("the sidecar was still running %v after %s", hangLimit, how)
			}
			if sc.code != 1 {
				t.Errorf("exit status %d, want 1 (ended without shutdown); stderr:\n%s", sc.code, sc.stderr)
			}
		})
	}
}
