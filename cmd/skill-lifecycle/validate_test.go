package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"good/SKILL.md":            "---\nname: good\ndescription: fine\n---\n# Good\n",
		"extra-field/SKILL.md":     "---\nname: extra-field\ndescription: fine\nauthor: me\n---\n",
		"no-desc/SKILL.md":         "---\nname: no-desc\n---\n",
		"pack/one/SKILL.md":        "---\nname: one\ndescription: d\n---\n",
		"pack/two/SKILL.md":        "---\nname: one\ndescription: same name\n---\n",
		"pack/root.md":             "---\nname: pack\ndescription: root file\n---\n",
		"pack/node_modules/x.md":   "garbage",
		"empty/readme.txt":         "nothing",
		"bad-yaml/SKILL.md":        "---\ndescription: [oops\n---\n",
		"upper/SKILL.md":           "---\nname: Upper\ndescription: d\n---\n",
		"unclosed/SKILL.md":        "---\nname: unclosed\n",
		"cafe\u0301/SKILL.md":      "---\nname: caf\u00e9\ndescription: d\n---\n",
		"lower-file/skill.md":      "---\nname: lower-file\ndescription: d\n---\n",
		"file-only/notes/SKILL.md": "---\nname: notes\ndescription: d\n---\n",
	})
	p := func(s string) string { return filepath.Join(dir, filepath.FromSlash(s)) }
	tests := []struct {
		name    string
		args    []string
		code    int
		okPaths map[string]bool // result path (relative to dir) -> ok
		codes   []string        // diagnostic codes, in order
	}{
		{"good folder", []string{p("good")}, 0, map[string]bool{"good/SKILL.md": true}, nil},
		{"good file, strict", []string{"--strict", p("good/SKILL.md")}, 0, map[string]bool{"good/SKILL.md": true}, nil},
		{"unknown field lenient", []string{p("extra-field")}, 0, map[string]bool{"extra-field/SKILL.md": true}, nil},
		{"unknown field strict", []string{"--strict", p("extra-field")}, 1, map[string]bool{"extra-field/SKILL.md": false}, []string{"unexpected-fields"}},
		{"missing description", []string{p("no-desc")}, 1, map[string]bool{"no-desc/SKILL.md": false}, []string{"description-required"}},
		{"folder of skills", []string{p("pack")}, 0, map[string]bool{"pack/one/SKILL.md": true, "pack/two/SKILL.md": true, "pack/root.md": true}, []string{"name-mismatch", "name-collision"}},
		{"no skill in folder", []string{p("empty")}, 1, map[string]bool{"empty": false}, []string{"no-skills"}},
		{"missing path", []string{p("nope")}, 2, map[string]bool{"nope": false}, []string{"path-not-found"}},
		{"bad yaml", []string{"--strict", p("bad-yaml")}, 1, map[string]bool{"bad-yaml/SKILL.md": false}, []string{"invalid-yaml"}},
		{"uppercase lenient warns", []string{p("upper")}, 0, map[string]bool{"upper/SKILL.md": true}, []string{"name-mismatch", "name-invalid-characters"}},
		{"uppercase strict", []string{"--strict", p("upper")}, 1, map[string]bool{"upper/SKILL.md": false}, []string{"name-not-lowercase", "name-mismatch"}},
		{"unclosed", []string{p("unclosed")}, 1, map[string]bool{"unclosed/SKILL.md": false}, []string{"unclosed-frontmatter"}},
		{"NFKC folder, strict", []string{"--strict", p("cafe\u0301")}, 0, map[string]bool{"cafe\u0301/SKILL.md": true}, nil},
		{"lowercase skill.md strict", []string{"--strict", p("lower-file")}, 0, map[string]bool{"lower-file/skill.md": true}, nil},
		{"several paths, one bad", []string{p("good"), p("no-desc")}, 1, map[string]bool{"good/SKILL.md": true, "no-desc/SKILL.md": false}, []string{"description-required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append([]string{"validate", "--json"}, tt.args...), &out, &errb)
			if code != tt.code {
				t.Errorf("exit %d, want %d; stderr %q\n%s", code, tt.code, errb.String(), out.String())
			}
			var got struct {
				Mode    string               `json:"mode"`
				Valid   bool                 `json:"valid"`
				Results []validateResultJSON `json:"results"`
			}
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("not one JSON object: %v\n%s", err, out.String())
			}
			oks := map[string]bool{}
			var codes []string
			for _, r := range got.Results {
				rel, _ := filepath.Rel(dir, r.Path)
				oks[filepath.ToSlash(rel)] = r.OK
				for _, d := range r.Diagnostics {
					codes = append(codes, d.Code)
				}
			}
			if diff := cmp.Diff(tt.okPaths, oks); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.codes, codes); diff != "" {
				t.Errorf("codes (-want +got):\n%s", diff)
			}
			if got.Valid != (tt.code == 0) {
				t.Errorf("valid = %v with exit %d", got.Valid, code)
			}
		})
	}
}

func TestValidateTextAndUsage(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"wrong-name/SKILL.md": "---\nname: right-name\ndescription: d\n---\n"})
	var out, errb bytes.Buffer
	code := run([]string{"validate", "--strict", filepath.Join(dir, "wrong-name")}, &out, &errb)
	if code != 1 || !strings.Contains(out.String(), "INVALID") || !strings.Contains(out.String(), "must match skill name") ||
		!strings.Contains(out.String(), "1 checked, 1 invalid (strict)") {
		t.Errorf("exit %d, output:\n%s", code, out.String())
	}
	out.Reset()
	if code := run([]string{"validate", filepath.Join(dir, "wrong-name")}, &out, &errb); code != 0 || !strings.Contains(out.String(), "does not match parent directory") {
		t.Errorf("lenient: exit %d, output:\n%s", code, out.String())
	}
	for _, tt := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"validate", "--help"}, 0, "usage: skill-lifecycle validate", ""},
		{[]string{"validate"}, 2, "", "no PATH given"},
		{[]string{"validate", "--nope", "x"}, 2, "", "unknown flag --nope"},
	} {
		var out, errb bytes.Buffer
		if code := run(tt.args, &out, &errb); code != tt.code || !strings.Contains(out.String(), tt.stdout) || !strings.Contains(errb.String(), tt.stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tt.args, code, out.String(), errb.String())
		}
	}
}
