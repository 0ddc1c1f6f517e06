package host

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Live re-indexing: before each user prompt the sidecar stats the skill
// files (skills.TakeSnapshot over the folders Pi scans, plus the host's
// listed files), at most once per watchInterval, and compares them with the
// snapshot taken at initialize. A change is acted on once the files have
// been still for watchQuiet: the changed skills are re-read, so the engine
// ranks with their new descriptions and headings and the skill tool
// delivers their new text; the listing in the system prompt waits for
// skills/update or a new session (docs/protocol.md, user_prompt). The
// user is told once per distinct change. A prompt waits at most
// watchWait for the stat walk (about 9 µs a skill): in a larger catalogue
// the walk goes on beside the session and a later prompt acts on it, so a
// prompt's answer does not grow with the catalogue (at 100,000 skills the
// walk takes about a second, past the bridge's timeout). Once a walk has
// taken longer than watchWait, prompts do not wait for the next ones.
//
// A reload the host or the user asks for (skills/update, /skills-reload)
// loads the world the same way, waited for at most updateWait: past it
// the answer says the load goes on, and the first prompt after it takes
// the new world up (and, for skills/update, brings the bridge the new
// listing), so the listing changes once, at a prompt.
const (
	watchInterval = 2 * time.Second
	watchQuiet    = 300 * time.Millisecond
	watchWait     = 200 * time.Millisecond
	updateWait    = time.Second
)

// skillWatch is the server's re-index state.
type skillWatch struct {
	roots []skills.Root
	deb   skills.Debounce
	base  skills.Snapshot // at initialize, or the last reload
	told  string          // the last change reported, "" for none
	scan  *watchScan      // the walk under way, nil: none
	slow  bool            // the last walk took longer than watchWait
	// take is the walk (nil: skills.TakeSnapshot).
	take func([]skills.Root, []string) skills.Snapshot
}

// watchScan is a snapshot taken beside the session: done is closed when
// it is taken and compared.
type watchScan struct {
	done chan struct{}
	took time.Duration
	// What the walk found against the base it started from, compared
	// beside the session too (at 100,000 skills, 80 ms).
	changes   skills.FileChanges
	unsettled bool
}

// worldLoad is a world being loaded beside the session, for kind.
type worldLoad struct {
	done    <-chan loaded
	kind    loadKind
	changes skills.FileChanges // loadEdit: what the check found
}

// loadKind says what asked for a load, and so what the user is told when
// a later prompt takes it up.
type loadKind int

const (
	loadEdit    loadKind = iota // the watch found skill files changed
	loadUpdate                  // skills/update: the host's list changed
	loadCommand                 // /skills-reload
)

// loaded is a world read beside the session, with, for a reload, the
// watch's new start: the snapshot of the files taken just before the
// reading (a change made during the reading is then seen again, not
// lost).
type loaded struct {
	world *World
	base  *skills.Snapshot
}

// startScan starts a snapshot of the roots and paths at now.
func (w *skillWatch) startScan(now time.Time, paths []string) *watchScan {
	sc := &watchScan{done: make(chan struct{})}
	roots, take, base, t0 := w.roots, w.take, w.base, time.Now()
	if take == nil {
		take = skills.TakeSnapshot
	}
	go func() {
		snap := take(roots, paths)
		sc.took = time.Since(t0)
		// Settling is judged at the walk's end, on the clock of the check
		// that started it.
		sc.changes = base.Diff(snap)
		sc.unsettled = len(snap.Unsettled(now.Add(sc.took), watchQuiet)) > 0
		close(sc.done)
	}()
	return sc
}

// within receives from c within d; ok is false when nothing came.
func within[T any](c <-chan T, d time.Duration) (v T, ok bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case v = <-c:
		return v, true
	case <-t.C:
		return v, false
	}
}

// watchRoots lists the folders to scan for added skills: the ones Pi scans
// for cwd and agentDir (project folders only when the project is trusted
// or the host has no notion of trust).
func watchRoots(p Source) []skills.Root {
	home, _ := os.UserHomeDir()
	var out []skills.Root
	for _, r := range skills.Roots(skills.Options{Home: home, AgentDir: p.AgentDir, Cwd: p.Cwd}) {
		if p.Trusted != nil && !*p.Trusted && p.Cwd != "" && skills.Within(filepath.Clean(p.Cwd), r.Path) && r.Source != skills.SourceUser {
			continue
		}
		out = append(out, r)
	}
	return out
}

func hostPaths(list []HostSkill) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		if s.Path != "" {
			out = append(out, s.Path)
		}
	}
	return out
}

// newSkillWatch takes the first snapshot, with the stamps known gives
// (nil: none; skills.TakeSnapshotKnown). A snapshot taken after the
// reading (since: when the reading started; zero: not after it) leaves
// out every file whose stamp it did not take from known and that changed
// since: the reading did not see that change, so the first check reports
// it (as added) instead of taking it as the start.
func newSkillWatch(p Source, list []HostSkill, known func(string) (skills.Stamp, bool), since time.Time) *skillWatch {
	w := &skillWatch{roots: watchRoots(p)}
	t0 := time.Now()
	w.base = skills.TakeSnapshotKnown(w.roots, hostPaths(list), known)
	// As slow as the walks to come: the first prompt does not wait.
	w.slow = time.Since(t0) > watchWait
	if !since.IsZero() {
		for path, st := range w.base.Files {
			if known != nil {
				if _, ok := known(path); ok {
					continue
				}
			}
			if st.ModNano >= since.UnixNano() {
				delete(w.base.Files, path)
			}
		}
	}
	return w
}

// rebase starts over from base, the files as a reload found them.
func (w *skillWatch) rebase(base skills.Snapshot) {
	w.base = base
	w.told = ""
	w.scan = nil // of the old list
}

// check reports the file changes since the base when a check is due (the
// debounce allows it), its walk is done (within watchWait, or started by
// an earlier check), the changed files have settled, and the change
// differs from the last one reported; ok is false otherwise.
func (w *skillWatch) check(now time.Time, list []HostSkill) (skills.FileChanges, bool) {
	if w.scan == nil {
		if !w.deb.Ready(now) {
			return skills.FileChanges{}, false
		}
		w.scan = w.startScan(now, hostPaths(list))
	}
	if !w.walked() {
		return skills.FileChanges{}, false
	}
	ch, unsettled := w.scan.changes, w.scan.unsettled
	w.slow = w.scan.took > watchWait
	w.scan = nil
	if unsettled {
		// Still being written: look again at the next prompt.
		w.deb = skills.Debounce{Interval: watchInterval}
		return skills.FileChanges{}, false
	}
	key := strings.Join(ch.Added, "\x00") + "\x01" + strings.Join(ch.Changed, "\x00") + "\x01" + strings.Join(ch.Removed, "\x00")
	if ch.Empty() && w.told == "" || key == w.told {
		return skills.FileChanges{}, false
	}
	w.told = key
	return ch, true
}

// walked reports whether the walk under way is done, waiting for it at
// most watchWait, or not at all after a walk that took longer: a prompt
// would wait in vain (at 100,000 skills, 200 ms a prompt).
func (w *skillWatch) walked() bool {
	if w.slow {
		select {
		case <-w.scan.done:
			return true
		default:
			return false
		}
	}
	_, done := within(w.scan.done, watchWait)
	return done
}

// describeChanges names the skills behind changed files: the host's
// skills by their file, an added file by the name its frontmatter (or
// folder) gives.
func describeChanges(ch skills.FileChanges, list []HostSkill) skills.SkillChanges {
	byPath := map[string]string{}
	for _, s := range list {
		byPath[filepath.Clean(s.Path)] = s.Name
	}
	name := func(p string) string {
		if n, ok := byPath[filepath.Clean(p)]; ok {
			return n
		}
		if data, err := skills.ReadFile(p); err == nil {
			if s, _ := skills.Parse(p, data); s != nil && s.Name != "" {
				return s.Name
			}
		}
		return p
	}
	var out skills.SkillChanges
	for _, p := range ch.Added {
		out.Added = append(out.Added, name(p))
	}
	for _, p := range ch.Changed {
		out.Changed = append(out.Changed, name(p))
	}
	for _, p := range ch.Removed {
		out.Removed = append(out.Removed, name(p))
	}
	sort.Strings(out.Added)
	sort.Strings(out.Changed)
	sort.Strings(out.Removed)
	return out
}

// changeMessage is what the user is told about changed skill files.
func changeMessage(sc skills.SkillChanges) string {
	if sc.Empty() {
		return "skill-lifecycle: the skill files are back as they were when the session started."
	}
	msg := "skill-lifecycle: skill files changed on disk (" + sc.String() + ")."
	if len(sc.Changed) > 0 {
		msg += " Loading a changed skill now delivers its new text."
	}
	if len(sc.Added) > 0 || len(sc.Removed) > 0 {
		msg += " The list of skills the model sees is updated at the next session or after /reload."
	}
	return msg
}

// reindex checks the skill files (at most every few seconds) and, when
// they changed and settled, loads the world again whole, so that ranking,
// the engine's catalog and the configuration follow them; the listing in
// the system prompt stays until the host reloads. The user is told what
// changed, and any problem of the new world not reported before.
//
// The new world is loaded beside the session and waited for at most
// watchWait, as the walk is: at 100,000 skills a load takes seconds, past
// the bridge's timeout, and a later prompt takes it up. A reload under
// way (skills/update, /skills-reload) is taken up the same way.
func (s *Session) reindex(now time.Time) {
	if s.reload == nil {
		watch := s.readyWatch()
		if watch == nil {
			return
		}
		ch, ok := watch.check(now, s.world.Skills.list)
		if !ok {
			return
		}
		s.startLoad(loadEdit, ch)
	}
	old := s.world.Diagnostics
	l, ok := s.takeLoad(watchWait)
	if !ok {
		return
	}
	switch l.kind {
	case loadEdit:
		s.tell("info", changeMessage(describeChanges(l.changes, s.world.Skills.list)))
	case loadCommand:
		s.tell("info", "skill-lifecycle: "+reloaded(s.world))
	}
	for _, d := range s.world.Diagnostics {
		if !slices.Contains(old, d) {
			s.tell("warning", "skill-lifecycle: "+d)
		}
	}
}

// startLoad loads the world of s.src beside the session, for kind, in
// place of any load under way (it read an older list or older files). A
// reload also snapshots the files first, for the watch.
func (s *Session) startLoad(kind loadKind, changes skills.FileChanges) {
	load, src, done := s.loadWorld, s.src, make(chan loaded, 1)
	if load == nil {
		load = Load
	}
	rebase := kind != loadEdit && (s.watch != nil || s.watchc != nil)
	go func() {
		var l loaded
		if rebase {
			base := skills.TakeSnapshot(watchRoots(src), hostPaths(src.Skills))
			l.base = &base
		}
		l.world = load(src)
		// Taken up with its relevance index built: the prompt that takes
		// it up ranks with it (at 100,000 skills the index takes ~2 s
		// after the reading, past the bridge's timeout).
		<-l.world.Catalog.Ready()
		done <- l
	}()
	s.reload = &worldLoad{done: done, kind: kind, changes: changes}
}

// takeLoad makes the world under way the session's when it is read
// within wait, and reports which load it was: the engine takes its
// catalog and configuration, and a reload's snapshot becomes the watch's
// start (an edit's keeps the start, so the change stays reported once).
func (s *Session) takeLoad(wait time.Duration) (worldLoad, bool) {
	l := *s.reload
	got, ok := within(l.done, wait)
	if !ok {
		return l, false
	}
	s.reload = nil
	s.world = got.world
	go s.world.bodies() // ready for the first tool result
	s.apply(lifecycle.Event{Type: lifecycle.EvWorld, Catalog: &got.world.Catalog, Config: &got.world.Config})
	if got.base != nil {
		if watch := s.skillWatch(); watch != nil {
			watch.rebase(*got.base)
		}
	}
	return l, true
}
