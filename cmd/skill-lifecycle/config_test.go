package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain keeps the machine's own skill-lifecycle.json out of the tests:
// explain and list read <agent dir>/skill-lifecycle.json, and the agent
// dir is an empty folder unless a test sets PI_CODING_AGENT_DIR.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "skill-lifecycle-agent")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("PI_CODING_AGENT_DIR", dir)
	os.Setenv("XDG_CACHE_HOME", dir) // the start-up cache (host/cache.go)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const tiersConfig = `{"models": {"tiers": {"small": {"provider": "local", "model": "mini", "thinkingLevel": "low", "scope": "run"}}}}`

// configEnv makes an agent dir holding user (skip when "") and a project
// folder holding project as .pi/skill-lifecycle.json (skip when ""), and
// runs the test from the project.
func configEnv(t *testing.T, user, project string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"proj/.git/HEAD": "x"}
	if user != "" {
		files["agent/skill-lifecycle.json"] = user
	}
	if project != "" {
		files["proj/.pi/skill-lifecycle.json"] = project
	}
	writeFiles(t, dir, files)
	if err := os.MkdirAll(filepath.Join(dir, "agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PI_CODING_AGENT_DIR", filepath.Join(dir, "agent"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Chdir(filepath.Join(dir, "proj"))
}

// TestExplainReadsConfig: explain applies the configuration the sidecar
// reads for a host without trust: the user's file, and the project's only
// when the user's sets trustProjectConfig; --config replaces both.
func TestExplainReadsConfig(t *testing.T) {
	pack, err := filepath.Abs(filepath.Join("..", "..", "testdata", "pack"))
	if err != nil {
		t.Fatal(err)
	}
	trusting := `{"trustProjectConfig": true}`
	empty := filepath.Join(t.TempDir(), "empty.json")
	if err := os.WriteFile(empty, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		user, project string
		extra         []string
		model         string
		stderr        string // on stderr
	}{
		{"no configuration", "", "", nil, "local/big (thinking high)", ""},
		{"user's tiers", tiersConfig, "", nil, "local/mini (thinking low)", ""},
		{"project's tiers, not trusted", "", tiersConfig, nil, "local/big (thinking high)", ".pi/skill-lifecycle.json is ignored"},
		{"project's tiers, trusted by the user's file", trusting, tiersConfig, nil, "local/mini (thinking low)", ""},
		{"--config replaces the user's", tiersConfig, "", []string{"--config", empty}, "local/big (thinking high)", ""},
		{"a broken user file is named and ignored", `{"topK": "x"}`, "", nil, "local/big (thinking high)", "skill-lifecycle.json:1: error: topK"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			configEnv(t, tc.user, tc.project)
			args := append([]string{"explain", "--json", "--skills", pack}, tc.extra...)
			args = append(args, "--model", "write-release-notes", "--current", "local/big:high")
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code != exitOK {
				t.Fatalf("exit %d; stderr %s", code, errb.String())
			}
			var got modelReport
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			if got.Model != tc.model {
				t.Errorf("model %q, want %q (%s)", got.Model, tc.model, got.Cause.Reason)
			}
			if !strings.Contains(errb.String(), tc.stderr) || (tc.stderr == "" && errb.Len() != 0) {
				t.Errorf("stderr %q, want %q", errb.String(), tc.stderr)
			}
		})
	}
	// The ranking takes the configuration's minSignal unless --min-signal
	// is given.
	configEnv(t, `{"minSignal": 1000}`, "")
	for _, tc := range []struct {
		extra  []string
		signal bool
	}{{nil, false}, {[]string{"--min-signal", "2"}, true}} {
		var out, errb bytes.Buffer
		args := append(append([]string{"explain", "--json", "--skills", pack}, tc.extra...), "add a column to the orders table with a migration")
		if code := run(args, &out, &errb); code != exitOK {
			t.Fatalf("%v: exit %d; stderr %s", tc.extra, code, errb.String())
		}
		var got rankReport
		decodeOne(t, out.Bytes(), &got)
		if got.Signal != tc.signal {
			t.Errorf("%v: signal %v, want %v (best %.2f)", tc.extra, got.Signal, tc.signal, got.Best)
		}
	}
}

// TestListReadsConfig: list's roles are those the engine applies under
// the user's configuration: entrySkill and helperSkills (source
// "config"), and no inferred entry when the configuration names one.
func TestListReadsConfig(t *testing.T) {
	pack, err := filepath.Abs(filepath.Join("..", "..", "testdata", "pack"))
	if err != nil {
		t.Fatal(err)
	}
	configEnv(t, `{"entrySkill": "design-http-api", "helperSkills": ["add-go-test"]}`, "")
	var out, errb bytes.Buffer
	if code := run([]string{"list", "--json", "--skills", pack}, &out, &errb); code != exitOK {
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
	want := map[string]string{
		"design-http-api":       "entry/config",
		"add-go-test":           "helper/config",
		"format-commit-message": "helper/frontmatter",
		"triage-web-task":       "entry/frontmatter",
	}
	if fmt.Sprint(roles) != fmt.Sprint(want) {
		t.Errorf("roles %v, want %v", roles, want)
	}
}

// TestExplainNoSkills: with no skill installed, explain says where it
// looked and ends with 1, instead of ranking nothing ("the prompt names no
// topic").
func TestExplainNoSkills(t *testing.T) {
	configEnv(t, "", "")
	emptyPack := t.TempDir()
	for _, args := range [][]string{
		{"explain", "--skills", emptyPack, "add a column to the orders table"},
		{"explain", "--json", "add a column to the orders table"},
		{"explain", "--loaded", "a,b", "write the release notes"},
	} {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		if code != exitFailed || out.Len() != 0 || !strings.Contains(errb.String(), "no skills found under ") || strings.Contains(errb.String(), "names no topic") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and \"no skills found under\"", args, code, out.String(), errb.String())
		}
		if args[1] == "--skills" && !strings.Contains(errb.String(), emptyPack) {
			t.Errorf("%v: stderr does not name the folder: %q", args, errb.String())
		}
	}
}
