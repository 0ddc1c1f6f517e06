//go:build corpora

package relevance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// sharedDir returns ../shared beside the repository root, failing the test
// with a clear message when it is missing.
func sharedDir(tb testing.TB, parts ...string) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file)) // relevance/ -> repo root
	p := filepath.Join(append([]string{root, "..", "shared"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("shared data missing: %v (tests read ../shared beside the repository root)", err)
	}
	return p
}

// packSkill is one SKILL.md of a pack, read by the tests' own small reader
// (frontmatter name and description, ATX headings outside code fences).
type packSkill struct {
	Doc
	Body string
}

// readSkillFile parses a SKILL.md the simple way the tests need.
func readSkillFile(tb testing.TB, path string) packSkill {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		tb.Fatalf("%s: no frontmatter", path)
	}
	end := strings.Index(text[4:], "\n---\n")
	if end < 0 {
		tb.Fatalf("%s: unclosed frontmatter", path)
	}
	var fm struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}
	if err := yaml.Unmarshal([]byte(text[4:4+end]), &fm); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	body := text[4+end+5:]
	s := packSkill{Doc: Doc{Name: fm.Name, Description: fm.Description, Body: body}, Body: body}
	if s.Name == "" {
		s.Name = filepath.Base(filepath.Dir(path))
	}
	s.Headings, s.Levels = headingsOf(body)
	return s
}

// headingsOf extracts ATX headings outside fenced code blocks.
func headingsOf(body string) (texts []string, levels []int) {
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	fence := ""
	for sc.Scan() {
		line := sc.Text()
		trim := strings.TrimLeft(line, " ")
		if len(line)-len(trim) <= 3 {
			if fence == "" && (strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~")) {
				fence = trim[:3]
				continue
			}
			if fence != "" && strings.HasPrefix(trim, fence) {
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		lvl := 0
		for lvl < len(trim) && trim[lvl] == '#' {
			lvl++
		}
		if lvl == 0 || lvl > 6 || len(line)-len(trim) > 3 {
			continue
		}
		rest := trim[lvl:]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			continue
		}
		rest = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(rest), "#"))
		texts = append(texts, rest)
		levels = append(levels, lvl)
	}
	return texts, levels
}

// loadMLPack reads the 26 skills of ../shared/corpora/ml-pack/skills.
func loadMLPack(tb testing.TB) []packSkill {
	tb.Helper()
	dir := sharedDir(tb, "corpora", "ml-pack", "skills")
	paths, err := filepath.Glob(filepath.Join(dir, "*", "SKILL.md"))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("no SKILL.md under %s (%v)", dir, err)
	}
	sort.Strings(paths)
	out := make([]packSkill, 0, len(paths))
	for _, p := range paths {
		out = append(out, readSkillFile(tb, p))
	}
	return out
}

func docsOf(ps []packSkill) []Doc {
	docs := make([]Doc, len(ps))
	for i, p := range ps {
		docs[i] = p.Doc
	}
	return docs
}

// devCase is one line of ml-pack/dev-cases.jsonl.
type devCase struct {
	Source string   `json:"source"`
	Prompt string   `json:"prompt"`
	Expect []string `json:"expect"`
	Avoid  []string `json:"avoid"`
	Kind   string   `json:"kind"`
	Host   string   `json:"host"`
	Origin string   `json:"origin"`
}

func loadDevCases(tb testing.TB) []devCase {
	tb.Helper()
	data, err := os.ReadFile(sharedDir(tb, "corpora", "ml-pack", "dev-cases.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	var out []devCase
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var c devCase
		if err := json.Unmarshal(line, &c); err != nil {
			tb.Fatalf("dev-cases.jsonl:%d: %v", i+1, err)
		}
		out = append(out, c)
	}
	return out
}
