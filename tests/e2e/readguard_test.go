//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readCase is one `read` call of the scripted model.
type readCase struct {
	name string
	args string // the arguments' JSON as the model sends them
	// tool is what Pi's read tool gets after Pi coerced args to its schema
	// (a numeric string is a number, a null optional property is dropped),
	// when it differs.
	tool   string
	target string // the skill whose SKILL.md the call aims at
}

// readArgs renders a read call's arguments: a path, then key, value pairs.
func readArgs(path string, kv ...any) string {
	m := map[string]any{"path": path}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// readGuardSkills writes the test skills and four skills whose folders need
// Pi's path variants (a space, a macOS screenshot name with U+202F, an NFD
// name, a curly apostrophe); it returns every SKILL.md by skill and the
// paths as a model would type the four.
func readGuardSkills(t *testing.T, env *Env) (files, typed map[string]string) {
	files = env.AddSkills(t, testSkills...)
	typed = map[string]string{}
	root := filepath.Join(env.ProjectDir, SkillDir)
	for _, s := range []struct{ name, folder, typed string }{
		{"spaced", "tide skill", "tide skill"},
		{"screenshot", "Shot at 3.04\u202FPM.skill", "Shot at 3.04 PM.skill"},
		{"decomposed", "mare\u0301e", "mar\u00e9e"},
		{"curly", "tide\u2019s", "tide's"},
	} {
		p := filepath.Join(root, s.folder, "SKILL.md")
		body := fmt.Sprintf("---\nname: %s\ndescription: Tide notes kept in a folder named %q. Use for tides.\n---\n\n# %s\n\nMarker: BODY-%s-77.\n", s.name, s.typed, s.name, s.name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		files[s.name] = p
		typed[s.name] = filepath.Join(root, s.typed, "SKILL.md")
	}
	// project/refs -> tide-tables/references: Pi 0.73 opens
	// /project/refs/../SKILL.md as written, so ".." leaves the link's target.
	tideDir := filepath.Dir(files["tide-tables"])
	if err := os.Symlink(filepath.Join(tideDir, "references"), filepath.Join(env.ProjectDir, "refs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(env.Home, "skills")); err != nil {
		t.Fatal(err)
	}
	return files, typed
}

// readCases are the reads of the differential test: every way of writing a
// full read that Pi's read tool accepts, and the ranged or wrong reads
// that it serves in part or refuses.
func readCases(env *Env, files, typed map[string]string) []readCase {
	tide := files["tide-tables"]
	dir := filepath.Dir(tide)
	spaced := typed["spaced"]
	ref := filepath.Join(dir, "references", "constituents.md")
	c := func(name, target, args string) readCase { return readCase{name: name, args: args, target: target} }
	return []readCase{
		c("plain", "tide-tables", readArgs(tide)),
		c("file-url", "tide-tables", readArgs("file://"+tide)),
		c("file-url-localhost", "tide-tables", readArgs("file://localhost"+tide)),
		c("file-url-percent-encoded", "tide-tables", readArgs("file://"+strings.Replace(tide, "SKILL.md", "%53KILL%2Emd", 1))),
		c("file-url-dot-segments", "tide-tables", readArgs("file://"+dir+"/%2e%2E/tide-tables/./SKILL.md")),
		c("file-url-backslashes", "tide-tables", readArgs("file://"+strings.ReplaceAll(tide, "/", `\`))),
		c("file-url-query-fragment", "tide-tables", readArgs("file://"+tide+"?raw=1#top")),
		c("file-url-tab-and-trailing-space", "tide-tables", readArgs("file://"+tide[:5]+"\t"+tide[5:]+"  ")),
		c("file-url-other-host", "tide-tables", readArgs("file://example.com"+tide)),
		c("file-url-at-prefixed", "tide-tables", readArgs("@file://"+tide)),
		c("file-url-space-encoded", "spaced", readArgs("file://"+strings.ReplaceAll(spaced, " ", "%20"))),
		c("no-break-space", "spaced", readArgs(strings.ReplaceAll(spaced, " ", "\u00a0"))),
		c("figure-space", "spaced", readArgs(strings.ReplaceAll(spaced, " ", "\u2007"))),
		c("narrow-no-break-space", "spaced", readArgs(strings.ReplaceAll(spaced, " ", "\u202f"))),
		c("ideographic-space", "spaced", readArgs(strings.ReplaceAll(spaced, " ", "\u3000"))),
		c("macos-screenshot-am-pm", "screenshot", readArgs(typed["screenshot"])),
		c("macos-nfd-name", "decomposed", readArgs(typed["decomposed"])),
		c("macos-curly-apostrophe", "curly", readArgs(typed["curly"])),
		c("absolute-dotdot-after-link", "tide-tables", readArgs(filepath.Join(env.ProjectDir, "refs")+"/../SKILL.md")),
		c("relative-dotdot-after-link", "tide-tables", readArgs("refs/../SKILL.md")),
		c("tilde", "tide-tables", readArgs("~/skills/tide-tables/SKILL.md")),
		c("offset-half", "tide-tables", readArgs(tide, "offset", 0.5)),
		c("offset-one-and-a-half", "tide-tables", readArgs(tide, "offset", 1.5)),
		c("offset-just-under-two", "tide-tables", readArgs(tide, "offset", 1.9999)),
		c("offset-zero", "tide-tables", readArgs(tide, "offset", 0)),
		c("offset-negative", "tide-tables", readArgs(tide, "offset", -3)),
		{name: "offset-null", target: "tide-tables", args: readArgs(tide, "offset", nil), tool: readArgs(tide)},
		{name: "offset-numeric-string", target: "tide-tables", args: readArgs(tide, "offset", "1.5"), tool: readArgs(tide, "offset", 1.5)},
		c("limit-covers-the-file", "tide-tables", readArgs(tide, "limit", 1000)),
		c("limit-minus-one", "tide-tables", readArgs(tide, "limit", -1)),
		c("file-url-offset-half", "tide-tables", readArgs("file://"+tide, "offset", 0.5)),
		// Served: some text left out, or not the file.
		c("offset-two-reads-on", "tide-tables", readArgs(tide, "offset", 2)),
		c("offset-two-and-a-half", "tide-tables", readArgs(tide, "offset", 2.5)),
		c("limit-partial", "tide-tables", readArgs(tide, "limit", 3)),
		c("limit-minus-four", "tide-tables", readArgs(tide, "limit", -4)),
		c("leading-space", "tide-tables", readArgs(" "+tide)),
		c("file-url-uppercase-scheme", "tide-tables", readArgs("FILE://"+tide)),
		c("reference-by-file-url", "tide-tables", readArgs("file://"+ref)),
	}
}

// piReadTool runs Pi's own read tool (pi's release, from its installed
// package) on each case outside Pi, in cwd with home as HOME.
func piReadTool(t *testing.T, pi PiInstall, home, cwd string, cases []readCase) []struct{ Text, Error string } {
	t.Helper()
	root := RepoRoot(t)
	pkg := filepath.Join(root, "tests", "e2e", "node_modules", "@earendil-works", "pi-coding-agent")
	if !pi.TrustGated {
		pkg = filepath.Join(root, "tests", "e2e", "pi073", "node_modules", "@mariozechner", "pi-coding-agent")
	}
	var in bytes.Buffer
	for _, c := range cases {
		a := c.tool
		if a == "" {
			a = c.args
		}
		in.WriteString(a + "\n")
	}
	cmd := exec.Command(pi.Node, filepath.Join(root, "tests", "e2e", "probe", "read-tool.mjs"), filepath.Join(pkg, "dist", "core", "tools", "read.js"), cwd)
	cmd.Dir = cwd
	cmd.Env = []string{"HOME=" + home, "PATH=" + pi.PathPrefix + string(os.PathListSeparator) + os.Getenv("PATH")}
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("Pi %s's read tool (read-tool.mjs): %v\n%s", pi.Version, err, stderr.String())
	}
	var res []struct{ Text, Error string }
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r struct{ Text, Error string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("read-tool.mjs line %q: %v", sc.Text(), err)
		}
		res = append(res, r)
	}
	if len(res) != len(cases) {
		t.Fatalf("read-tool.mjs answered %d of %d cases\n%s", len(res), len(cases), stderr.String())
	}
	return res
}

// servesWhole reports whether text holds every line of the file that has
// text, in order: the read returned the whole file.
func servesWhole(t *testing.T, file, text string) bool {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		i := strings.Index(text[at:], l)
		if i < 0 {
			return false
		}
		at += i + len(l)
	}
	return true
}

// scenarioReadGuardMatchesPi: the scripted model reads the skills' SKILL.md
// files in every way of readCases through the real Pi with the bridge.
// Pi's own read tool, run outside Pi on the same calls, says which reads
// return a whole file, for Pi 1.6 and Pi 0.73. Each read the Pi under test
// would serve whole is blocked with the pointer to the skill tool and the
// body never reaches the provider; a read served by the other Pi line is
// blocked too (the sidecar does not know which Pi it serves); every other
// read is served as Pi's read tool serves it, but for a file URL Pi 1.6
// refuses (the guard blocks those: lenient).
func scenarioReadGuardMatchesPi(t *testing.T, pi PiInstall) {
	var cases []readCase
	prov := NewProvider(t, func(r *Request) Reply {
		if r.UserTurn == 1 && r.Step < len(cases) {
			return Do(Call{Name: "read", Args: json.RawMessage(cases[r.Step].args)})
		}
		return Say("Done.")
	})
	env := NewEnv(t, pi, prov)
	env.UseBridge(t)
	env.ExtraEnv = append(env.ExtraEnv, slowMachineTimeout)
	files, typed := readGuardSkills(t, env)
	cases = readCases(env, files, typed)
	pi16, pi073 := piReadTool(t, Pi16(t), env.Home, env.ProjectDir, cases), piReadTool(t, Pi073(t), env.Home, env.ProjectDir, cases)
	this := pi16
	if !pi.TrustGated {
		this = pi073
	}

	res := env.RunOK(t, RunOpts{Prompts: []string{"Read the tide skills' files."}, Approve: pi.TrustGated, Timeout: 4 * DefaultTimeout})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	if len(reqs) != len(cases)+1 {
		t.Fatalf("provider got %d requests, want %d", len(reqs), len(cases)+1)
	}
	blocked, bypasses := 0, 0
	for i, c := range cases {
		got := reqs[i+1].LastToolResults()
		if len(got) != 1 {
			t.Fatalf("%s: tool results %+v", c.name, got)
		}
		text, file := got[0].Text(), files[c.target]
		marker := "TIDE-BODY-41c7"
		if c.target != "tide-tables" {
			marker = "BODY-" + c.target + "-77"
		}
		whole16 := pi16[i].Error == "" && servesWhole(t, file, pi16[i].Text)
		whole073 := pi073[i].Error == "" && servesWhole(t, file, pi073[i].Text)
		wholeHere := this[i].Error == "" && servesWhole(t, file, this[i].Text)
		isBlocked := strings.HasPrefix(text, "Blocked: ")
		if wholeHere {
			bypasses++
		}
		switch {
		case isBlocked:
			blocked++
			if !strings.Contains(text, "Blocked: "+file) || !strings.Contains(text, `call skill with name "`+c.target+`"`) {
				t.Errorf("%s (%s): blocked without the pointer to the skill tool:\n%s", c.name, c.args, text)
			}
			if strings.Contains(text, marker) {
				t.Errorf("%s: the blocked read delivered the body", c.name)
			}
			lenient := pi16[i].Error != "" && strings.Contains(c.args, "file:")
			if !whole16 && !whole073 && !lenient {
				t.Errorf("%s (%s): blocked, but neither Pi serves the whole file (1.6: %q; 0.73: %q)", c.name, c.args, pi16[i].Error, pi073[i].Error)
			}
		case wholeHere:
			t.Errorf("%s (%s): Pi %s served the whole SKILL.md, the guard let it through:\n%s", c.name, c.args, pi.Version, text)
		case whole16 || whole073:
			t.Errorf("%s (%s): served, but the other Pi line reads the whole file and the guard blocks for both", c.name, c.args)
		case this[i].Error != "":
			if !strings.Contains(text, this[i].Error) {
				t.Errorf("%s: Pi's read tool fails with %q, Pi answered %q", c.name, this[i].Error, text)
			}
		case text != this[i].Text:
			t.Errorf("%s: Pi's read tool returns %q, Pi answered %q", c.name, this[i].Text, text)
		}
	}
	t.Logf("Pi %s: %d reads, %d served whole by Pi's read tool, %d blocked", pi.Version, len(cases), bypasses, blocked)
}

func TestBridgeReadGuardMatchesPi16(t *testing.T) {
	t.Parallel()
	scenarioReadGuardMatchesPi(t, Pi16(t))
}

func TestBridgeReadGuardMatchesPi073(t *testing.T) {
	t.Parallel()
	scenarioReadGuardMatchesPi(t, Pi073(t))
}
