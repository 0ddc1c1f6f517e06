package hostile

import (
	"bytes"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
	"github.com/skill-lifecycle/skill-lifecycle/protocol"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// billionLaughs is the YAML alias bomb: nine levels of nine aliases, a
// billion "lol"s once expanded. withDesc puts it in the description.
func billionLaughs(withDesc bool) []byte {
	var b strings.Builder
	b.WriteString("---\nname: bad\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		fmt.Fprintf(&b, "%s: &%s [%s]\n", n, n, strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ","))
		prev = n
	}
	if withDesc {
		b.WriteString("description: *i\n")
	} else {
		b.WriteString("description: a plain description beside the bomb\n")
	}
	b.WriteString("---\n# Body\n")
	return []byte(b.String())
}

// blockNesting is a frontmatter nested n mapping levels deep by indentation.
func blockNesting(n int) []byte {
	var b strings.Builder
	b.WriteString("---\nname: bad\ndescription: deep\nx:\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%sk%d:\n", strings.Repeat("  ", i), i)
	}
	b.WriteString("---\n")
	return []byte(b.String())
}

// skillCase is one bad SKILL.md, put in folder "bad" beside a good skill.
type skillCase struct {
	name string
	data []byte
	// the diagnostic that must name the file: its code, line (0: any) and
	// field ("" : any)
	code  string
	line  int
	field string
	// loads says whether the skill still loads under Pi's (lenient) rules.
	loads bool
}

func skillCases() []skillCase {
	garbage := make([]byte, 8192)
	rand.New(rand.NewSource(7)).Read(garbage)
	var million bytes.Buffer
	million.WriteString("---\nname: bad\ndescription: a million headings\n---\n")
	million.Write(bytes.Repeat([]byte("#\n"), 1_000_000))
	return []skillCase{
		{name: "binary-garbage", data: garbage, code: "not-utf8"},
		{name: "binary-garbage-description-required", data: garbage, code: "description-required", field: "description"},
		{name: "empty-file", data: nil, code: "description-required", field: "description"},
		{name: "five-mb-skill-md", data: append(skillMD("bad", "huge", "# Huge"), bytes.Repeat([]byte("word "), 1<<20)...), code: "file-too-large"},
		{name: "frontmatter-never-closed", data: []byte("---\nname: bad\ndescription: never closed\n# Body\n"), code: "unclosed-frontmatter", line: 1},
		{name: "frontmatter-only-opening-line", data: []byte("---"), code: "unclosed-frontmatter", line: 1},
		{name: "yaml-alias-bomb-in-description", data: billionLaughs(true), code: "field-type", line: 12, field: "description"},
		{name: "yaml-deep-flow-nesting", data: []byte("---\nname: bad\ndescription: " + strings.Repeat("[", 10_000) + "\n---\n"), code: "invalid-yaml", line: 3},
		{name: "yaml-deep-block-nesting", data: blockNesting(200), code: "invalid-yaml", line: 68},
		{name: "yaml-nul-bytes", data: []byte("---\nname: bad\n\x00\x01: \xff\ndescription: x\n---\n"), code: "invalid-yaml"},
		{name: "frontmatter-is-a-list", data: []byte("---\n- name\n- description\n---\n"), code: "frontmatter-not-mapping", line: 2},
		{name: "description-is-a-mapping", data: []byte("---\nname: bad\ndescription:\n  a: b\n---\n"), code: "field-type", line: 3, field: "description"},
		{name: "non-utf8-in-frontmatter", data: []byte("---\nname: bad\ndescription: caf\xe9 cr\xe8me\n---\n# Body\n"), code: "invalid-yaml", line: 3},
		{name: "non-utf8-in-frontmatter-warning", data: []byte("---\nname: bad\ndescription: caf\xe9 cr\xe8me\n---\n# Body\n"), code: "not-utf8", line: 3},
		{name: "non-utf8-in-body", data: []byte("---\nname: bad\ndescription: fine\n---\n# Body\n\ncaf\xe9\n"), code: "not-utf8", line: 7, loads: true},
		{name: "frontmatter-over-64k", data: []byte("---\nname: bad\ndescription: " + strings.Repeat("[", 100_000) + "\n---\n"), code: "frontmatter-too-large", line: 2},
		{name: "name-is-a-relative-path", data: skillMD("../x", "escapes by name", "# X"), code: "name-invalid-characters", line: 2, field: "name", loads: true},
		{name: "name-is-an-absolute-path", data: skillMD("/etc/passwd", "escapes by name", "# X"), code: "name-invalid-characters", line: 2, field: "name", loads: true},
		{name: "million-headings", data: million.Bytes(), code: "file-too-large"},
	}
}

// TestHostileSkillFiles: each bad SKILL.md gets a diagnostic naming its
// file (and line and field where the case has one), in discovery and from
// the validate command; the good skill beside it still loads.
func TestHostileSkillFiles(t *testing.T) {
	for _, tc := range skillCases() {
		t.Run(tc.name, func(t *testing.T) {
			pack := t.TempDir()
			writeSkill(t, pack, "good", "A well-formed skill.", "# Good")
			file := write(t, filepath.Join(pack, "bad", "SKILL.md"), tc.data)

			c := skills.Discover(skills.Options{Paths: []string{pack}, NoDefaults: true})
			if _, ok := c.Lookup("good"); !ok {
				t.Fatalf("the good skill did not load: %+v", c.Diagnostics)
			}
			var hit *skills.Diagnostic
			for i, d := range c.Diagnostics {
				if d.Path == file && d.Code == tc.code {
					hit = &c.Diagnostics[i]
					break
				}
			}
			if hit == nil {
				t.Fatalf("no %s diagnostic for %s; got %+v", tc.code, file, c.Diagnostics)
			}
			if tc.line > 0 && hit.Line != tc.line {
				t.Errorf("%s reported on line %d, want %d: %s", tc.code, hit.Line, tc.line, hit.Message)
			}
			if tc.field != "" && hit.Field != tc.field {
				t.Errorf("%s names field %q, want %q", tc.code, hit.Field, tc.field)
			}
			if hit.Message == "" {
				t.Errorf("empty message for %s", tc.code)
			}
			loaded := false
			for _, s := range c.Skills {
				loaded = loaded || s.Path == file
			}
			if loaded != tc.loads {
				t.Errorf("bad skill loaded = %v, want %v", loaded, tc.loads)
			}

			// The validate command says the same, naming the file.
			code, out, errOut := runCLI(t, "validate", filepath.Join(pack, "bad"))
			wantCode := 1
			if tc.loads {
				wantCode = 0
			}
			if code != wantCode {
				t.Errorf("validate exit %d, want %d\n%s%s", code, wantCode, out, errOut)
			}
			if !strings.Contains(out+errOut, file) || !strings.Contains(out+errOut, tc.code) {
				t.Errorf("validate output does not name %s and %s:\n%s%s", file, tc.code, out, errOut)
			}
		})
	}
}

// TestHostileSkillStrictRefusesPathNames: under the reference rules a
// name that is a path is an error, not a warning.
func TestHostileSkillStrictRefusesPathNames(t *testing.T) {
	for _, name := range []string{"../x", "/etc/passwd", "a/../../b"} {
		s, ds, ok := skills.Load("/p/bad/SKILL.md", skillMD(name, "d", "# B"), skills.Strict)
		if ok {
			t.Errorf("%q: valid under strict rules", name)
		}
		if s.Dir != "/p/bad" {
			t.Errorf("%q: the skill's folder became %q; a name must never move it", name, s.Dir)
		}
		found := false
		for _, d := range ds {
			found = found || (d.Field == "name" && d.Severity == skills.Error)
		}
		if !found {
			t.Errorf("%q: no error on field name: %+v", name, ds)
		}
	}
}

// TestHostileSkillTolerated: a byte order mark and CRLF line ends are
// read as Pi reads them, with no diagnostic and correct lines.
func TestHostileSkillTolerated(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"bom", append([]byte{0xEF, 0xBB, 0xBF}, skillMD("good", "With a byte order mark.", "# Title\n\n## Part")...)},
		{"crlf", bytes.ReplaceAll(skillMD("good", "With CRLF line ends.", "# Title\n\n## Part"), []byte("\n"), []byte("\r\n"))},
		{"bom-and-crlf", append([]byte{0xEF, 0xBB, 0xBF}, bytes.ReplaceAll(skillMD("good", "Both.", "# Title\n\n## Part"), []byte("\n"), []byte("\r\n"))...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ds, ok := skills.Load("/p/good/SKILL.md", tc.data, skills.Strict)
			if !ok || len(ds) > 0 {
				t.Fatalf("not loaded cleanly: %+v", ds)
			}
			if s.Name != "good" || strings.ContainsAny(s.Description, "\r\ufeff") {
				t.Errorf("name %q description %q", s.Name, s.Description)
			}
			if len(s.Headings) != 2 || s.Headings[0].Text != "Title" || s.Headings[0].Line != 6 || s.Headings[1].Line != 8 {
				t.Errorf("headings %+v, want Title on line 6 and Part on line 8", s.Headings)
			}
		})
	}
}

// TestHostileSkillAliasBombStaysSmall: an alias bomb beside a plain
// description loads without expanding anything (the bomb's keys are
// unknown fields: a warning-free load under Pi's rules, an error under the
// reference rules), and parsing it allocates little.
func TestHostileSkillAliasBombStaysSmall(t *testing.T) {
	data := billionLaughs(false)
	var ok bool
	grew := testio.Allocated(func() { _, _, ok = skills.Load("/p/bad/SKILL.md", data, skills.Lenient) })
	if !ok {
		t.Errorf("the bomb beside a plain description should load under Pi's rules")
	}
	if grew > 4*mib {
		t.Errorf("parsing the alias bomb allocated %d bytes: aliases were expanded", grew)
	}
	if _, ds, ok := skills.Load("/p/bad/SKILL.md", data, skills.Strict); ok {
		t.Errorf("strict rules accept unknown fields a..i: %+v", ds)
	}
}

// TestHostileSkillBigFileNotReadWhole: discovering a 32 MiB SKILL.md reads
// little more than the 1 MiB limit of it.
func TestHostileSkillBigFileNotReadWhole(t *testing.T) {
	pack := t.TempDir()
	write(t, filepath.Join(pack, "huge", "SKILL.md"), append(skillMD("huge", "h", ""), bytes.Repeat([]byte("x"), 32*mib)...))
	var c *skills.Catalog
	grew := testio.Allocated(func() { c = skills.Discover(skills.Options{Paths: []string{pack}, NoDefaults: true}) })
	if len(c.Skills) != 0 || len(c.Diagnostics) != 1 || c.Diagnostics[0].Code != "file-too-large" {
		t.Fatalf("skills %v diagnostics %+v", c.Names(), c.Diagnostics)
	}
	if grew > 8*mib {
		t.Errorf("discovery allocated %d bytes for a 32 MiB file over a 1 MiB limit", grew)
	}
}

// TestHostileSkillManyHeadings: as many headings as fit in the size limit
// (about half a million) parse, and the heading list is exact.
func TestHostileSkillManyHeadings(t *testing.T) {
	head := skillMD("many", "Many headings.", "")
	n := (skills.MaxFileSize - len(head)) / 2
	data := append(head, bytes.Repeat([]byte("#\n"), n)...)
	s, ds, ok := skills.Load("/p/many/SKILL.md", data, skills.Lenient)
	if !ok {
		t.Fatalf("not loaded: %+v", ds)
	}
	if len(s.Headings) != n {
		t.Errorf("%d headings, want %d", len(s.Headings), n)
	}
	if last := s.Headings[n-1]; last.Line != s.BodyLine+n+1 {
		t.Errorf("last heading on line %d, want %d", last.Line, s.BodyLine+n+1)
	}
}

// TestHostileSkillTrees: folder structures built to hurt discovery.
func TestHostileSkillTrees(t *testing.T) {
	t.Run("symlink-loop", func(t *testing.T) {
		pack := t.TempDir()
		writeSkill(t, pack, "good", "Good.", "# Good")
		symlink(t, "..", filepath.Join(pack, "a", "up"))
		symlink(t, "../b", filepath.Join(pack, "a", "b-link"))
		symlink(t, "../a", filepath.Join(pack, "b", "a-link"))
		symlink(t, "SKILL.md", filepath.Join(pack, "self", "SKILL.md"))
		symlink(t, "two", filepath.Join(pack, "one"))
		symlink(t, "one", filepath.Join(pack, "two"))
		c := skills.Discover(skills.Options{Paths: []string{pack}, NoDefaults: true})
		if got := strings.Join(c.Names(), ","); got != "good" {
			t.Errorf("skills %s, want good", got)
		}
	})
	t.Run("skill-folder-linked-to-root", func(t *testing.T) {
		pack := t.TempDir()
		writeSkill(t, pack, "good", "Good.", "# Good")
		link := filepath.Join(pack, "everything")
		symlink(t, "/", link)
		c := skills.Discover(skills.Options{Paths: []string{pack}, NoDefaults: true})
		if got := strings.Join(c.Names(), ","); got != "good" {
			t.Errorf("skills %s, want only good: the link to / was followed", got)
		}
		if len(c.Diagnostics) != 1 || c.Diagnostics[0].Path != link || c.Diagnostics[0].Code != "symlink-to-ancestor" {
			t.Errorf("want one symlink-to-ancestor warning naming %s, got %+v", link, c.Diagnostics)
		}
	})
	t.Run("skill-md-linked-outside-its-folder", func(t *testing.T) {
		// Discovery follows the link as Pi does and records where it leads;
		// the sidecar refuses to serve it (TestHostileSkillTool).
		root := t.TempDir()
		secret := write(t, filepath.Join(root, "outside", "notes.md"), skillMD("leak", "Lives outside the pack.", "# Secret"))
		symlink(t, secret, filepath.Join(root, "pack", "leak", "SKILL.md"))
		c := skills.Discover(skills.Options{Paths: []string{filepath.Join(root, "pack")}, NoDefaults: true})
		s, ok := c.Lookup("leak")
		if !ok || s.RealPath != secret {
			t.Fatalf("leak = %+v", s)
		}
	})
	t.Run("fifty-thousand-files", func(t *testing.T) {
		dir := t.TempDir()
		writeSkill(t, dir, "good", "Good.", "# Good")
		writeSkill(t, dir, "crowded", "A skill folder with 25,000 files.", "# Crowded")
		for i := 0; i < 25_000; i++ {
			write(t, filepath.Join(dir, "crowded", fmt.Sprintf("f%05d.txt", i)), nil)
			write(t, filepath.Join(dir, fmt.Sprintf("stray%05d.txt", i)), nil)
		}
		c := skills.Discover(skills.Options{Paths: []string{dir}, NoDefaults: true})
		if got := strings.Join(c.Names(), ","); got != "crowded,good" {
			t.Errorf("skills %s, want crowded,good", got)
		}
		if len(c.Diagnostics) != 0 {
			t.Errorf("diagnostics %+v", c.Diagnostics[:min(3, len(c.Diagnostics))])
		}
		// The skill tool lists at most 60 of the crowded folder's files.
		s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
		p := &pack{dir: dir, cwd: t.TempDir(), agentDir: t.TempDir()}
		for _, sk := range c.Skills {
			p.skills = append(p.skills, hostSkill(sk))
		}
		s.initialize(p)
		r := loadSkill(s.wire, "crowded")
		if !r.Found || len(r.Files) != 61 || r.Files[60] != "(and 24941 more)" {
			t.Errorf("found %v, %d files listed, last %q", r.Found, len(r.Files), r.Files[len(r.Files)-1])
		}
	})
}

func hostSkill(s *skills.Skill) protocol.HostSkill {
	return protocol.HostSkill{Name: s.Name, Description: s.Description, Path: s.Path}
}
