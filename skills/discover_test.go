package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// tree writes files (path -> content) under root; content "->target" makes
// a symbolic link instead.
func tree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(c, "->"); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sk(name, desc string) string {
	s := "---\n"
	if name != "" {
		s += "name: " + name + "\n"
	}
	return s + "description: " + desc + "\n---\n# " + name + "\n"
}

type found struct{ Name, Source, Rel string }

func summary(root string, c *Catalog) []found {
	var out []found
	for _, s := range c.Skills {
		rel, _ := filepath.Rel(root, s.Path)
		out = append(out, found{s.Name, s.Source, filepath.ToSlash(rel)})
	}
	return out
}

func TestDiscoverPiLocations(t *testing.T) {
	root := t.TempDir()
	tree(t, root, map[string]string{
		"home/.pi/agent/skills/user-a/SKILL.md":       sk("user-a", "u"),
		"home/.agents/skills/home-agents/SKILL.md":    sk("home-agents", "h"),
		"agentdir/skills/env-a/SKILL.md":              sk("env-a", "e"),
		"repo/.git/HEAD":                              "ref",
		"repo/.agents/skills/repo-root/SKILL.md":      sk("repo-root", "r"),
		"repo/sub/.pi/skills/proj/SKILL.md":           sk("proj", "p"),
		"repo/sub/.pi/skills/root-file.md":            sk("root-file", "rf"),
		"repo/sub/.agents/skills/sub-agents/SKILL.md": sk("sub-agents", "s"),
		"repo/sub/.pi/skills/dup/SKILL.md":            sk("repo-root", "loser"),
		"outside/.agents/skills/above-git/SKILL.md":   sk("above-git", "never"),
		"x/extra/SKILL.md":                            sk("extra", "x"),
	})
	// the repo's parent is "root", which has no .agents; "outside" is not an ancestor
	opts := Options{Home: filepath.Join(root, "home"), Cwd: filepath.Join(root, "repo", "sub"), Paths: []string{filepath.Join(root, "x", "extra")}}
	c := Discover(opts)
	want := []found{
		{"repo-root", "project", "repo/sub/.pi/skills/dup/SKILL.md"},
		{"proj", "project", "repo/sub/.pi/skills/proj/SKILL.md"},
		{"root-file", "project", "repo/sub/.pi/skills/root-file.md"},
		{"sub-agents", "path", "repo/sub/.agents/skills/sub-agents/SKILL.md"},
		{"user-a", "user", "home/.pi/agent/skills/user-a/SKILL.md"},
		{"home-agents", "path", "home/.agents/skills/home-agents/SKILL.md"},
		{"extra", "path", "x/extra/SKILL.md"},
	}
	if diff := cmp.Diff(want, summary(root, c)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	// repo-root in .agents/skills at the git root loses to the project one
	var coll []Diagnostic
	for _, d := range c.Diagnostics {
		if d.Code == "name-collision" {
			coll = append(coll, d)
		}
	}
	if len(coll) != 1 || !strings.HasSuffix(coll[0].Path, "dup/SKILL.md") || !strings.HasSuffix(coll[0].OtherPath, "repo/.agents/skills/repo-root/SKILL.md") {
		t.Errorf("collision diagnostics = %+v", coll)
	}
	// root-file.md: name matches, but its parent is "skills": Pi warns
	if !hasCode(c.Diagnostics, "name-mismatch") {
		t.Errorf("want a name-mismatch warning for the root .md file: %+v", c.Diagnostics)
	}

	// PI_CODING_AGENT_DIR replaces ~/.pi/agent
	opts.AgentDir = filepath.Join(root, "agentdir")
	c = Discover(opts)
	if _, ok := c.Lookup("env-a"); !ok {
		t.Error("agent dir skills not found")
	}
	if _, ok := c.Lookup("user-a"); ok {
		t.Error("~/.pi/agent/skills scanned although AgentDir is set")
	}
	if s, _ := c.Lookup("env-a"); s.Source != SourceUser {
		t.Errorf("env-a source = %q", s.Source)
	}
}

func hasCode(ds []Diagnostic, code string) bool {
	for _, d := range ds {
		if d.Code == code {
			return true
		}
	}
	return false
}

func TestDiscoverRules(t *testing.T) {
	root := t.TempDir()
	big := sk("big", "b") + strings.Repeat("x", MaxFileSize)
	tree(t, root, map[string]string{
		"s/a/SKILL.md":                     sk("a", "a"),
		"s/a/nested/SKILL.md":              sk("nested", "never: the scan stops at a"),
		"s/deep/er/still/b/SKILL.md":       sk("b", "b"),
		"s/deep/notes.md":                  sk("notes", "not a root .md"),
		"s/.hidden/SKILL.md":               sk("hidden", "skipped"),
		"s/node_modules/pkg/SKILL.md":      sk("pkg", "skipped"),
		"s/big/SKILL.md":                   big,
		"s/link-to-a":                      "->a",
		"s/loop/self":                      "->..",
		"s/broken":                         "->nowhere",
		"s/nodesc/SKILL.md":                sk("nodesc", "\"\""),
		"s/garbage/SKILL.md":               "\x00\x01\xff\xfe",
		"s/bomb/SKILL.md":                  "---\na: &a [x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b,*b,*b,*b]\ndescription: ok\n---\n",
		"s/unclosed/SKILL.md":              "---\nname: unclosed\ndescription: x\n",
		"s/c/SKILL.md":                     "->../../other/c.md",
		"other/c.md":                       sk("c", "through a linked file"),
		"s/root.md":                        sk("s", "root md whose name is the folder"),
		"s/readme.txt":                     "not markdown",
		"s/linked-skills-dir":              "->../other2",
		"other2/d/SKILL.md":                sk("d", "d"),
		"other2/d/../../other2/e/SKILL.md": sk("e", "e"),
	})
	c := Discover(Options{Paths: []string{filepath.Join(root, "s")}})
	want := []found{
		{"a", "path", "s/a/SKILL.md"},
		{"bomb", "path", "s/bomb/SKILL.md"},
		{"c", "path", "s/c/SKILL.md"},
		{"b", "path", "s/deep/er/still/b/SKILL.md"},
		{"d", "path", "s/linked-skills-dir/d/SKILL.md"},
		{"e", "path", "s/linked-skills-dir/e/SKILL.md"},
		{"s", "path", "s/root.md"},
	}
	if diff := cmp.Diff(want, summary(root, c)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	got := map[string]bool{}
	for _, d := range c.Diagnostics {
		rel, _ := filepath.Rel(root, d.Path)
		got[filepath.ToSlash(rel)+" "+d.Code] = true
	}
	for _, w := range []string{"s/big/SKILL.md file-too-large", "s/nodesc/SKILL.md description-required",
		"s/garbage/SKILL.md description-required", "s/garbage/SKILL.md not-utf8", "s/unclosed/SKILL.md unclosed-frontmatter"} {
		if !got[w] {
			t.Errorf("missing diagnostic %q in %v", w, got)
		}
	}
	if hasCode(c.Diagnostics, "name-collision") {
		t.Errorf("a symlinked copy of the same file must be skipped silently: %+v", c.Diagnostics)
	}
	if s, _ := c.Lookup("c"); s == nil || s.RealPath != filepath.Join(root, "other", "c.md") {
		t.Errorf("real path of c = %+v", s)
	}
	for _, p := range []string{filepath.Join(root, "s", "c", "SKILL.md"), filepath.Join(root, "other", "c.md")} {
		if s, ok := c.LookupPath(p); !ok || s.Name != "c" {
			t.Errorf("LookupPath(%s) = %v, %v", p, s, ok)
		}
	}
	if _, ok := c.LookupPath(filepath.Join(root, "s", "big", "SKILL.md")); ok {
		t.Error("LookupPath found a skipped file")
	}
}

func TestDiscoverMissingPaths(t *testing.T) {
	root := t.TempDir()
	c := Discover(Options{Home: filepath.Join(root, "nohome"), Cwd: root, Paths: []string{filepath.Join(root, "missing")}})
	if diff := cmp.Diff([]string{"path-unreadable"}, codes(c.Diagnostics), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("only the explicit missing path is reported (-want +got):\n%s", diff)
	}
	if len(c.Skills) != 0 {
		t.Errorf("skills = %v", c.Names())
	}
}
