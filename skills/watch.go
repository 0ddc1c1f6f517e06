package skills

import (
	"io/fs"
	"os"
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

// TakeSnapshot stats each skill file Discover would find under roots
// (it walks them with discovery's own rules, so hidden entries and
// node_modules are skipped, a folder holding SKILL.md is not descended,
// links are followed once per real folder and a file reached twice is
// taken under the path met first) without reading any file; extra names
// more files to stat (skills the host listed from places outside roots).
// A file that fails to load is still stat'ed, so that fixing it shows as
// a change. A missing root or file is simply absent from the snapshot.
func TakeSnapshot(roots []Root, extra []string) Snapshot {
	return TakeSnapshotKnown(roots, extra, nil)
}

// TakeSnapshotKnown is TakeSnapshot taking the stamps known says it has
// (a caller that has just lstat'ed the files) instead of a system call:
// known(path) reports the stamp of path when path is a regular file
// reached through no symbolic link. It may decline any path; a path it
// declines is stat'ed. known may be nil.
func TakeSnapshotKnown(roots []Root, extra []string, known func(path string) (Stamp, bool)) Snapshot {
	s := Snapshot{Files: map[string]Stamp{}}
	probe := lstatRegular
	if known != nil {
		probe = func(path string) (Stamp, bool) {
			if st, ok := known(path); ok {
				return st, true
			}
			return lstatRegular(path)
		}
	}
	w := walk[Stamp]{
		visited: map[string]bool{},
		seen:    map[string]bool{},
		probe:   probe,
		file: func(path, _, _ string, st Stamp, probed bool) {
			if probed {
				s.Files[path] = st
				return
			}
			s.stat(path)
		},
	}
	for _, r := range roots {
		w.root(r)
	}
	for _, p := range extra {
		if _, ok := s.Files[p]; ok {
			continue
		}
		if known != nil {
			if st, ok := known(p); ok {
				s.Files[p] = st
				continue
			}
		}
		s.stat(p)
	}
	return s
}

func stampOf(st fs.FileInfo) Stamp {
	return Stamp{Size: st.Size(), ModNano: st.ModTime().UnixNano()}
}

// lstatRegular is the snapshot's probe: the stamp of path when it is a
// regular file and not a link.
func lstatRegular(path string) (Stamp, bool) {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return Stamp{}, false
	}
	return stampOf(st), true
}

// stat records path's stamp when it is a regular file (through links).
func (s Snapshot) stat(path string) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return
	}
	s.Files[path] = stampOf(st)
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
