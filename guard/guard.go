// Package guard decides whether a host tool call would print the whole
// of a skill's SKILL.md, which the skill tool should serve instead: a
// read that returns the whole file (path and range resolved as Pi's read
// tool resolves them, readpath.go), or a bash command whose output holds
// every line of it with text (parsed as bash, shell.go). A part of the
// file, by either tool, is served. It reads a SKILL.md only to count and
// match its lines, through package skills.
package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Skill is a model-visible skill whose SKILL.md the guard protects.
type Skill struct {
	Name string
	Path string // its SKILL.md, as the host gave it
}

// Lookup says which model-visible skill's SKILL.md the absolute path p
// is, comparing p as given and with links resolved (a path that is not
// clean is resolved as the kernel resolves it).
type Lookup func(p string) (Skill, bool)

// Verdict is the guard's answer: Block, with the Reason the model sees
// instead of the tool's output and the Skill whose file it would read.
type Verdict struct {
	Block  bool   `json:"block"`
	Reason string `json:"reason,omitempty"`
	Skill  string `json:"skill,omitempty"`
}

// Check decides a call of tool with input (its arguments as the host
// received them), relative paths taken from cwd: a `read` that returns
// the whole of a skill's SKILL.md (readpath.go), or a bash command that
// prints all of its lines with text (shell.go). A read or a command that
// leaves out some of the file's text is served, so that a body cut to fit
// a budget can be read on; other files of a skill folder are never
// blocked.
func Check(tool string, input json.RawMessage, cwd string, skillFile Lookup) Verdict {
	switch tool {
	case "read":
		in, ok := parseReadArgs(input)
		if !ok {
			return Verdict{}
		}
		for _, file := range readTargets(in.path, cwd) {
			if s, ok := skillFile(file); ok && readsWhole(file, in.offset, in.limit) {
				return blockFor(s, "read")
			}
		}
	case "bash":
		var in struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(input, &in) != nil || in.Command == "" {
			return Verdict{}
		}
		if s, ok := printsSkillFile(in.Command, cwd, skillFile); ok {
			return blockFor(s, "bash")
		}
	}
	return Verdict{}
}

func blockFor(s Skill, tool string) Verdict {
	quoted := `"` + skills.ModelText(s.Name) + `"`
	return Verdict{
		Block: true,
		Skill: s.Name,
		Reason: fmt.Sprintf("Blocked: %s is the SKILL.md of the skill %s. Load skills with the skill tool instead: call skill with name %s. "+
			"The skill's other files (references, scripts, assets) can be read with %s as usual.", skills.ModelText(s.Path), quoted, quoted, tool),
	}
}

// resolveHostPath turns a path word of a bash command into an absolute
// path: a leading @ (some models add it) is dropped, ~ is the home folder,
// and relative paths are taken from cwd. (Reads resolve their path as
// Pi's read tool does: readTargets.)
func resolveHostPath(p, cwd string) string {
	p = strings.TrimPrefix(strings.TrimSpace(p), "@")
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, strings.TrimPrefix(p[1:], "/"))
		}
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// Folder is a skill's folder, for LeavesFolder: Dir as the host gave it
// (the folder of its SKILL.md) and Real, with links resolved.
type Folder struct {
	Skill     string
	Dir, Real string
}

// LeavesFolder decides a `read` of a skill's bundled file: a path that
// lies in a skill's folder as Pi resolves it (readpath.go) but leaves the
// folder once links are resolved (a link in a skill pack to a file of the
// user's) is blocked, with a reason naming both. Pi's read tool follows
// links, so only the call can be stopped; the skill's own files, links
// that stay inside, and paths outside every skill folder are served.
func LeavesFolder(tool string, input json.RawMessage, cwd string, folders []Folder) Verdict {
	if tool != "read" || len(folders) == 0 {
		return Verdict{}
	}
	in, ok := parseReadArgs(input)
	if !ok {
		return Verdict{}
	}
	for _, file := range readTargets(in.path, cwd) {
		// The folders the path lies in (a skill may sit in another's
		// folder): the file is served when its target is in any of them.
		var in []Folder
		for _, f := range folders {
			if inside(file, f.Dir) || inside(file, f.Real) {
				in = append(in, f)
			}
		}
		if len(in) == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(file)
		if err != nil || slices.ContainsFunc(in, func(f Folder) bool { return inside(real, f.Real) }) {
			continue
		}
		f := slices.MaxFunc(in, func(a, b Folder) int { return len(a.Dir) - len(b.Dir) })
		return Verdict{Block: true, Skill: f.Skill, Reason: fmt.Sprintf(
			"Blocked: %s is in the folder of the skill %s but resolves outside it (%s); a skill's files are read only inside its folder.",
			skills.ModelText(file), `"`+skills.ModelText(f.Skill)+`"`, skills.ModelText(real))}
	}
	return Verdict{}
}

// inside reports whether p lies under folder dir (not dir itself).
func inside(p, dir string) bool {
	return dir != "" && strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
