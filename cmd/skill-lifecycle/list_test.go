package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type listOut struct {
	Skills      []listSkillJSON `json:"skills"`
	Diagnostics []diagJSON      `json:"diagnostics"`
}

func TestListJSONPack(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"list", "--skills", "../../testdata/pack", "--json"}, &out, &errb)
	if code != 0 || errb.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	var got listOut
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, out.String())
	}
	type row struct{ Name, Source, Role, RoleSource, Tier string }
	var rows []row
	for _, s := range got.Skills {
		rows = append(rows, row{s.Name, s.Source, s.Role, s.RoleSource, s.ModelTier})
		if !filepath.IsAbs(s.Path) {
			t.Errorf("%s: path %q is not absolute", s.Name, s.Path)
		}
	}
	want := []row{
		{"add-go-test", "path", "", "", ""},
		{"design-http-api", "path", "", "", ""},
		{"format-commit-message", "path", "helper", "frontmatter", ""},
		{"profile-go-service", "path", "", "", ""},
		{"trace-failing-request", "path", "", "", ""},
		{"triage-web-task", "path", "entry", "frontmatter", ""},
		{"write-release-notes", "path", "", "", "small"},
		{"write-sql-migration", "path", "", "", ""},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if len(got.Diagnostics) != 0 {
		t.Errorf("diagnostics: %+v", got.Diagnostics)
	}
}

func TestListInferredRoleSeam(t *testing.T) {
	old := inferRoles
	defer func() { inferRoles = old }()
	inferRoles = func(c *skills.Catalog) map[string]skills.Role {
		// claims both; frontmatter must win for the one that declares a role
		return map[string]skills.Role{"add-go-test": skills.RoleEntry, "format-commit-message": skills.RoleEntry}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"list", "--json", "--skills", "../../testdata/pack"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got listOut
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	roles := map[string]string{}
	for _, s := range got.Skills {
		if s.Role != "" {
			roles[s.Name] = s.Role + "/" + s.RoleSource
		}
	}
	want := map[string]string{"add-go-test": "entry/inferred", "format-commit-message": "helper/frontmatter", "triage-web-task": "entry/frontmatter"}
	if diff := cmp.Diff(want, roles); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
}

func TestListText(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a/calendar/SKILL.md": "---\nname: calendar\ndescription: first\ndisable-model-invocation: true\n---\n",
		"b/calendar/SKILL.md": "---\nname: calendar\ndescription: second\n---\n",
		"b/broken/SKILL.md":   "---\nname: broken\ndescription: [x\n---\n",
	})
	var out, errb bytes.Buffer
	code := run([]string{"list", "--skills", filepath.Join(dir, "a"), "--skills", filepath.Join(dir, "b")}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	text := out.String()
	for _, want := range []string{"calendar (hidden)", "1 skills, 2 diagnostics", "[name-collision]", "[invalid-yaml]", filepath.Join(dir, "b", "broken", "SKILL.md") + ":3: error:"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

func TestListDiscoversFromCwd(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"proj/.git/HEAD":                      "x",
		"proj/.pi/skills/local/SKILL.md":      "---\nname: local\ndescription: project skill\n---\n",
		"proj/.agents/skills/shared/SKILL.md": "---\nname: shared\ndescription: agents skill\n---\n",
		"home/.pi/agent/skills/mine/SKILL.md": "---\nname: mine\ndescription: user skill\n---\n",
	})
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("PI_CODING_AGENT_DIR", "")
	t.Chdir(filepath.Join(dir, "proj"))
	var out, errb bytes.Buffer
	if code := run([]string{"list", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got listOut
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got.Skills {
		names = append(names, s.Name+"/"+s.Source)
	}
	if diff := cmp.Diff([]string{"local/project", "shared/path", "mine/user"}, names); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
}

func TestListUsage(t *testing.T) {
	tests := []struct {
		args     []string
		code     int
		stdout   string
		stderr   string
		noStdout bool
	}{
		{args: []string{"list", "--help"}, code: 0, stdout: "usage: skill-lifecycle list"},
		{args: []string{"list", "--bogus"}, code: 2, stderr: "unknown flag --bogus", noStdout: true},
		{args: []string{"list", "extra"}, code: 2, stderr: "unexpected argument", noStdout: true},
		{args: []string{"list", "--skills", "/nonexistent/skills"}, code: 2, stderr: "no such file", noStdout: true},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := run(tt.args, &out, &errb)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d", tt.args, code, tt.code)
		}
		if !strings.Contains(out.String(), tt.stdout) || !strings.Contains(errb.String(), tt.stderr) {
			t.Errorf("%v: stdout %q, stderr %q", tt.args, out.String(), errb.String())
		}
		if tt.noStdout && out.Len() != 0 {
			t.Errorf("%v: wrote to stdout on error: %q", tt.args, out.String())
		}
	}
}
