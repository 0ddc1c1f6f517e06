package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// walkCases are trees that exercise every rule of the walk, with what
// discovery must make of them.
var walkCases = []struct {
	name  string
	files map[string]string // as for tree
	roots []string          // scanned, in order, relative to the tree; "?name" is an automatic root
	extra []string          // host-listed files for the snapshot
	// skills are the files discovery loads, in catalog order.
	skills []string
	// rejected are files discovery finds but does not load (each gets a
	// diagnostic naming it); the snapshot watches them so a fix is seen.
	rejected []string
	// extraOnly are files the snapshot watches only because the host
	// listed them.
	extraOnly []string
}{
	{
		name: "tricky tree",
		files: map[string]string{
			"s/alpha/SKILL.md":               sk("alpha", "a"),
			"s/alpha/nested/SKILL.md":        sk("nested", "below a skill folder: never found"),
			"s/alpha/nested/deeper/SKILL.md": sk("deeper", "never found"),
			"s/alpha/notes.md":               sk("notes", "not a root file"),
			"s/.hidden/h/SKILL.md":           sk("h", "dot folder: skipped"),
			"s/.dotfile.md":                  sk("dotfile", "dot file: skipped"),
			"s/node_modules/n/SKILL.md":      sk("n", "node_modules: skipped"),
			"s/group/g/SKILL.md":             sk("g", "g"),
			"s/group/loop":                   "->..",
			"s/group/self":                   "->.",
			"s/out":                          "->../outside",
			"s/out-again":                    "->../outside",
			"outside/o/SKILL.md":             sk("o", "reached through a link to a folder outside"),
			"outside/loose.md":               sk("loose", "root file of a linked folder, which is not a root"),
			"outside/file-skill.md":          sk("linked", "reached as a linked SKILL.md"),
			"s/linked/SKILL.md":              "->../../outside/file-skill.md",
			"s/linked/under/SKILL.md":        sk("under", "below a linked SKILL.md: never found"),
			"s/deeper/up":                    "->../..",
			"s/broken":                       "->../nowhere",
			"s/root.md":                      sk("s", "a root file"),
			"s/notes.txt":                    "not markdown",
			"s/zlink.md":                     "->alpha/SKILL.md",
			"s/bad/SKILL.md":                 sk("bad", `""`),
			"s/big/SKILL.md":                 sk("big", "b") + strings.Repeat("x", MaxFileSize),
		},
		roots:    []string{"s", "?missing"},
		skills:   []string{"s/alpha/SKILL.md", "s/group/g/SKILL.md", "s/linked/SKILL.md", "s/out/o/SKILL.md", "s/root.md"},
		rejected: []string{"s/bad/SKILL.md", "s/big/SKILL.md"},
	},
	{
		name: "two roots sharing a folder",
		files: map[string]string{
			"a/x/SKILL.md":   sk("x", "x"),
			"b/via":          "->../a/x",
			"b/y/SKILL.md":   sk("y", "y"),
			"b/top.md":       "->../a/x/SKILL.md",
			"b/z/w/SKILL.md": sk("w", "w"),
		},
		roots:  []string{"a", "b"},
		skills: []string{"a/x/SKILL.md", "b/y/SKILL.md", "b/z/w/SKILL.md"},
	},
	{
		name: "file roots, a skill folder as root, host extras",
		files: map[string]string{
			"one.md":             sk("one", "a single file given as a root"),
			"notes.txt":          "not markdown",
			"dir-skill/SKILL.md": sk("dir-skill", "a root that is a skill folder"),
			"dir-skill/other.md": sk("other", "beside SKILL.md: the scan stopped"),
			"far/SKILL.md":       sk("far", "outside every root"),
		},
		roots:     []string{"one.md", "notes.txt", "dir-skill"},
		extra:     []string{"far/SKILL.md", "gone/SKILL.md", "one.md"},
		skills:    []string{"one.md", "dir-skill/SKILL.md"},
		extraOnly: []string{"far/SKILL.md"},
	},
}

func walkCaseRoots(base string, roots []string) []Root {
	var out []Root
	for _, r := range roots {
		p, auto := strings.CutPrefix(r, "?")
		out = append(out, Root{Path: filepath.Join(base, filepath.FromSlash(p)), Source: SourcePath, Auto: auto})
	}
	return out
}

// TestSnapshotMatchesDiscovery runs Discover and TakeSnapshot over the
// same trees: the snapshot must stat exactly the files discovery found
// (loaded or rejected) plus the host's extras, with their current stamps.
func TestSnapshotMatchesDiscovery(t *testing.T) {
	for _, tc := range walkCases {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			tree(t, base, tc.files)
			rel := func(p string) string {
				r, err := filepath.Rel(base, p)
				if err != nil {
					return p
				}
				return filepath.ToSlash(r)
			}
			roots := walkCaseRoots(base, tc.roots)
			var paths []string
			for _, r := range tc.roots {
				paths = append(paths, filepath.Join(base, filepath.FromSlash(strings.TrimPrefix(r, "?"))))
			}
			c := Discover(Options{Paths: paths})
			var gotSkills []string
			loaded := map[string]bool{}
			for _, s := range c.Skills {
				gotSkills = append(gotSkills, rel(s.Path))
				loaded[rel(s.Path)] = true
			}
			if diff := cmp.Diff(tc.skills, gotSkills); diff != "" {
				t.Errorf("discovered skills (-want +got):\n%s", diff)
			}
			named := map[string]bool{} // paths discovery has a diagnostic about
			for _, d := range c.Diagnostics {
				named[rel(d.Path)] = true
			}
			for _, p := range tc.rejected {
				if !named[p] || loaded[p] {
					t.Errorf("%s: want it rejected with a diagnostic (loaded %v)", p, loaded[p])
				}
			}

			var extra []string
			for _, p := range tc.extra {
				extra = append(extra, filepath.Join(base, filepath.FromSlash(p)))
			}
			snap := TakeSnapshot(roots, extra)
			var got []string
			for p, st := range snap.Files {
				got = append(got, rel(p))
				fi, err := os.Stat(p)
				if err != nil {
					t.Errorf("%s: in the snapshot but: %v", rel(p), err)
					continue
				}
				if want := (Stamp{Size: fi.Size(), ModNano: fi.ModTime().UnixNano()}); st != want {
					t.Errorf("%s: stamp %+v, want %+v", rel(p), st, want)
				}
			}
			want := append(append(append([]string(nil), tc.skills...), tc.rejected...), tc.extraOnly...)
			if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("snapshot files (-want +got):\n%s", diff)
			}
			// Derived from discovery alone: every file the snapshot holds
			// that is not a host extra is a skill discovery loaded or a
			// file it has a diagnostic about, and every loaded skill is
			// held.
			isExtra := map[string]bool{}
			for _, p := range tc.extra {
				isExtra[p] = true
			}
			inSnap := map[string]bool{}
			for _, p := range got {
				inSnap[p] = true
				if !isExtra[p] && !loaded[p] && !named[p] {
					t.Errorf("%s: in the snapshot, unknown to discovery", p)
				}
			}
			for p := range loaded {
				if !inSnap[p] {
					t.Errorf("%s: discovered but not in the snapshot", p)
				}
			}
		})
	}
}

// walkFiles lists, in order, the files (path and real path, relative to
// base) a walk with the given probe yields; release also frees the probe
// results it is given.
func walkFiles[P any](base string, roots []Root, probe func(string) (P, bool), release func(P)) []string {
	var out []string
	w := walk[P]{visited: map[string]bool{}, seen: map[string]bool{}, probe: probe, release: release,
		file: func(path, real, _ string, p P, probed bool) {
			p1, _ := filepath.Rel(base, path)
			p2, _ := filepath.Rel(base, real)
			out = append(out, filepath.ToSlash(p1)+" = "+filepath.ToSlash(p2))
			if probed && release != nil {
				release(p)
			}
		}}
	for _, r := range roots {
		w.root(r)
	}
	return out
}

// TestWalkProbeIsOnlyAShortcut: the probe may decline anything (it always
// does where a file cannot be opened without following links), and the
// folder listing must then find the same files in the same order.
func TestWalkProbeIsOnlyAShortcut(t *testing.T) {
	for _, tc := range walkCases {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			tree(t, base, tc.files)
			roots := walkCaseRoots(base, tc.roots)
			open := 0 // probe results not yet released
			withOpen := walkFiles(base, roots, func(p string) (handle, bool) {
				h, ok := openRegular(p)
				if ok {
					open++
				}
				return h, ok
			}, func(h handle) { h.close(); open-- })
			withStat := walkFiles(base, roots, lstatRegular, nil)
			declining := walkFiles(base, roots, func(string) (struct{}, bool) { return struct{}{}, false }, nil)
			if len(declining) == 0 {
				t.Fatal("the walk found nothing")
			}
			if diff := cmp.Diff(declining, withOpen); diff != "" {
				t.Errorf("open probe vs listing only (-listing +probe):\n%s", diff)
			}
			if diff := cmp.Diff(declining, withStat); diff != "" {
				t.Errorf("stat probe vs listing only (-listing +probe):\n%s", diff)
			}
			if open != 0 {
				t.Errorf("%d probe results neither handed on nor released", open)
			}
		})
	}
}
