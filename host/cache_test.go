package host

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/skill-lifecycle/skill-lifecycle/internal/gen"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// cacheTest is a small catalogue cached as a large one would be, in a
// cache folder of the test's.
func cacheTest(t *testing.T) (src Source, file string) {
	t.Helper()
	old := cacheMinSkills
	cacheMinSkills = 1
	t.Cleanup(func() { cacheMinSkills = old })
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv(cacheEnv, "")
	agent := t.TempDir()
	root := filepath.Join(agent, "skills")
	list := []HostSkill{
		writeTestSkill(t, root, "a-x", "Load b-y first.\n\n# Steps\n\nRun it.\n"),
		writeTestSkill(t, root, "b-y", "Use `a-x` after; do not load c-z.\n"),
		writeTestSkill(t, root, "c-z", "# Only\n\nNothing else.\n"),
	}
	return Source{Skills: list, Cwd: t.TempDir(), AgentDir: agent}, cacheFile(list)
}

// loadCounting is Load(src) and how many skills it took from the cache,
// once the cache it writes is written.
func loadCounting(src Source) (*World, int) {
	before := cacheHits.Load()
	w := Load(src)
	cacheWrites.Wait()
	return w, int(cacheHits.Load() - before)
}

// TestCacheRereadsChangedFile: a second build takes every skill from the
// cache file (written 0600); a file rewritten with the same size and a
// new mtime, or with its mtime put back, is read again.
func TestCacheRereadsChangedFile(t *testing.T) {
	src, file := cacheTest(t)
	if _, hits := loadCounting(src); hits != 0 {
		t.Fatalf("first build: %d hits, want 0", hits)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatalf("no cache file written: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode %v, want 0600", fi.Mode().Perm())
	}
	if _, hits := loadCounting(src); hits != 3 {
		t.Fatalf("second build: %d hits, want 3", hits)
	}
	p := src.Skills[2].Path
	data, _ := os.ReadFile(p)
	fi, _ = os.Stat(p)
	mt := fi.ModTime().Add(time.Second)
	// The same size each time; the second edit puts the mtime back, so
	// only the ctime tells.
	for _, desc := range []string{"c-z THINGS", "c-z STUFFS"} {
		edited := strings.Replace(string(data), "c-z things", desc, 1)
		if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
		w, hits := loadCounting(src)
		if got := w.Parsed["c-z"].Description; got != desc || hits != 2 {
			t.Errorf("description %q with %d hits, want %q with 2", got, hits, desc)
		}
	}
}

// TestCacheBadFileRebuilt: a truncated or foreign cache file, or one of a
// future format, is ignored with one diagnostic naming it, the skills are
// read, and the file is rebuilt; a corrupt record (its checksum) is
// ignored the same way, the others used.
func TestCacheBadFileRebuilt(t *testing.T) {
	src, file := cacheTest(t)
	want, _ := loadCounting(src)
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte{}, good...)
	flipped[len(flipped)/2] ^= 0x20
	future := append([]byte(cacheMagic), 99)
	for name, data := range map[string][]byte{
		"corrupt":   flipped,
		"truncated": good[:len(good)-7],
		"foreign":   []byte("{\"not\": \"a cache\"}\n"),
		"future":    future,
		"empty":     nil,
	} {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		w, hits := loadCounting(src)
		var found []string
		for _, d := range w.Diagnostics {
			if strings.Contains(d, file) {
				found = append(found, d)
			}
		}
		wantHits := 0
		if name == "corrupt" {
			wantHits = 2 // the byte flipped is in the second record
		}
		if len(found) != 1 || hits != wantHits {
			t.Errorf("%s: %d hits and diagnostics %q, want %d and one naming %s", name, hits, w.Diagnostics, wantHits, file)
		}
		if d := cmp.Diff(want.Parsed, w.Parsed); d != "" {
			t.Errorf("%s: skills differ (-good +bad cache):\n%s", name, d)
		}
		if w, hits := loadCounting(src); hits != 3 || len(w.Diagnostics) != 0 {
			t.Errorf("%s: after the rebuild %d hits, diagnostics %q; want 3, none", name, hits, w.Diagnostics)
		}
	}
}

// TestCacheFileSpecial: a cache file that is a named pipe or a symbolic
// link is neither waited on nor followed: one diagnostic, the skills
// read, the link's target left alone, the file replaced by a real one.
func TestCacheFileSpecial(t *testing.T) {
	for _, kind := range []string{"fifo", "symlink"} {
		t.Run(kind, func(t *testing.T) {
			src, file := cacheTest(t)
			want, _ := loadCounting(src)
			good, _ := os.ReadFile(file)
			target := filepath.Join(t.TempDir(), "target")
			if err := os.WriteFile(target, good, 0o600); err != nil {
				t.Fatal(err)
			}
			os.Remove(file)
			if kind == "fifo" {
				if err := syscall.Mkfifo(file, 0o600); err != nil {
					t.Fatal(err)
				}
			} else if err := os.Symlink(target, file); err != nil {
				t.Fatal(err)
			}
			done := make(chan *World)
			go func() { w, _ := loadCounting(src); done <- w }()
			var w *World
			select {
			case w = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("Load hangs on a cache file that is a " + kind)
			}
			if d := strings.Join(w.Diagnostics, "\n"); strings.Count(d, file) != 1 {
				t.Errorf("diagnostics %q, want one naming %s", w.Diagnostics, file)
			}
			if d := cmp.Diff(want.Parsed, w.Parsed); d != "" {
				t.Errorf("skills differ:\n%s", d)
			}
			if fi, err := os.Lstat(file); err != nil || !fi.Mode().IsRegular() {
				t.Errorf("cache file not replaced by a regular file: %v, %v", fi, err)
			}
			if after, _ := os.ReadFile(target); string(after) != string(good) {
				t.Errorf("the link's target was written")
			}
		})
	}
}

// TestCacheOffOrUnwritable: SKILL_LIFECYCLE_CACHE=off writes no cache;
// a cache folder that cannot be made is no diagnostic.
func TestCacheOffOrUnwritable(t *testing.T) {
	src, file := cacheTest(t)
	t.Setenv(cacheEnv, "off")
	if w, _ := loadCounting(src); len(w.Diagnostics) != 0 {
		t.Errorf("diagnostics %q", w.Diagnostics)
	}
	if _, err := os.Lstat(file); !os.IsNotExist(err) {
		t.Errorf("cache file written with the cache off: %v", err)
	}
	t.Setenv(cacheEnv, "")
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", notDir)
	if w, _ := loadCounting(src); len(w.Diagnostics) != 0 || len(w.Parsed) != 3 {
		t.Errorf("unwritable cache folder: %d skills, diagnostics %q", len(w.Parsed), w.Diagnostics)
	}
}

// TestCacheSameWorld1k: at 1,000 generated skills the world built from a
// warm cache is the one built without it: skills, catalog, listing and
// rankings.
func TestCacheSameWorld1k(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	agent := t.TempDir()
	dir := filepath.Join(agent, "skills")
	pack := gen.Pack(gen.Options{N: 1000, Seed: 30})
	if err := gen.Write(dir, pack); err != nil {
		t.Fatal(err)
	}
	var list []HostSkill
	for _, s := range pack {
		list = append(list, HostSkill{Name: s.Name, Description: s.Description, Path: filepath.Join(dir, s.Name, "SKILL.md")})
	}
	src := Source{Skills: list, Cwd: t.TempDir(), AgentDir: agent}
	t.Setenv(cacheEnv, "off")
	want, _ := loadCounting(src)
	t.Setenv(cacheEnv, "")
	loadCounting(src)
	got, hits := loadCounting(src)
	if hits != len(list) {
		t.Fatalf("%d hits, want %d", hits, len(list))
	}
	if d := cmp.Diff(want.Parsed, got.Parsed); d != "" {
		t.Errorf("skills differ (-no cache +cache):\n%s", d)
	}
	if d := cmp.Diff(want.Catalog, got.Catalog, cmpopts.IgnoreFields(lifecycle.Catalog{}, "Ranker")); d != "" {
		t.Errorf("catalog differs (-no cache +cache):\n%s", d)
	}
	if a, b := want.listing(200000).Section, got.listing(200000).Section; a != b {
		t.Errorf("listing differs (%d and %d characters)", len(a), len(b))
	}
	for _, prompt := range []string{"export the data to csv", "train a model", pack[7].Description} {
		if d := cmp.Diff(want.Catalog.Ranker.Rank(prompt, 0), got.Catalog.Ranker.Rank(prompt, 0)); d != "" {
			t.Errorf("ranking of %q differs (-no cache +cache):\n%s", prompt, d)
		}
	}
}

// TestCacheOtherBinaryIgnored: a cache another build of the binary wrote
// (whose parser may differ) is not used, and rebuilt without a diagnostic.
func TestCacheOtherBinaryIgnored(t *testing.T) {
	src, file := cacheTest(t)
	loadCounting(src)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data[len(cacheMagic)+1] ^= 1 // the first byte of the binary's id
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	// Not read past its header (at 100,000 skills, 600 MB after an
	// upgrade).
	if got, err := readCacheFile(file, 1<<30); !errors.Is(err, errOtherBinary) || got != nil {
		t.Errorf("readCacheFile: %d bytes, %v; want none, %v", len(got), err, errOtherBinary)
	}
	if cacheOfThisBinary(file) {
		t.Error("another binary's cache taken for this one's: its start-up would lstat every file for nothing")
	}
	if w, hits := loadCounting(src); hits != 0 || len(w.Diagnostics) != 0 {
		t.Errorf("another binary's cache: %d hits, diagnostics %q; want 0, none", hits, w.Diagnostics)
	}
	if _, hits := loadCounting(src); hits != 3 || !cacheOfThisBinary(file) {
		t.Errorf("after the rebuild: %d hits, this binary's %v; want 3, true", hits, cacheOfThisBinary(file))
	}
}

// TestCachePrunesLeftovers: writing a cache removes the temporary files
// of writers stopped over an hour ago and cache files unused for 30
// days, and keeps the others.
func TestCachePrunesLeftovers(t *testing.T) {
	src, file := cacheTest(t)
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	old := map[string]time.Duration{"start-a.tmp": 2 * time.Hour, "start-b.tmp": time.Minute, "start-c.cache": 31 * 24 * time.Hour, "start-d.cache": 29 * 24 * time.Hour, "other.tmp": 48 * time.Hour}
	for name, age := range old {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		mt := time.Now().Add(-age)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	loadCounting(src)
	for name, gone := range map[string]bool{"start-a.tmp": true, "start-b.tmp": false, "start-c.cache": true, "start-d.cache": false, "other.tmp": false} {
		if _, err := os.Stat(filepath.Join(dir, name)); os.IsNotExist(err) != gone {
			t.Errorf("%s: removed %v, want %v", name, os.IsNotExist(err), gone)
		}
	}
}
