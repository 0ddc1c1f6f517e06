package skills

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// conformanceDir holds one folder per case of the reference validator's
// tests (skills-ref) and of Pi's skill fixtures; see its README.md.
const conformanceDir = "../testdata/conformance"

type confCase struct {
	From    string          `json:"from"`
	Check   string          `json:"check"` // dir, file, discover, prompt
	Target  json.RawMessage `json:"target"`
	Lenient confExpect      `json:"lenient"`
	Strict  confExpect      `json:"strict"`
}

type confExpect struct {
	OK             bool              `json:"ok"`
	Errors         []msgSpec         `json:"errors"`
	Warnings       []msgSpec         `json:"warnings"`
	Exact          bool              `json:"exact"`
	Fields         map[string]string `json:"fields"`
	Properties     map[string]any    `json:"properties"`
	Skills         []string          `json:"skills"`
	Collision      *struct{ Winner, Loser string }
	Prompt         *string        `json:"prompt"`
	PromptContains []string       `json:"prompt_contains"`
	PromptExcludes []string       `json:"prompt_excludes"`
	PromptCount    map[string]int `json:"prompt_count"`
	Divergence     string         `json:"divergence"`
	Note           string         `json:"note"`
}

// msgSpec is the substrings one diagnostic message must contain, written
// as a string or a list of strings.
type msgSpec []string

func (m *msgSpec) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*m = msgSpec{one}
		return nil
	}
	return json.Unmarshal(b, (*[]string)(m))
}

func (m msgSpec) matches(msg string) bool {
	msg = strings.ToLower(msg)
	for _, s := range m {
		if !strings.Contains(msg, strings.ToLower(s)) {
			return false
		}
	}
	return true
}

type confResult struct {
	skills []*Skill // the checked skill, or the catalog
	diags  []Diagnostic
	prompt string
}

func runCase(t *testing.T, dir string, c confCase, mode Mode) confResult {
	t.Helper()
	var targets []string
	if err := json.Unmarshal(c.Target, &targets); err != nil {
		var one string
		if err := json.Unmarshal(c.Target, &one); err != nil {
			t.Fatalf("target: %v", err)
		}
		targets = []string{one}
	}
	for i, p := range targets {
		targets[i] = filepath.Join(dir, filepath.FromSlash(p))
	}
	var r confResult
	switch c.Check {
	case "dir", "file":
		var s *Skill
		if c.Check == "dir" {
			s, r.diags, _ = CheckDir(targets[0], mode)
		} else {
			s, r.diags, _ = CheckFile(targets[0], mode)
		}
		if s != nil {
			r.skills = []*Skill{s}
		}
	case "discover", "prompt":
		cat := Discover(Options{Paths: targets, Mode: mode, NoDefaults: true})
		r.skills, r.diags = cat.Skills, cat.Diagnostics
		if c.Check == "prompt" || mode == Lenient {
			r.prompt = FormatPrompt(cat.Skills)
		}
		if c.Check == "prompt" && mode == Strict {
			r.prompt = FormatAvailableSkills(cat.Skills)
		}
	default:
		t.Fatalf("unknown check %q", c.Check)
	}
	return r
}

func field(s *Skill, dir, key string) string {
	switch key {
	case "name":
		return s.Name
	case "description":
		return s.Description
	case "license":
		return s.License
	case "compatibility":
		return s.Compatibility
	case "allowed-tools":
		return s.AllowedTools
	case "body":
		return s.Body
	case "disable-model-invocation":
		return fmt.Sprint(s.DisableModelInvocation)
	case "path":
		rel, _ := filepath.Rel(dir, s.Path)
		return filepath.ToSlash(rel)
	}
	if k, ok := strings.CutPrefix(key, "metadata."); ok {
		return s.Metadata[k]
	}
	return "<unknown field " + key + ">"
}

// matchAll pairs every wanted substring with a distinct diagnostic of the
// severity whose message contains it (case-insensitively).
func matchAll(t *testing.T, want []msgSpec, diags []Diagnostic, sev Severity) int {
	t.Helper()
	var pool []Diagnostic
	for _, d := range diags {
		if d.Severity == sev {
			pool = append(pool, d)
		}
	}
	used := make([]bool, len(pool))
	for _, w := range want {
		found := false
		for i, d := range pool {
			if !used[i] && w.matches(d.Message) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			t.Errorf("no %s diagnostic contains %q; got %s", sev, w, describe(diags))
		}
	}
	return len(pool)
}

func describe(ds []Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "\n  %s %s [%s] %s", d.Severity, filepath.Base(d.Path), d.Code, d.Message)
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

func TestConformance(t *testing.T) {
	entries, err := os.ReadDir(conformanceDir)
	if err != nil {
		t.Fatalf("conformance fixtures missing: %v", err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir, err := filepath.Abs(filepath.Join(conformanceDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(filepath.Join(dir, "expected.json"))
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		var c confCase
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Errorf("%s: expected.json: %v", e.Name(), err)
			continue
		}
		n++
		for _, mode := range []Mode{Lenient, Strict} {
			want := c.Lenient
			if mode == Strict {
				want = c.Strict
			}
			t.Run(e.Name()+"/"+mode.String(), func(t *testing.T) {
				r := runCase(t, dir, c, mode)
				if got := !HasError(r.diags); got != want.OK {
					t.Errorf("ok = %v, want %v (%s); diagnostics: %s", got, want.OK, c.From, describe(r.diags))
				}
				ne := matchAll(t, want.Errors, r.diags, Error)
				nw := matchAll(t, want.Warnings, r.diags, Warning)
				if want.Exact && (ne != len(want.Errors) || nw != len(want.Warnings)) {
					t.Errorf("want exactly %d errors and %d warnings, got %s", len(want.Errors), len(want.Warnings), describe(r.diags))
				}
				if want.Skills != nil {
					var names []string
					for _, s := range r.skills {
						names = append(names, s.Name)
					}
					if diff := cmp.Diff(want.Skills, names, cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("skills (-want +got):\n%s", diff)
					}
				}
				if len(want.Fields) > 0 || want.Properties != nil {
					if len(r.skills) == 0 {
						t.Fatalf("no skill to check fields of; diagnostics: %s", describe(r.diags))
					}
					got := map[string]string{}
					for k := range want.Fields {
						got[k] = field(r.skills[0], dir, k)
					}
					if diff := cmp.Diff(want.Fields, got, cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("fields (-want +got):\n%s", diff)
					}
					if want.Properties != nil {
						props, _ := json.Marshal(r.skills[0].Properties())
						var gotProps map[string]any
						_ = json.Unmarshal(props, &gotProps)
						if diff := cmp.Diff(want.Properties, gotProps); diff != "" {
							t.Errorf("properties (-want +got):\n%s", diff)
						}
					}
				}
				if want.Collision != nil {
					var got []string
					for _, d := range r.diags {
						if d.Code == "name-collision" {
							w, _ := filepath.Rel(dir, d.Path)
							l, _ := filepath.Rel(dir, d.OtherPath)
							got = append(got, filepath.ToSlash(w), filepath.ToSlash(l))
						}
					}
					if diff := cmp.Diff([]string{want.Collision.Winner, want.Collision.Loser}, got); diff != "" {
						t.Errorf("collision (-want +got):\n%s", diff)
					}
				}
				if want.Prompt != nil && r.prompt != *want.Prompt {
					t.Errorf("prompt = %q, want %q", r.prompt, *want.Prompt)
				}
				for _, s := range want.PromptContains {
					if !strings.Contains(r.prompt, s) {
						t.Errorf("prompt lacks %q:\n%s", s, r.prompt)
					}
				}
				for _, s := range want.PromptExcludes {
					if strings.Contains(r.prompt, s) {
						t.Errorf("prompt contains %q:\n%s", s, r.prompt)
					}
				}
				for s, k := range want.PromptCount {
					if got := strings.Count(r.prompt, s); got != k {
						t.Errorf("prompt has %d × %q, want %d", got, s, k)
					}
				}
			})
		}
	}
	// 40 skills-ref cases + 14 Pi fixtures + 5 newer Pi fixtures
	if n != 59 {
		t.Errorf("found %d conformance cases, want 59", n)
	}
}
