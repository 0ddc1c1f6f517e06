package skills

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func writeSkillAt(t *testing.T, path, name, body string, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	data := "---\nname: " + name + "\ndescription: " + name + " things\n---\n" + body
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func TestSnapshotDiff(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	type step struct {
		name string
		do   func(t *testing.T, root string)
		want FileChanges
	}
	rel := func(root string, c FileChanges) FileChanges {
		f := func(ps []string) []string {
			var out []string
			for _, p := range ps {
				r, _ := filepath.Rel(root, p)
				out = append(out, r)
			}
			return out
		}
		return FileChanges{Added: f(c.Added), Changed: f(c.Changed), Removed: f(c.Removed)}
	}
	steps := []step{
		{"nothing", func(t *testing.T, root string) {}, FileChanges{}},
		{"same size, new mtime", func(t *testing.T, root string) {
			writeSkillAt(t, filepath.Join(root, "alpha", "SKILL.md"), "alpha", "body A\n", t0.Add(time.Second))
		}, FileChanges{Changed: []string{"alpha/SKILL.md"}}},
		{"same mtime, new size", func(t *testing.T, root string) {
			writeSkillAt(t, filepath.Join(root, "alpha", "SKILL.md"), "alpha", "body A longer\n", t0.Add(time.Second))
		}, FileChanges{Changed: []string{"alpha/SKILL.md"}}},
		{"added in a nested folder", func(t *testing.T, root string) {
			writeSkillAt(t, filepath.Join(root, "group", "gamma", "SKILL.md"), "gamma", "body G\n", t0)
		}, FileChanges{Added: []string{"group/gamma/SKILL.md"}}},
		{"removed", func(t *testing.T, root string) {
			if err := os.RemoveAll(filepath.Join(root, "beta")); err != nil {
				t.Fatal(err)
			}
		}, FileChanges{Removed: []string{"beta/SKILL.md"}}},
		{"hidden and node_modules ignored, root .md counted", func(t *testing.T, root string) {
			writeSkillAt(t, filepath.Join(root, ".hidden", "SKILL.md"), "hidden", "x\n", t0)
			writeSkillAt(t, filepath.Join(root, "node_modules", "n", "SKILL.md"), "n", "x\n", t0)
			writeSkillAt(t, filepath.Join(root, "loose.md"), "loose", "x\n", t0)
			writeSkillAt(t, filepath.Join(root, "alpha", "notes.md"), "notes", "x\n", t0)
		}, FileChanges{Added: []string{"loose.md"}}},
		{"replaced by rename, same size and mtime", func(t *testing.T, root string) {
			p := filepath.Join(root, "group", "gamma", "SKILL.md")
			tmp := p + ".tmp"
			writeSkillAt(t, tmp, "gamma", "body G\n", t0)
			if err := os.Rename(tmp, p); err != nil {
				t.Fatal(err)
			}
		}, FileChanges{}},
		{"several at once", func(t *testing.T, root string) {
			writeSkillAt(t, filepath.Join(root, "beta", "SKILL.md"), "beta", "back\n", t0)
			if err := os.Remove(filepath.Join(root, "loose.md")); err != nil {
				t.Fatal(err)
			}
			writeSkillAt(t, filepath.Join(root, "group", "gamma", "SKILL.md"), "gamma", "body G2\n", t0)
		}, FileChanges{Added: []string{"beta/SKILL.md"}, Changed: []string{"group/gamma/SKILL.md"}, Removed: []string{"loose.md"}}},
	}
	root := t.TempDir()
	writeSkillAt(t, filepath.Join(root, "alpha", "SKILL.md"), "alpha", "body A\n", t0)
	writeSkillAt(t, filepath.Join(root, "beta", "SKILL.md"), "beta", "body B\n", t0)
	roots := []Root{{Path: root, Source: SourcePath}, {Path: filepath.Join(root, "missing"), Auto: true}}
	prev := TakeSnapshot(roots, nil)
	if len(prev.Files) != 2 {
		t.Fatalf("first snapshot: %v", prev.Files)
	}
	for _, s := range steps {
		s.do(t, root)
		next := TakeSnapshot(roots, nil)
		got := rel(root, prev.Diff(next))
		want := s.want
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: diff (-want +got):\n%s", s.name, diff)
		}
		if got.Empty() != (len(want.Added)+len(want.Changed)+len(want.Removed) == 0) {
			t.Errorf("%s: Empty() = %v", s.name, got.Empty())
		}
		prev = next
	}
}

func TestSnapshotExtraAndLinks(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	root := t.TempDir()
	other := t.TempDir()
	writeSkillAt(t, filepath.Join(other, "far", "SKILL.md"), "far", "far body\n", t0)
	writeSkillAt(t, filepath.Join(root, "real", "SKILL.md"), "real", "real body\n", t0)
	if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(root, "real2")); err != nil { // a loop
		t.Fatal(err)
	}
	extra := filepath.Join(other, "far", "SKILL.md")
	s := TakeSnapshot([]Root{{Path: root}}, []string{extra, filepath.Join(other, "gone", "SKILL.md")})
	var got []string
	for p := range s.Files {
		r, err := filepath.Rel(root, p)
		if err != nil || r[0] == '.' {
			r = "extra:" + filepath.Base(filepath.Dir(p))
		}
		got = append(got, r)
	}
	// The linked folder is the same real folder: taken once, under the
	// name met first (ReadDir order: "link" before "real").
	want := []string{"extra:far", "link/SKILL.md"}
	if diff := cmp.Diff(want, got, cmpSortStrings); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// cmpSortStrings compares string slices without regard to their order.
var cmpSortStrings = cmpopts.SortSlices(func(a, b string) bool { return a < b })

func TestUnsettled(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := Snapshot{Files: map[string]Stamp{
		"old":    {ModNano: now.Add(-time.Minute).UnixNano()},
		"fresh":  {ModNano: now.Add(-100 * time.Millisecond).UnixNano()},
		"future": {ModNano: now.Add(time.Hour).UnixNano()},
		"edge":   {ModNano: now.Add(-time.Second).UnixNano()},
	}}
	got := s.Unsettled(now, time.Second)
	if diff := cmp.Diff([]string{"fresh", "future"}, got); diff != "" {
		t.Errorf("unsettled (-want +got):\n%s", diff)
	}
	// With no quiet time only a modification time in the future counts.
	if diff := cmp.Diff([]string{"future"}, s.Unsettled(now, 0)); diff != "" {
		t.Errorf("quiet 0 (-want +got):\n%s", diff)
	}
}

func TestDiffSkills(t *testing.T) {
	base := func(name, body string) *Skill {
		return &Skill{Name: name, Description: name + " d", Path: "/s/" + name + "/SKILL.md", Body: body}
	}
	a, b, c := base("a", "A"), base("b", "B"), base("c", "C")
	b2 := base("b", "B edited")
	c2 := base("c", "C")
	c2.Metadata = map[string]string{"role": "helper"}
	a2 := base("a", "A")
	a2.Path = "/elsewhere/a/SKILL.md"
	dupA := base("a", "shadowed, ignored")
	tests := []struct {
		name      string
		old, next []*Skill
		want      SkillChanges
		text      string
	}{
		{"same", []*Skill{a, b}, []*Skill{base("a", "A"), base("b", "B")}, SkillChanges{}, ""},
		{"body edit", []*Skill{a, b}, []*Skill{a, b2}, SkillChanges{Changed: []string{"b"}}, "changed: b"},
		{"metadata and move", []*Skill{a, c}, []*Skill{a2, c2}, SkillChanges{Changed: []string{"a", "c"}}, "changed: a, c"},
		{"add and remove", []*Skill{a, b}, []*Skill{c, a}, SkillChanges{Added: []string{"c"}, Removed: []string{"b"}}, "added: c; removed: b"},
		{"second of a name ignored", []*Skill{a}, []*Skill{a, dupA, nil}, SkillChanges{}, ""},
		{"from nothing", nil, []*Skill{b, a}, SkillChanges{Added: []string{"a", "b"}}, "added: a, b"},
	}
	for _, tt := range tests {
		got := DiffSkills(tt.old, tt.next)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if got.String() != tt.text {
			t.Errorf("%s: String() = %q, want %q", tt.name, got.String(), tt.text)
		}
		if got.Empty() != (tt.text == "") {
			t.Errorf("%s: Empty() = %v", tt.name, got.Empty())
		}
	}
}

func TestDebounce(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d := Debounce{Interval: 2 * time.Second}
	steps := []struct {
		at   time.Duration
		want bool
	}{
		{0, true},                        // first check
		{time.Second, false},             // too soon
		{1999 * time.Millisecond, false}, // still too soon
		{2 * time.Second, true},          // interval passed
		{3 * time.Second, false},
		{-time.Hour, true}, // clock went back: allowed, and counted from there
		{-time.Hour + time.Second, false},
		{10 * time.Second, true},
	}
	for i, s := range steps {
		if got := d.Ready(t0.Add(s.at)); got != s.want {
			t.Errorf("step %d (%v): Ready = %v, want %v", i, s.at, got, s.want)
		}
	}
	var zero Debounce
	for i := 0; i < 3; i++ {
		if !zero.Ready(t0) {
			t.Errorf("zero Debounce not ready at call %d", i)
		}
	}
}

// BenchmarkTakeSnapshot measures the stat check that runs before a user
// prompt, on a generated pack of 1,000 skills.
func BenchmarkTakeSnapshot(b *testing.B) {
	dir := b.TempDir()
	if _, err := GenerateSkills(dir, 1000); err != nil {
		b.Fatal(err)
	}
	roots := []Root{{Path: dir, Source: SourcePath}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if s := TakeSnapshot(roots, nil); len(s.Files) != 1000 {
			b.Fatalf("%d files", len(s.Files))
		}
	}
}

// TestSnapshotKnown: the stamps a caller knows are taken instead of a
// stat (a probed skill file and an extra file alike), the others are
// stat'ed, and the snapshot holds the same files as without them.
func TestSnapshotKnown(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	root := t.TempDir()
	other := t.TempDir()
	a := filepath.Join(root, "a", "SKILL.md")
	b := filepath.Join(root, "b", "SKILL.md")
	far := filepath.Join(other, "far", "SKILL.md")
	near := filepath.Join(other, "near", "SKILL.md")
	for _, p := range []string{a, b, far, near} {
		writeSkillAt(t, p, filepath.Base(filepath.Dir(p)), "body\n", t0)
	}
	roots, extra := []Root{{Path: root}}, []string{a, far, near}
	plain := TakeSnapshot(roots, extra)
	told := Stamp{Size: 1, ModNano: 2} // no file's: it shows where known was used
	asked := map[string]bool{}
	s := TakeSnapshotKnown(roots, extra, func(p string) (Stamp, bool) {
		asked[p] = true
		return told, p == a || p == far
	})
	for _, p := range []string{a, b, far, near} {
		want := plain.Files[p]
		if p == a || p == far {
			want = told
		}
		if got, ok := s.Files[p]; !ok || got != want {
			t.Errorf("%s: stamp %v (%v), want %v", p, got, ok, want)
		}
	}
	if len(s.Files) != len(plain.Files) {
		t.Errorf("%d files, %d without known", len(s.Files), len(plain.Files))
	}
	if !asked[b] || !asked[near] {
		t.Errorf("known not asked for every file: %v", asked)
	}
}
