package docscheck

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// maxDocLines is issue 28's cap on the docs: every Markdown file of the
// repository but vendored, generated and test data, and the changelog.
const maxDocLines = 2500

const root = "../.."

// skipped reports whether a path (relative to the root, slash-separated)
// is outside the docs the cap counts.
func skipped(rel string, dir bool) bool {
	base := filepath.Base(rel)
	if dir {
		switch base {
		case ".git", "node_modules", "testdata", ".tools", "dist":
			return true
		}
		return strings.HasPrefix(base, ".") && rel != "."
	}
	return rel == "extension/CHANGELOG.md"
}

// files lists, relative to the root and slash-separated, the files outside
// the skipped folders for which want holds.
func files(t *testing.T, want func(rel string) bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if skipped(rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && want(rel) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func docs(t *testing.T) []string {
	t.Helper()
	out := files(t, func(rel string) bool { return strings.HasSuffix(rel, ".md") })
	if len(out) == 0 {
		t.Fatalf("no Markdown file found under %s", root)
	}
	return out
}

func TestDocsLineBudget(t *testing.T) {
	total := 0
	for _, rel := range docs(t) {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		n := bytes.Count(data, []byte("\n"))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			n++
		}
		t.Logf("%5d %s", n, rel)
		total += n
	}
	t.Logf("%5d in all", total)
	if total > maxDocLines {
		t.Errorf("the docs hold %d lines, over issue 28's cap of %d: shorten them", total, maxDocLines)
	}
}

var (
	// mdLink is an inline Markdown link or image: [text](target).
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// docMention is a doc named in prose or in a comment: docs/x.md.
	docMention = regexp.MustCompile(`\bdocs/[A-Za-z0-9_.-]+\.md\b`)
	// sectionRef is a section of a doc named after it, in italics or in
	// quotes: docs/x.md, *Heading* or docs/x.md, "Heading".
	sectionRef = regexp.MustCompile(`\b(docs/)?([a-z0-9-]+\.md),? (?:\*([^*]+)\*|"([^"]+)")`)
	// joinLines folds a comment or paragraph that goes on over lines.
	joinLines = regexp.MustCompile(`\n[ \t]*(?://|#)?[ \t]*`)
)

// anchor is GitHub's heading slug: lower case, punctuation dropped but
// hyphens and underscores, spaces as hyphens.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func anchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	fence := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		h = strings.NewReplacer("`", "", "*", "").Replace(h)
		a := anchor(h)
		for i := 0; ; i++ { // GitHub numbers repeated headings
			k := a
			if i > 0 {
				k = a + "-" + string(rune('0'+i))
			}
			if !out[k] {
				out[k] = true
				break
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDocsLinksResolve(t *testing.T) {
	for _, rel := range docs(t) {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(filepath.Join(root, rel))
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				file := filepath.Join(root, rel)
				if path != "" {
					file = filepath.Join(dir, filepath.FromSlash(path))
					if _, err := os.Stat(file); err != nil {
						t.Errorf("%s:%d: link %q: %v", rel, i+1, target, err)
						continue
					}
				}
				if frag != "" && strings.HasSuffix(file, ".md") && !anchors(t, file)[frag] {
					t.Errorf("%s:%d: link %q: no heading with that anchor in %s", rel, i+1, target, filepath.Base(file))
				}
			}
		}
	}
}

// sections lists the headings of a doc and the bold lead-ins of its
// paragraphs (**What counts as trust.**), both places a reader can be
// sent to by name.
func sections(t *testing.T, file string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	clean := strings.NewReplacer("`", "", "*", "")
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "#") {
			out[clean.Replace(strings.TrimSpace(strings.TrimLeft(line, "#")))] = true
		}
		for _, m := range boldLead.FindAllStringSubmatch(line, -1) {
			out[clean.Replace(strings.TrimRight(m[1], ".:"))] = true
		}
	}
	return out
}

var boldLead = regexp.MustCompile(`\*\*([^*]+?)\*\*`)

// notOurs are files whose docs/x.md are another project's: the live
// benchmark's scripted agent writes docs into its own repository.
var notOurs = map[string]bool{
	"bench/live/scenarios.go":         true,
	"internal/docscheck/docs_test.go": true,
}

// TestDocsMentionsExist checks that every docs/x.md named in a doc or in
// Go source exists, so merging or renaming a doc leaves no stale pointer.
func TestDocsMentionsExist(t *testing.T) {
	source := func(rel string) bool {
		return !notOurs[rel] && slices.ContainsFunc([]string{".md", ".go", ".ts", ".sh"}, func(ext string) bool { return strings.HasSuffix(rel, ext) })
	}
	for _, rel := range files(t, source) {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, m := range docMention.FindAllString(line, -1) {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(m))); err != nil {
					t.Errorf("%s:%d: names %s, which does not exist", rel, i+1, m)
				}
			}
		}
		for _, m := range sectionRef.FindAllStringSubmatch(joinLines.ReplaceAllString(string(data), " "), -1) {
			if m[1] == "" && !strings.HasSuffix(rel, ".md") {
				continue // x.md in source without docs/ is another project's doc
			}
			doc := filepath.Join(root, "docs", m[2])
			if m[2] == "README.md" {
				doc = filepath.Join(root, m[2])
			}
			if _, err := os.Stat(doc); err != nil {
				continue // another project's file, or a mention TestDocsMentionsExist reports
			}
			name := strings.NewReplacer("`", "").Replace(m[3] + m[4])
			if !sections(t, doc)[name] {
				t.Errorf("%s: names section %q of %s, which has no such heading", rel, name, m[2])
			}
		}
	}
}
