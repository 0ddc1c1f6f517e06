package skills

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResolverMatchesEvalSymlinks: the Resolver resolves every kind of
// path as filepath.EvalSymlinks does (a linked skill folder, a linked
// parent, a linked file, a dangling link, ".." after a link, a relative
// path), also when asked again from its memory, and ReadSkillWith refuses
// a file that leaves its folder as ReadSkill does.
func TestResolverMatchesEvalSymlinks(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	body := "---\nname: a\ndescription: d\n---\nbody\n"
	mk("real/skills/a/SKILL.md", body)
	mk("real/skills/b/SKILL.md", body)
	mk("outside/secret.md", body)
	mk("real/skills/c/notes.md", body)
	link(filepath.Join(root, "real"), "linked")
	link(filepath.Join(root, "real/skills/a"), "real/skills/a2")
	link(filepath.Join(root, "outside/secret.md"), "real/skills/c/SKILL.md")
	link(filepath.Join(root, "nowhere"), "real/skills/dangling")
	paths := []string{
		filepath.Join(root, "real/skills/a/SKILL.md"),
		filepath.Join(root, "linked/skills/b/SKILL.md"),
		filepath.Join(root, "linked/skills/a2/SKILL.md"),
		filepath.Join(root, "real/skills/c/SKILL.md"),
		filepath.Join(root, "real/skills/dangling/SKILL.md"),
		filepath.Join(root, "real/skills/missing/SKILL.md"),
		filepath.Join(root, "real/skills/a2/../b/SKILL.md"),
		filepath.Join(root, "real/skills/a"),
		"real/skills/a/SKILL.md",
		root + "/linked/skills/a2/../../skills/b/SKILL.md",
	}
	r := NewResolver()
	for pass := range 2 {
		for _, p := range paths {
			want, wantErr := filepath.EvalSymlinks(p)
			got, err := r.EvalSymlinks(p)
			if got != want || (err == nil) != (wantErr == nil) {
				t.Errorf("pass %d: %s: got %q, %v; filepath.EvalSymlinks %q, %v", pass, p, got, err, want, wantErr)
			}
		}
	}
	_, _, err := ReadSkillWith(r, filepath.Join(root, "real/skills/c/SKILL.md"))
	if !errors.Is(err, ErrOutside) {
		t.Errorf("a SKILL.md linked outside its folder: %v, want ErrOutside", err)
	}
	if s, _, err := ReadSkillWith(r, filepath.Join(root, "linked/skills/a2/SKILL.md")); err != nil || s.Body == "" {
		t.Errorf("a linked skill folder: %v", err)
	}
}

// TestReadSkillSharesOnlyItsOwnBuffer: a read skill's body and headings
// share the buffer it was read into, so no later read (a larger file,
// then a smaller one) may reuse it: each stays as Parse makes it from a
// copy of the file.
func TestReadSkillSharesOnlyItsOwnBuffer(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(root, name, "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	paths := []string{
		write("a-one", "---\nname: a-one\ndescription: First — é\nmetadata:\n  role: entry\n---\n# Alpha\n\nLoad b-two.\n"),
		write("b-two", "---\nname: b-two\ndescription: >\n  Second, longer\n  than the first one by far\n---\n# Beta\n\n"+strings.Repeat("Text of b. ", 400)+"\n## End\n"),
		write("c-three", "---\nname: c-three\ndescription: 'quoted'\n---\n# C\n\n"+strings.Repeat("Text of c. ", 40)),
	}
	res := NewResolver()
	var got []*Skill
	for _, p := range append(paths, paths...) {
		s, _, err := ReadSkillWith(res, p)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	for i, s := range got {
		p := paths[i%len(paths)]
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Parse(p, data)
		want.RealPath = s.RealPath
		if diff := cmp.Diff(want, s); diff != "" {
			t.Errorf("%s (read %d) differs (-Parse +ReadSkillWith):\n%s", p, i, diff)
		}
	}
}

// TestResolverLstat: Lstat resolves as EvalSymlinks does and gives the
// lstat of the file resolved to (never of a link), remembered or not.
func TestResolverLstat(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "a", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a", filepath.Join(dir, "b")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("SKILL.md", filepath.Join(dir, "a", "LINK.md")); err != nil {
		t.Fatal(err)
	}
	r := NewResolver()
	for _, p := range []string{real, filepath.Join(dir, "b", "SKILL.md"), filepath.Join(dir, "b", "LINK.md"), filepath.Join(dir, "b", "LINK.md")} {
		want, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		got, fi, err := r.Lstat(p)
		if err != nil || got != want || !fi.Mode().IsRegular() || fi.Size() != 1 {
			t.Errorf("Lstat(%s) = %q, %v, %v; want %q, a regular file of 1 byte", p, got, fi, err, want)
		}
	}
	if _, _, err := r.Lstat(filepath.Join(dir, "b", "missing.md")); err == nil {
		t.Error("Lstat of a missing file: no error")
	}
}

// TestReadSkillStat: ReadSkillStat reads a skill as ReadSkillWith does
// and says of its file what Lstat says of it, whether it takes that from
// the open file (a plain file, in a plain or a linked folder) or falls
// back to Lstat (a linked file, one that leaves its folder, a named pipe,
// a missing file).
func TestReadSkillStat(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(dir, rel)); err != nil {
			t.Fatal(err)
		}
	}
	skill := "---\nname: a\ndescription: does a\n---\n# A\nbody\n"
	write("a/SKILL.md", skill)
	write("a/OTHER.md", skill)
	write("outside/SKILL.md", skill)
	link("a", "b")                // a linked folder
	link("OTHER.md", "a/LINK.md") // a linked file in its folder
	if err := os.MkdirAll(filepath.Join(dir, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	link("../outside/SKILL.md", "c/SKILL.md") // leaves its folder
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "p", "SKILL.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path    string
		readErr bool // found, but not read
		missing bool
	}{
		{path: "a/SKILL.md"},
		{path: "b/SKILL.md"},
		{path: "b/LINK.md"},
		{path: "c/SKILL.md", readErr: true},
		{path: "p/SKILL.md", readErr: true},
		{path: "a/missing.md", missing: true},
	} {
		p := filepath.Join(dir, c.path)
		r := NewResolver()
		s, real, fi, err := ReadSkillStat(r, p)
		wantReal, wantFI, lerr := NewResolver().Lstat(p)
		if c.missing {
			if err == nil || lerr == nil || fi != nil {
				t.Errorf("%s: err %v, fi %v; want an error and no file", c.path, err, fi)
			}
			continue
		}
		if lerr != nil {
			t.Fatal(lerr)
		}
		if real != wantReal || fi == nil || fi.Size() != wantFI.Size() || fi.Mode() != wantFI.Mode() || !fi.ModTime().Equal(wantFI.ModTime()) || !sameInode(fi, wantFI) {
			t.Errorf("%s: real %q, %v; want %q, %v", c.path, real, fi, wantReal, wantFI)
		}
		if c.readErr {
			if err == nil || s != nil {
				t.Errorf("%s: read with no error", c.path)
			}
			continue
		}
		want, _, werr := ReadSkillWith(NewResolver(), p)
		if err != nil || werr != nil || s.Name != want.Name || s.Body != want.Body {
			t.Errorf("%s: %v, %v (ReadSkillWith: %v, %v)", c.path, s, err, want, werr)
		}
		// On Linux a file that is no link is read without an lstat.
		if _, _, _, opened, _ := readSkillOpen(NewResolver(), p); opened != (runtime.GOOS == "linux" && c.path != "b/LINK.md") {
			t.Errorf("%s: read from the open file: %v", c.path, opened)
		}
		// On Linux a path with no link is opened in one call (openat2),
		// one through a linked folder after a refusal that is counted.
		if runtime.GOOS == "linux" && c.path != "b/LINK.md" {
			loops := r.loops[dir]
			if want := map[bool]int{false: 0, true: 1}[c.path == "b/SKILL.md"]; loops != want {
				t.Errorf("%s: %d paths through a link counted, want %d", c.path, loops, want)
			}
		}
		// The path is remembered as Lstat remembers it.
		if got, err := r.EvalSymlinks(p); err != nil || got != real {
			t.Errorf("%s: EvalSymlinks after = %q, %v; want %q", c.path, got, err, real)
		}
	}
}

func sameInode(a, b os.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}
