package host

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
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
	w := newSkillWatch(Source{Cwd: cwd, AgentDir: agent}, list, nil, time.Time{})
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
	w.rebase(skills.TakeSnapshot(w.roots, hostPaths([]HostSkill{a, g})))
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

// TestEditedDescriptionReranks: an edited description ranks from the next
// prompt. The host lists skills with the descriptions it read at start; the
// re-index re-reads the files, and ranking must follow the file, not the
// host's old text (the listing the model sees stays until a reload).
func TestEditedDescriptionReranks(t *testing.T) {
	agent := t.TempDir()
	root := filepath.Join(agent, "skills")
	a := writeTestSkill(t, root, "alpha", "Plot charts with matplotlib.\n")
	b := writeTestSkill(t, root, "beta", "Work through the checklist.\n")
	old := time.Now().Add(-time.Hour)
	for _, s := range []HostSkill{a, b} {
		if err := os.Chtimes(s.Path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	yes := true
	s, init, err := Open(InitializeParams{Cwd: t.TempDir(), AgentDir: agent, Trusted: &yes, Skills: []HostSkill{a, b}},
		&recorder{}, Options{Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	explain := func(prompt string) string {
		t.Helper()
		r, err := s.Command(CommandParams{Name: "skills-explain", Args: prompt})
		if err != nil {
			t.Fatal(err)
		}
		return r.Text
	}
	const prompt = "Rotate the TLS certificates of the nginx proxy."
	if ex := explain(prompt); strings.Contains(ex, "beta") {
		t.Fatalf("beta ranks before its edit:\n%s", ex)
	}
	// The user edits beta's description; the file has settled.
	edited := "---\nname: beta\ndescription: Rotate TLS certificates and keys of the nginx reverse proxy.\n---\n\nWork through the checklist.\n"
	if err := os.WriteFile(b.Path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(b.Path, old.Add(time.Minute), old.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	// The next prompt re-indexes; from then on beta ranks for its new text.
	if _, err := s.UserPrompt(UserPromptParams{Text: prompt}); err != nil {
		t.Fatal(err)
	}
	ex := explain(prompt)
	if !strings.Contains(ex, "1. beta") || !strings.Contains(ex, "nginx") {
		t.Errorf("after the edit beta does not rank first on its new description:\n%s", ex)
	}
	// The model's listing keeps the host's description until a reload.
	if strings.Contains(init.SystemPromptSection, "nginx") || strings.Contains(s.World().listing(0).Section, "nginx") {
		t.Errorf("the listing took the file's new description before a reload:\n%s", s.World().listing(0).Section)
	}
}

// TestOpenWatchFromLoadStats: the watch's first snapshot, taken from the
// lstat data the reading started from, is the snapshot a walk of its own
// takes: every file, linked ones (stat'ed, not taken from the reading's
// data) among them.
func TestOpenWatchFromLoadStats(t *testing.T) {
	agent := t.TempDir()
	cwd := t.TempDir()
	root := filepath.Join(agent, "skills")
	var list []HostSkill
	for _, n := range []string{"alpha", "beta", "gamma"} {
		list = append(list, writeTestSkill(t, root, n, n+" body\n"))
	}
	elsewhere := t.TempDir()
	far := writeTestSkill(t, elsewhere, "far", "far body\n")
	if err := os.Symlink(filepath.Dir(far.Path), filepath.Join(root, "far")); err != nil {
		t.Fatal(err)
	}
	far.Path = filepath.Join(root, "far", "SKILL.md")
	list = append(list, far)
	p := InitializeParams{ProtocolVersion: 1, Cwd: cwd, AgentDir: agent, Skills: list}
	s, _, err := Open(p, nullSink{}, Options{Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	want := newSkillWatch(s.src, list, nil, time.Time{}).base
	if diff := cmp.Diff(want, s.skillWatch().base); diff != "" {
		t.Errorf("snapshot (-own walk +from the reading):\n%s", diff)
	}
	if len(want.Files) != len(list) {
		t.Errorf("%d files in the snapshot, want %d", len(want.Files), len(list))
	}
	// The linked skill's stamp is not known from the reading's lstat
	// data (of the file it leads to): the walk stats the link's path.
	res := skills.NewResolver()
	reals, fis := make([]string, len(list)), make([]os.FileInfo, len(list))
	for i, hs := range list {
		reals[i], fis[i], _ = res.Lstat(hs.Path)
	}
	known := statsOf(list, reals, fis)
	for _, hs := range list {
		if _, ok := known(hs.Path); ok != (hs.Name != "far") {
			t.Errorf("%s: known %v", hs.Name, ok)
		}
	}
}

// A first snapshot taken after the reading leaves out the files that
// changed since the reading started, unless their stamp is the reading's:
// the first check then reports them, where a snapshot taken with them
// would have started from the change.
func TestWatchAfterReading(t *testing.T) {
	agent := t.TempDir()
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
	since := time.Now().Add(-time.Minute)
	readA := skills.Stamp{Size: 1, ModNano: old.UnixNano()} // alpha as the reading saw it
	known := func(p string) (skills.Stamp, bool) { return readA, p == a.Path }
	// Written after the reading started: gamma (not listed), alpha (listed,
	// its stamp known).
	g := writeTestSkill(t, root, "gamma", "G body\n")
	if err := os.WriteFile(a.Path, []byte("---\nname: alpha\ndescription: alpha things\n---\nA body, edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := Source{Cwd: t.TempDir(), AgentDir: agent}

	w := newSkillWatch(src, list, known, since)
	got := map[string]skills.Stamp{}
	for p, st := range w.base.Files {
		got[p] = st
	}
	if _, ok := got[g.Path]; ok {
		t.Error("gamma, written after the reading started, is in the first snapshot")
	}
	if got[a.Path] != readA {
		t.Errorf("alpha's stamp %v, want the reading's %v", got[a.Path], readA)
	}
	if _, ok := got[b.Path]; !ok {
		t.Error("beta, unchanged, is not in the first snapshot")
	}
	ch, ok := w.check(time.Now().Add(2*watchInterval+watchQuiet), list)
	if !ok {
		t.Fatal("no change reported")
	}
	if d := cmp.Diff(skills.SkillChanges{Added: []string{"gamma"}, Changed: []string{"alpha"}}, describeChanges(ch, list)); d != "" {
		t.Errorf("changes (-want +got):\n%s", d)
	}

	// Taken before the reading (since zero), the snapshot starts from
	// gamma as it is.
	if _, ok := newSkillWatch(src, list, known, time.Time{}).base.Files[g.Path]; !ok {
		t.Error("gamma left out of a snapshot not taken after the reading")
	}
}

// TestSkillWatchSlowWalk: a walk that outlasts watchWait (a catalogue of
// 100,000 skills takes about a second) does not hold the prompt: the check
// returns, the walk goes on, and a later check acts on what it found,
// with the files' settling judged at the walk's end.
func TestSkillWatchSlowWalk(t *testing.T) {
	agent := t.TempDir()
	root := filepath.Join(agent, "skills")
	a := writeTestSkill(t, root, "alpha", "A body\n")
	list := []HostSkill{a}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(a.Path, old, old); err != nil {
		t.Fatal(err)
	}
	w := newSkillWatch(Source{Cwd: t.TempDir(), AgentDir: agent}, list, nil, time.Time{})
	release := make(chan struct{})
	walks := 0
	w.take = func(roots []skills.Root, paths []string) skills.Snapshot {
		walks++
		<-release
		return skills.TakeSnapshot(roots, paths)
	}
	if err := os.WriteFile(a.Path, []byte("---\nname: alpha\ndescription: alpha things\n---\nA body, edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(a.Path, old.Add(time.Minute), old.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	t0 := time.Now()
	if _, ok := w.check(now, list); ok {
		t.Fatal("a change reported before the walk ended")
	}
	if d := time.Since(t0); d > 10*watchWait {
		t.Errorf("the check waited %v for a walk that does not end", d)
	}
	// Not due again, the walk still under way: nothing, no second walk.
	if _, ok := w.check(now.Add(time.Second), list); ok {
		t.Fatal("a change reported before the walk ended")
	}
	close(release)
	ch, ok := w.check(now.Add(2*time.Second), list)
	if !ok || !slices.Equal(ch.Changed, []string{a.Path}) {
		t.Fatalf("after the walk: %+v, %v; want alpha changed", ch, ok)
	}
	if walks != 1 {
		t.Errorf("%d walks, want 1", walks)
	}
	// That walk took longer than watchWait: the next check does not wait
	// for its walk, and the one after takes it up once it is done.
	if !w.slow {
		t.Fatal("a walk of more than watchWait not noted as slow")
	}
	hold := make(chan struct{})
	w.take = func(roots []skills.Root, paths []string) skills.Snapshot {
		<-hold
		return skills.TakeSnapshot(roots, paths)
	}
	if _, ok := w.check(now.Add(10*time.Second), list); ok || w.scan == nil {
		t.Fatalf("check: %v, walk under way %v; want no change and a walk started", ok, w.scan != nil)
	}
	if w.walked() {
		t.Fatal("a walk that has not ended reported done")
	}
	close(hold)
	<-w.scan.done
	// Taken up at the next check; a quick walk: waited for again.
	if _, ok := w.check(now.Add(11*time.Second), list); ok || w.scan != nil || w.slow {
		t.Errorf("after a quick walk: change %v, walk under way %v, slow %v; want none", ok, w.scan != nil, w.slow)
	}
}

// TestSlowReloadTakenLater: a world whose load outlasts watchWait after an
// edit (seconds at 100,000 skills) does not hold the prompt: the prompt
// ranks with the old world, and a later one takes the new world up and
// tells the user. A skills/update meanwhile drops the stale load.
func TestSlowReloadTakenLater(t *testing.T) {
	agent := t.TempDir()
	root := filepath.Join(agent, "skills")
	a := writeTestSkill(t, root, "alpha", "Plot charts with matplotlib.\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(a.Path, old, old); err != nil {
		t.Fatal(err)
	}
	rec := &noteRecorder{}
	s, _, err := Open(InitializeParams{Cwd: t.TempDir(), AgentDir: agent, Skills: []HostSkill{a}}, rec, Options{Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	release := holdLoads(s)
	if err := os.WriteFile(a.Path, []byte("---\nname: alpha\ndescription: Rotate TLS certificates.\n---\nEdited.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(a.Path, old.Add(time.Minute), old.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	before := s.World()
	if _, err := s.UserPrompt(UserPromptParams{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if s.World() != before || s.reload == nil {
		t.Fatalf("the prompt did not go on with the old world while the new one loads (reload pending: %v)", s.reload != nil)
	}
	close(release)
	if _, err := s.UserPrompt(UserPromptParams{Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	if s.World() == before || !strings.Contains(s.World().Parsed["alpha"].Description, "TLS") {
		t.Fatal("the next prompt did not take the new world up")
	}
	if !slices.ContainsFunc(rec.notes, func(n string) bool { return strings.Contains(n, "changed: alpha") }) {
		t.Errorf("the user was not told of the change: %q", rec.notes)
	}
	// A load under way when the host sends a new list is dropped.
	s.reload = &worldLoad{done: make(chan loaded)}
	if _, err := s.SkillsUpdate(SkillsUpdateParams{Skills: []HostSkill{a}}); err != nil {
		t.Fatal(err)
	}
	if s.reload != nil {
		t.Error("skills/update kept a load of the files before it")
	}
}

// holdLoads makes s's world loads wait until the channel it returns is
// closed.
func holdLoads(s *Session) chan struct{} {
	release := make(chan struct{})
	s.loadWorld = func(src Source) *World {
		<-release
		return Load(src)
	}
	return release
}

// noteRecorder keeps what the session tells the user.
type noteRecorder struct {
	recorder
	notes []string
}

func (r *noteRecorder) Notify(level, msg string) { r.notes = append(r.notes, msg) }

// TestSlowUpdateTakenLater: a skills/update whose world is not read
// within updateWait is answered with the listing in use, marked pending;
// the session goes on with the old world, and the first user_prompt
// after the reading takes the new world up and brings the new listing,
// once. /skills-reload answers the same way and tells the user later.
func TestSlowUpdateTakenLater(t *testing.T) {
	agent := t.TempDir()
	root := filepath.Join(agent, "skills")
	a := writeTestSkill(t, root, "alpha", "Plot charts with matplotlib.\n")
	rec := &noteRecorder{}
	s, _, err := Open(InitializeParams{Cwd: t.TempDir(), AgentDir: agent, Skills: []HostSkill{a}}, rec, Options{Watch: true})
	if err != nil {
		t.Fatal(err)
	}
	release := holdLoads(s)
	b := writeTestSkill(t, root, "beta", "Rotate TLS certificates.\n")
	before := s.World()
	answered := make(chan SkillsUpdateResult, 1)
	go func() {
		res, err := s.SkillsUpdate(SkillsUpdateParams{Skills: []HostSkill{a, b}})
		if err != nil {
			t.Error(err)
		}
		answered <- res
	}()
	var upd SkillsUpdateResult
	select {
	case upd = <-answered:
	case <-time.After(10 * updateWait):
		close(release)
		t.Fatal("skills/update waited for a load that does not end")
	}
	if !upd.Pending || !strings.Contains(upd.SystemPromptSection, "alpha") || strings.Contains(upd.SystemPromptSection, "beta") {
		t.Fatalf("pending %v, section %q: want pending, the listing in use", upd.Pending, upd.SystemPromptSection)
	}
	if res, _ := s.UserPrompt(UserPromptParams{Text: "hello"}); res.SystemPromptSection != "" || s.World() != before {
		t.Fatalf("a prompt during the load changed the listing (%q) or the world", res.SystemPromptSection)
	}
	close(release)
	res, _ := s.UserPrompt(UserPromptParams{Text: "hello"})
	if !strings.Contains(res.SystemPromptSection, "beta") || s.World().Parsed["beta"] == nil {
		t.Fatalf("the prompt after the load: section %q, beta in the world: %v; want both", res.SystemPromptSection, s.World().Parsed["beta"] != nil)
	}
	if res, _ := s.UserPrompt(UserPromptParams{Text: "hello"}); res.SystemPromptSection != "" {
		t.Error("the new listing was brought twice")
	}
	if watch := s.skillWatch(); watch == nil || watch.base.Files[b.Path].Size == 0 {
		t.Error("the watch did not start over from the files the reload saw")
	}

	release = holdLoads(s)
	cr, err := s.Command(CommandParams{Name: "skills-reload"})
	if err != nil || !strings.Contains(cr.Text, "next prompt") {
		t.Fatalf("/skills-reload during a slow load answered %q, %v", cr.Text, err)
	}
	close(release)
	s.UserPrompt(UserPromptParams{Text: "hello"})
	if !slices.ContainsFunc(rec.notes, func(n string) bool { return strings.Contains(n, "Reloaded 2 skills") }) {
		t.Errorf("the user was not told of the reload taken up: %q", rec.notes)
	}
}

// heldRanker is a ranker whose index is ready once ready is closed.
type heldRanker struct {
	rules.Ranker
	ready chan struct{}
}

func (h heldRanker) Ready() <-chan struct{} { return h.ready }

// TestReloadWaitsForIndex: a world loaded beside the session is taken up
// only once its relevance index is built, so that the prompt taking it
// up does not wait for the index (at 100,000 skills ~2 s after the
// reading, past the bridge's timeout: the sidecar was restarted).
func TestReloadWaitsForIndex(t *testing.T) {
	agent := t.TempDir()
	a := writeTestSkill(t, filepath.Join(agent, "skills"), "alpha", "A body\n")
	s, _, err := Open(InitializeParams{Cwd: t.TempDir(), AgentDir: agent, Skills: []HostSkill{a}}, &recorder{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	s.loadWorld = func(src Source) *World {
		w := Load(src)
		w.Catalog.Ranker = heldRanker{w.Catalog.Ranker, ready}
		return w
	}
	old := s.world
	s.startLoad(loadCommand, skills.FileChanges{})
	if _, ok := s.takeLoad(100 * time.Millisecond); ok || s.world != old {
		t.Fatal("a world taken up before its index was built")
	}
	close(ready)
	if _, ok := s.takeLoad(10 * time.Second); !ok || s.world == old {
		t.Fatal("a world with its index built not taken up")
	}
}
