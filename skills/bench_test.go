package skills

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGenerateSkills(t *testing.T) {
	dir := t.TempDir()
	names, err := GenerateSkills(dir, 50)
	if err != nil {
		t.Fatal(err)
	}
	c := Discover(Options{Paths: []string{dir}, Mode: Strict})
	if len(c.Diagnostics) != 0 {
		t.Fatalf("generated skills are not valid: %s", describe(c.Diagnostics))
	}
	if len(c.Skills) != 50 || c.Skills[0].Name != names[0] {
		t.Fatalf("got %d skills, first %q", len(c.Skills), c.Names()[0])
	}
	again := t.TempDir()
	if _, err := GenerateSkills(again, 50); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		a, _ := os.ReadFile(filepath.Join(dir, n, "SKILL.md"))
		b, _ := os.ReadFile(filepath.Join(again, n, "SKILL.md"))
		if string(a) != string(b) {
			t.Fatalf("%s differs between two runs", n)
		}
	}
}

func benchDiscover(b *testing.B, n int) {
	dir := b.TempDir()
	if _, err := GenerateSkills(dir, n); err != nil {
		b.Fatal(err)
	}
	opts := Options{Paths: []string{dir}}
	for b.Loop() {
		c := Discover(opts)
		if len(c.Skills) != n {
			b.Fatalf("found %d skills, want %d", len(c.Skills), n)
		}
	}
}

// BenchmarkDiscover measures discovery end to end (walk, read, parse,
// validate, catalog) on generated folders.
func BenchmarkDiscover1k(b *testing.B)  { benchDiscover(b, 1000) }
func BenchmarkDiscover10k(b *testing.B) { benchDiscover(b, 10000) }

// BenchmarkParse measures Parse alone on one generated skill.
func BenchmarkParse(b *testing.B) {
	dir := b.TempDir()
	names, err := GenerateSkills(dir, 1)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, names[0], "SKILL.md")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, d := Parse(path, data); len(d) != 0 {
			b.Fatal(d)
		}
	}
}

func BenchmarkDiscoverPack(b *testing.B) {
	for b.Loop() {
		if c := Discover(Options{Paths: []string{"../testdata/pack"}}); len(c.Skills) != 8 {
			b.Fatal(c.Names())
		}
	}
}
