package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

func TestSkillWatch(t *testing.T) {
	agent := t.TempDir()
	cwd := t.TempDir()
	root := filepath.Join(agent, "skills")
	a := writeTestSkill(t, root, "alpha", "A body\n")
	b := writeTestSkill(t, root, "beta", "B body\n")
	list := []HostSkill{a, b}
	old := time.Now().Add(-time.Hour)
	for _, s := range list {
		if err := os.Chtimes(s.Path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	w := newSkillWatch(Source{Cwd: cwd, AgentDir: agent}, list)
	now := time.Now()

	if _, ok := w.check(now, list); ok {
		t.Fatal("a change reported with nothing changed")
	}
	// Edit alpha (settled), add gamma: debounced until the interval passes.
	if err := os.WriteFile(a.Path, []byte("---\nname: alpha\ndescription: alpha things\n---\nA body, edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := writeTestSkill(t, root, "gamma", "G body\n")
	written := now.Add(watchInterval) // just before the next due check
	for _, p := range []string{a.Path, g.Path} {
		if err := os.Chtimes(p, written, written); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := w.check(now.Add(time.Second), list); ok {
		t.Error("a check within the debounce interval ran")
	}
	// Due, but the files were written within the quiet time: not yet.
	if _, ok := w.check(now.Add(watchInterval+watchQuiet/2), list); ok {
		t.Error("unsettled files reported")
	}
	at := now.Add(2*watchInterval + watchQuiet)
	ch, ok := w.check(at, list)
	if !ok {
		t.Fatal("change not reported")
	}
	sc := describeChanges(ch, list)
	if d := cmp.Diff(skills.SkillChanges{Added: []string{"gamma"}, Changed: []string{"alpha"}}, sc); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}
	msg := changeMessage(sc)
	for _, want := range []string{"added: gamma", "changed: alpha", "new text", "next session or after /reload"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	// Told once: the same change is not reported again.
	if _, ok := w.check(at.Add(3*watchInterval), list); ok {
		t.Error("the same change reported twice")
	}
	// Another change is.
	if err := os.Remove(b.Path); err != nil {
		t.Fatal(err)
	}
	ch, ok = w.check(at.Add(6*watchInterval), list)
	if !ok {
		t.Fatal("removal not reported")
	}
	if d := cmp.Diff([]string{"beta"}, describeChanges(ch, list).Removed); d != "" {
		t.Errorf("removed (-want +got):\n%s", d)
	}
	// After a reload the new files are the base.
	w.rebase([]HostSkill{a, g})
	if _, ok := w.check(at.Add(9*watchInterval), []HostSkill{a, g}); ok {
		t.Error("a change reported right after a rebase")
	}
}

func TestWatchRootsTrust(t *testing.T) {
	cwd := t.TempDir()
	agent := t.TempDir()
	no, yes := false, true
	count := func(tr *bool) (project int) {
		for _, r := range watchRoots(Source{Cwd: cwd, AgentDir: agent, Trusted: tr}) {
			if strings.HasPrefix(r.Path, cwd) {
				project++
			}
		}
		return project
	}
	if n := count(&no); n != 0 {
		t.Errorf("untrusted project: %d project roots watched", n)
	}
	if count(&yes) == 0 || count(nil) == 0 {
		t.Error("trusted (or trust unknown) project: no project roots watched")
	}
}

func TestChangeMessageBackToStart(t *testing.T) {
	if got := changeMessage(skills.SkillChanges{}); !strings.Contains(got, "back as they were") {
		t.Errorf("message %q", got)
	}
}
