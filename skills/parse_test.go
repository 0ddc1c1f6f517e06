package skills

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func codes(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

func TestParseFields(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  Skill
		codes []string
	}{
		{
			name: "all fields, CRLF, BOM, scalars as written",
			in: "\ufeff---\r\nname: web-triage\r\ndescription: >\r\n  Route a task\r\n  to a skill.\r\nlicense: MIT\r\ncompatibility: go 1.26\r\n" +
				"allowed-tools: Bash(go:*) Read\r\nmetadata:\r\n  version: 1.0\r\n  role: entry\r\n  modelTier: small\r\n  n: 010\r\n" +
				"disable-model-invocation: true\r\n---\r\n# Title\r\nbody\r\n",
			want: Skill{Name: "web-triage", Description: "Route a task to a skill.\n", License: "MIT", Compatibility: "go 1.26",
				AllowedTools: "Bash(go:*) Read", DisableModelInvocation: true, Role: RoleEntry, ModelTier: "small",
				Metadata: map[string]string{"version": "1.0", "role": "entry", "modelTier": "small", "n": "010"},
				Headings: []Heading{{1, "Title", 16}}, Body: "# Title\r\nbody\r\n", BodyLine: 16, HasFrontmatter: true,
				Fields: []Field{{"name", 2}, {"description", 3}, {"license", 6}, {"compatibility", 7}, {"allowed-tools", 8}, {"metadata", 9}, {"disable-model-invocation", 14}}},
		},
		{
			name: "name defaults to folder; quoted true is not a boolean",
			in:   "---\ndescription: d\ndisable-model-invocation: \"true\"\n---\n",
			want: Skill{Name: "folder", Description: "d", BodyLine: 5, HasFrontmatter: true,
				Fields: []Field{{"description", 2}, {"disable-model-invocation", 3}}},
			codes: []string{"field-type"},
		},
		{
			name:  "no frontmatter",
			in:    "# Just markdown\n",
			want:  Skill{Name: "folder", Body: "# Just markdown\n", BodyLine: 1, Headings: []Heading{{1, "Just markdown", 1}}},
			codes: nil,
		},
		{
			name:  "unclosed frontmatter",
			in:    "---\nname: x\ndescription: y\n",
			want:  Skill{Name: "folder", Body: "---\nname: x\ndescription: y\n", BodyLine: 1},
			codes: []string{"unclosed-frontmatter"},
		},
		{
			name:  "invalid yaml",
			in:    "---\nname: ok\ndescription: [unclosed bracket\n---\nx\n",
			want:  Skill{Name: "folder", Body: "x\n", BodyLine: 5, HasFrontmatter: true},
			codes: []string{"invalid-yaml"},
		},
		{
			name:  "list frontmatter",
			in:    "---\n- a\n- b\n---\n",
			want:  Skill{Name: "folder", BodyLine: 5, HasFrontmatter: true},
			codes: []string{"frontmatter-not-mapping"},
		},
		{
			name: "duplicate key, unknown role, nested metadata",
			in:   "---\ndescription: a\ndescription: b\nmetadata:\n  role: boss\n  deep: {x: 1}\n---\n",
			want: Skill{Name: "folder", Description: "a", BodyLine: 8, HasFrontmatter: true, Metadata: map[string]string{"role": "boss"},
				Fields: []Field{{"description", 2}, {"metadata", 4}}},
			codes: []string{"duplicate-field", "unknown-role", "field-type"},
		},
		{
			name:  "description of wrong type",
			in:    "---\ndescription: [a, b]\n---\n",
			want:  Skill{Name: "folder", BodyLine: 4, HasFrontmatter: true, Fields: []Field{{"description", 2}}},
			codes: []string{"field-type"},
		},
		{
			name:  "alias bomb stays small",
			in:    "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\ndescription: *a\n---\n",
			want:  Skill{Name: "folder", BodyLine: 9, HasFrontmatter: true, Fields: []Field{{"a", 2}, {"b", 3}, {"c", 4}, {"d", 5}, {"e", 6}, {"description", 7}}},
			codes: []string{"field-type"},
		},
		{
			name:  "deep nesting",
			in:    "---\ndescription: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n---\n",
			want:  Skill{Name: "folder", BodyLine: 4, HasFrontmatter: true},
			codes: []string{"invalid-yaml"},
		},
		{
			name:  "binary garbage",
			in:    "\x00\xff\xfe\x01garbage\n",
			want:  Skill{Name: "folder", Body: "\x00\xff\xfe\x01garbage\n", BodyLine: 1},
			codes: []string{"not-utf8", "binary"},
		},
		{
			name: "empty frontmatter",
			in:   "---\n---\nbody\n",
			want: Skill{Name: "folder", Body: "body\n", BodyLine: 3, HasFrontmatter: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, diags := Parse("/skills/folder/SKILL.md", []byte(tt.in))
			tt.want.Path, tt.want.RealPath, tt.want.Dir, tt.want.Size = "/skills/folder/SKILL.md", "/skills/folder/SKILL.md", "/skills/folder", int64(len(tt.in))
			if diff := cmp.Diff(&tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("skill (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.codes, codes(diags), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("diagnostic codes (-want +got):\n%s\n%+v", diff, diags)
			}
			for _, d := range diags {
				if d.Path != "/skills/folder/SKILL.md" || d.Message == "" {
					t.Errorf("diagnostic without path or message: %+v", d)
				}
			}
		})
	}
}

func TestParseTooLarge(t *testing.T) {
	big := "---\ndescription: x\n---\n" + strings.Repeat("a", MaxFileSize)
	_, d := Parse("/s/x/SKILL.md", []byte(big))
	if diff := cmp.Diff([]string{"file-too-large"}, codes(d)); diff != "" {
		t.Error(diff)
	}
	fm := "---\ndescription: " + strings.Repeat("a", MaxFrontmatterSize) + "\n---\n"
	_, d = Parse("/s/x/SKILL.md", []byte(fm))
	if diff := cmp.Diff([]string{"frontmatter-too-large"}, codes(d)); diff != "" {
		t.Error(diff)
	}
}

func TestHeadings(t *testing.T) {
	body := "# One\n" +
		"text # not\n" +
		"    # indented code\n" +
		"   ### Three spaces ###\n" +
		"#NoSpace\n" +
		"####### seven\n" +
		"```go\n# in fence\n~~~\n# still in fence\n```\n" +
		"~~~~\n# tilde fence\n```\n~~~~\n" +
		"## When not to use\n" +
		"#\n" +
		"###### Six # hash\n"
	got := headings([]byte(body), 10, func(b []byte) string { return string(b) })
	want := []Heading{{1, "One", 10}, {3, "Three spaces", 13}, {2, "When not to use", 25}, {1, "", 26}, {6, "Six # hash", 27}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headings (-want +got):\n%s", diff)
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain-ascii", "plain-ascii"},
		{"cafe\u0301", "caf\u00e9"},
		{"caf\u00e9", "caf\u00e9"},
		{"\uff41\uff42\uff43", "abc"},
		{"e\u0323\u0302", "\u1ec7"},
		{"\u1100\u1161\u11a8", "\uac01"},
		{"мой-навык", "мой-навык"},
		// Full NFKC: ligatures and marks out of canonical order, which
		// the hand-made subset left as they were.
		{"\ufb01le-skill", "file-skill"},
		{"e\u0302\u0323", "\u1ec7"},
		{"x\u00b2", "x2"},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
