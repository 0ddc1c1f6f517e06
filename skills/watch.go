package skills

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Stamp is what one stat says about a skill file: enough to notice an edit
// without reading the file. An editor that saves in place changes the size
// or the modification time (kept to the nanosecond); one that writes a new
// file and renames it over the old changes the modification time too.
type Stamp struct {
	Size    int64 `json:"size"`
	ModNano int64 `json:"modNano"` // modification time, Unix nanoseconds
}

// Snapshot is the stamps of every skill file found under some roots, by
// path as found. It is cheap to take (folders are listed and skill files
// stat'ed, none is read) and two of them diff into added, changed and
// removed files.
type Snapshot struct {
	Files map[string]Stamp `json:"files"`
}

// TakeSnapshot walks roots the way Discover does (hidden entries and
// node_modules skipped, root-level *.md files and SKILL.md below, a folder
// holding SKILL.md not descended, links followed once per real folder)
// without reading any file, and stat's each skill file found; extra names
// more files to stat (skills the host listed from places outside roots). A
// missing root or file is simply absent from the snapshot.
func TakeSnapshot(roots []Root, extra []string) Snapshot {
	s := Snapshot{Files: map[string]Stamp{}}
	w := snapWalker{s: s, visited: map[string]bool{}}
	for _, r := range roots {
		w.root(r.Path)
	}
	for _, p := range extra {
		if _, ok := s.Files[p]; !ok {
			w.stat(p)
		}
	}
	return s
}

type snapWalker struct {
	s       Snapshot
	visited map[string]bool
}

func (w *snapWalker) stat(path string) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return
	}
	w.s.Files[path] = Stamp{Size: st.Size(), ModNano: st.ModTime().UnixNano()}
}

func (w *snapWalker) root(path string) {
	st, err := os.Stat(path)
	if err != nil {
		return
	}
	if !st.IsDir() {
		if strings.HasSuffix(path, ".md") {
			w.stat(path)
		}
		return
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		w.dir(path, real, true)
	}
}

// dir walks folder path, whose symlink-free form is real.
func (w *snapWalker) dir(path, real string, isRoot bool) {
	if w.visited[real] {
		return
	}
	w.visited[real] = true
	full := filepath.Join(path, "SKILL.md")
	if st, err := os.Stat(full); err == nil && st.Mode().IsRegular() {
		w.s.Files[full] = Stamp{Size: st.Size(), ModNano: st.ModTime().UnixNano()}
		return
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		full := filepath.Join(path, name)
		t := e.Type()
		childReal := filepath.Join(real, name)
		if t&fs.ModeSymlink != 0 {
			st, err := os.Stat(full)
			if err != nil {
				continue
			}
			if childReal, err = filepath.EvalSymlinks(full); err != nil {
				continue
			}
			t = st.Mode().Type()
		}
		switch {
		case t.IsDir():
			w.dir(full, childReal, false)
		case isRoot && t.IsRegular() && strings.HasSuffix(name, ".md"):
			w.stat(full)
		}
	}
}

// FileChanges is the difference between two snapshots, by path, each list
// sorted.
type FileChanges struct {
	Added   []string `json:"added,omitempty"`
	Changed []string `json:"changed,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// Empty reports whether nothing changed.
func (c FileChanges) Empty() bool {
	return len(c.Added) == 0 && len(c.Changed) == 0 && len(c.Removed) == 0
}

// Diff says which files of s are new, changed (another size or
// modification time) or gone in next.
func (s Snapshot) Diff(next Snapshot) FileChanges {
	var c FileChanges
	for p, st := range next.Files {
		old, ok := s.Files[p]
		switch {
		case !ok:
			c.Added = append(c.Added, p)
		case old != st:
			c.Changed = append(c.Changed, p)
		}
	}
	for p := range s.Files {
		if _, ok := next.Files[p]; !ok {
			c.Removed = append(c.Removed, p)
		}
	}
	sort.Strings(c.Added)
	sort.Strings(c.Changed)
	sort.Strings(c.Removed)
	return c
}

// Unsettled lists, sorted, the files of s modified less than quiet before
// now (or later than now): they may still be being written, so a change
// seen in them is better confirmed by the next check.
func (s Snapshot) Unsettled(now time.Time, quiet time.Duration) []string {
	var out []string
	for p, st := range s.Files {
		if now.Sub(time.Unix(0, st.ModNano)) < quiet {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// SkillChanges is the difference between two catalogs, by skill name, each
// list sorted. A skill is changed when its file moved or anything the
// model or the listing sees differs: description, body, roles, model tier,
// disable-model-invocation.
type SkillChanges struct {
	Added   []string `json:"added,omitempty"`
	Changed []string `json:"changed,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// Empty reports whether no skill changed.
func (c SkillChanges) Empty() bool {
	return len(c.Added) == 0 && len(c.Changed) == 0 && len(c.Removed) == 0
}

// String is a one-line account for the user, e.g. "added: a; changed: b,
// c; removed: d" ("" when nothing changed).
func (c SkillChanges) String() string {
	var parts []string
	for _, p := range []struct {
		label string
		names []string
	}{{"added", c.Added}, {"changed", c.Changed}, {"removed", c.Removed}} {
		if len(p.names) > 0 {
			parts = append(parts, p.label+": "+strings.Join(p.names, ", "))
		}
	}
	return strings.Join(parts, "; ")
}

// DiffSkills compares two lists of skills by name (the first of a name
// counts, as in a catalog). Either list may be nil.
func DiffSkills(old, next []*Skill) SkillChanges {
	index := func(ss []*Skill) map[string]*Skill {
		m := make(map[string]*Skill, len(ss))
		for _, s := range ss {
			if s != nil {
				if _, dup := m[s.Name]; !dup {
					m[s.Name] = s
				}
			}
		}
		return m
	}
	om, nm := index(old), index(next)
	var c SkillChanges
	for n, s := range nm {
		o, ok := om[n]
		switch {
		case !ok:
			c.Added = append(c.Added, n)
		case !sameSkill(o, s):
			c.Changed = append(c.Changed, n)
		}
	}
	for n := range om {
		if _, ok := nm[n]; !ok {
			c.Removed = append(c.Removed, n)
		}
	}
	sort.Strings(c.Added)
	sort.Strings(c.Changed)
	sort.Strings(c.Removed)
	return c
}

func sameSkill(a, b *Skill) bool {
	if a.Path != b.Path || a.Description != b.Description || a.Body != b.Body ||
		a.DisableModelInvocation != b.DisableModelInvocation || a.Role != b.Role ||
		a.ModelTier != b.ModelTier || len(a.Metadata) != len(b.Metadata) {
		return false
	}
	for k, v := range a.Metadata {
		if w, ok := b.Metadata[k]; !ok || w != v {
			return false
		}
	}
	return slices.Equal(a.Headings, b.Headings)
}

// Debounce spaces out checks: Ready says yes at most once per Interval.
// It reads no clock; the caller passes the time of each event, so it is
// deterministic under test. The zero value is ready on every call.
type Debounce struct {
	Interval time.Duration
	last     time.Time
	primed   bool
}

// Ready reports whether a check may run at now, and if so counts it as
// run. A clock that went backwards (now before the last check) allows a
// check, so a changed system time never stops checking for good.
func (d *Debounce) Ready(now time.Time) bool {
	if d.primed && !now.Before(d.last) && now.Sub(d.last) < d.Interval {
		return false
	}
	d.last, d.primed = now, true
	return true
}
