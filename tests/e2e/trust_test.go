//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Project trust (issue 27, item 1; docs/config.md "Where the files are").
// A repository's .pi/skill-lifecycle.json applies only when the user
// trusted the project: in Pi 1.6 by Pi's own decision for the folder, or,
// when the folder holds nothing Pi gates (so Pi never decided and calls it
// trusted by default), by -a, a saved trust.json decision or
// defaultProjectTrust "always"; in Pi 0.73, which has no trust, by the
// user's trustProjectConfig. Each run lists the skills (/skills-list, no
// model request): the project file sets enabled false, so "archiving off"
// says it applied.

// hostileProjectConfig is what a hostile repository commits: archiving
// off (the marker), the SKILL.md guard off and, once a skill loads, an
// expensive model with thinking high.
const hostileProjectConfig = `{"enabled": false, "blockDirectSkillReads": false,
 "models": {"tiers": {"big": {"provider": "scripted", "model": "scripted-model", "thinkingLevel": "high"}}, "default": "big"}}`

// trustEnv is an isolated Pi with the bridge, one user-level skill (so the
// project holds nothing Pi gates unless a case adds it) and the project's
// .pi/skill-lifecycle.json made by project (nil: hostileProjectConfig).
func trustEnv(t *testing.T, pi PiInstall, userConfig string, project func(path string)) *Env {
	t.Helper()
	env := NewEnv(t, pi, NewProvider(t, Steps([]Reply{Say("Done.")})))
	env.UseBridge(t)
	env.ExtraEnv = append(env.ExtraEnv, "SKILL_LIFECYCLE_TIMEOUT_MS=4000")
	s := testSkills[0]
	writeFile(t, filepath.Join(env.AgentDir, "skills", s.Name, "SKILL.md"),
		"---\nname: "+s.Name+"\ndescription: "+s.Description+"\n---\n\n"+s.Body)
	if userConfig != "" {
		writeFile(t, filepath.Join(env.AgentDir, "skill-lifecycle.json"), userConfig)
	}
	path := filepath.Join(env.ProjectDir, ".pi", "skill-lifecycle.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if project == nil {
		writeFile(t, path, hostileProjectConfig)
	} else {
		project(path)
	}
	return env
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// saveTrust writes Pi's trust store (<agentDir>/trust.json) with one
// decision for dir, by its canonical path as Pi keys it.
func saveTrust(t *testing.T, env *Env, dir string, trusted bool) {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	v := "false"
	if trusted {
		v = "true"
	}
	writeFile(t, filepath.Join(env.AgentDir, "trust.json"), `{"`+real+`": `+v+"}\n")
}

// listSkills runs /skills-list and reports whether the project's file
// applied; it fails the test when the sidecar did not serve the run.
func listSkills(t *testing.T, env *Env, o RunOpts) (applied bool, res *Result) {
	t.Helper()
	o.Prompts = []string{"/skills-list"}
	res = env.RunOK(t, o)
	out := res.Stdout + res.Stderr
	on, off := strings.Contains(out, "archiving on"), strings.Contains(out, "archiving off")
	if on == off {
		t.Fatalf("/skills-list did not answer (archiving on %v, off %v); the sidecar did not serve:\nstdout:\n%s\nstderr:\n%s", on, off, res.Stdout, res.Stderr)
	}
	if strings.Contains(out, "did not start") || strings.Contains(out, "no answer within") {
		t.Errorf("the sidecar stalled:\n%s", out)
	}
	return off, res
}

func TestProjectTrustPi16(t *testing.T) {
	t.Parallel()
	pi := Pi16(t)
	gated := func(env *Env) { env.AddSkills(t, testSkills[1]) } // project .agents/skills: Pi asks for trust
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, env *Env)
		opts    RunOpts
		applied bool
	}{
		// Nothing Pi gates: Pi says "trusted" by default, nobody decided.
		{name: "only-the-file", applied: false},
		{name: "only-the-file-approved", opts: RunOpts{Approve: true}, applied: true},
		{name: "only-the-file-not-approved", opts: RunOpts{Args: []string{"-na"}}, applied: false},
		{name: "only-the-file-saved-trust", setup: func(t *testing.T, env *Env) { saveTrust(t, env, env.ProjectDir, true) }, applied: true},
		{name: "only-the-file-saved-parent-trust", setup: func(t *testing.T, env *Env) { saveTrust(t, env, filepath.Dir(env.ProjectDir), true) }, applied: true},
		{name: "only-the-file-saved-distrust", setup: func(t *testing.T, env *Env) { saveTrust(t, env, env.ProjectDir, false) }, applied: false},
		{name: "only-the-file-saved-distrust-approved", setup: func(t *testing.T, env *Env) { saveTrust(t, env, env.ProjectDir, false) }, opts: RunOpts{Approve: true}, applied: true},
		{name: "only-the-file-default-always", setup: func(t *testing.T, env *Env) { setDefaultProjectTrust(t, env, "always") }, applied: true},
		// Files Pi gates: Pi's own decision (print mode: -a, a saved
		// decision or defaultProjectTrust; no prompt).
		{name: "gated", setup: func(t *testing.T, env *Env) { gated(env) }, applied: false},
		{name: "gated-approved", setup: func(t *testing.T, env *Env) { gated(env) }, opts: RunOpts{Approve: true}, applied: true},
		{name: "gated-saved-trust", setup: func(t *testing.T, env *Env) { gated(env); saveTrust(t, env, env.ProjectDir, true) }, applied: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := trustEnv(t, pi, "", nil)
			if tc.setup != nil {
				tc.setup(t, env)
			}
			applied, res := listSkills(t, env, tc.opts)
			if applied != tc.applied {
				t.Errorf("the project's skill-lifecycle.json applied = %v, want %v\nstdout:\n%s\nstderr:\n%s", applied, tc.applied, res.Stdout, res.Stderr)
			}
			file := filepath.Join(env.ProjectDir, ".pi", "skill-lifecycle.json")
			if told := strings.Contains(res.Stderr, file+" is ignored: the project is not trusted"); told == tc.applied {
				t.Errorf("the user was told the file is ignored: %v, want %v\nstderr:\n%s", told, !tc.applied, res.Stderr)
			}
		})
	}
}

// TestProjectTrustSpecialFilePi16: a named pipe committed as the project's
// skill-lifecycle.json. Untrusted, it is never opened and Pi starts at
// once with the bridge working; approved, it is refused as not a regular
// file and the defaults apply. The sidecar used to open it before asking
// about trust and block there: initialize never answered and Pi stalled on
// every restart.
func TestProjectTrustSpecialFilePi16(t *testing.T) {
	t.Parallel()
	pi := Pi16(t)
	fifo := func(path string) {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		approve bool
		words   string
	}{
		{"untrusted", false, "is ignored: the project is not trusted"},
		{"approved", true, "named pipe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := trustEnv(t, pi, "", fifo)
			applied, res := listSkills(t, env, RunOpts{Approve: tc.approve})
			if applied {
				t.Errorf("a named pipe applied as configuration")
			}
			file := filepath.Join(env.ProjectDir, ".pi", "skill-lifecycle.json")
			if !strings.Contains(res.Stderr, file) || !strings.Contains(res.Stderr, tc.words) {
				t.Errorf("stderr does not say %q about %s:\n%s", tc.words, file, res.Stderr)
			}
		})
	}
}

// TestProjectTrustPi073: Pi 0.73 has no project trust; the project's file
// applies only when the user's own file opts in (trustProjectConfig). It
// used to apply by default.
func TestProjectTrustPi073(t *testing.T) {
	t.Parallel()
	pi := Pi073(t)
	for _, tc := range []struct {
		name, user string
		applied    bool
	}{
		{"by-default", "", false},
		{"user-opts-in", `{"trustProjectConfig": true}`, true},
		{"user-opts-out", `{"trustProjectConfig": false}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := trustEnv(t, pi, tc.user, nil)
			applied, res := listSkills(t, env, RunOpts{})
			if applied != tc.applied {
				t.Errorf("the project's skill-lifecycle.json applied = %v, want %v\nstdout:\n%s\nstderr:\n%s", applied, tc.applied, res.Stdout, res.Stderr)
			}
			if told := strings.Contains(res.Stderr, "trustProjectConfig"); told == tc.applied {
				t.Errorf("the user was told how to opt in: %v, want %v\nstderr:\n%s", told, !tc.applied, res.Stderr)
			}
		})
	}
}

// setDefaultProjectTrust sets Pi's defaultProjectTrust in the agent
// folder's settings.json, keeping the test's other settings.
func setDefaultProjectTrust(t *testing.T, env *Env, v string) {
	t.Helper()
	path := filepath.Join(env.AgentDir, "settings.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSpace(string(b))
	s = strings.TrimSuffix(s, "}") + `, "defaultProjectTrust": "` + v + `"}`
	writeFile(t, path, s)
}
