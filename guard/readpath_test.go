package guard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestFileURLPath: Node's fileURLToPath (after WHATWG parsing) on the
// inputs whose results were taken from Node 22 (tests/e2e checks the whole
// guard against Pi's own read tool).
func TestFileURLPath(t *testing.T) {
	for in, want := range map[string]string{
		"file:///a/b/SKILL.md":        "/a/b/SKILL.md",
		"file://localhost/a/SKILL.md": "/a/SKILL.md",
		"file://C:/x/y":               "/C:/x/y",
		"file:///C|/x":                "/C:/x",
		"file:///a/%2e%2E/SKILL.md":   "/SKILL.md",
		`file:///a\b\SKILL.md`:        "/a/b/SKILL.md",
		"file:///a/SKILL.md?x#y":      "/a/SKILL.md",
		"file:///a/SK\nILL.md  ":      "/a/SKILL.md",
		"file:///a/b%20c":             "/a/b c",
		"file://":                     "/",
		"file:///C:/../x":             "/C:/x",
		"file:///a/b/../../../x":      "/x",
		"file:///a/.%2e/x":            "/x",
		"file:///a/b/..":              "/a/",
	} {
		if got, ok := fileURLPath(in); !ok || got != want {
			t.Errorf("fileURLPath(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// FuzzToolCallRead: any read call's arguments are decided without a
// panic, the same way twice; a plain read of a skill's SKILL.md is always
// blocked.
func FuzzToolCallRead(f *testing.F) {
	dir := f.TempDir()
	skill := filepath.Join(dir, "s", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(skill), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(skill, []byte("---\nname: s\ndescription: d\n---\n\n# S\n\nbody\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	lookup := func(p string) (Skill, bool) { return Skill{Name: "s", Path: skill}, p == skill }
	for _, s := range []string{skill, "file://" + skill, "s/SKILL.md", "@~/x", "file://C|/../%2e%2E\\x?#", "s\u00a0/SKILL.md"} {
		f.Add(s, 1.5, -1.0, true, false)
	}
	f.Fuzz(func(t *testing.T, path string, offset, limit float64, withOffset, withLimit bool) {
		in := map[string]any{"path": path}
		if withOffset {
			in["offset"] = offset
		}
		if withLimit {
			in["limit"] = limit
		}
		raw, err := json.Marshal(in)
		if err != nil {
			return // NaN or Inf: not JSON
		}
		if a, b := Check("read", raw, dir, lookup), Check("read", raw, dir, lookup); a != b {
			t.Fatalf("%s: %+v then %+v", raw, a, b)
		}
		plain, _ := json.Marshal(map[string]any{"path": skill})
		if r := Check("read", plain, dir, lookup); !r.Block {
			t.Fatal("a plain read of the SKILL.md is not blocked")
		}
	})
}
