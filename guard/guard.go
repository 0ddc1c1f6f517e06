// Package guard decides whether a host tool call would read a skill's
// SKILL.md that the skill tool should serve instead: a read that returns
// the whole file (path and range resolved as Pi's read tool resolves
// them), or a bash command made only of commands that print files. It
// reads a SKILL.md only to count its lines, through package skills.
package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
// the whole of a skill's SKILL.md (readpath.go), or a bash command made
// only of commands that print files (cat, head, tail, less, more, sed -n,
// nl, bat), with cd between them, at least one of which prints a SKILL.md.
// A ranged read that leaves out some of the file's text is served, so
// that a body cut to fit a budget can be read on; other files of a skill
// folder are never blocked.
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

// printers are the commands that only print their file operands; the
// value lists the options that take a separate argument.
var printers = map[string]map[string]bool{
	"cat":  {},
	"head": {"-n": true, "-c": true},
	"tail": {"-n": true, "-c": true},
	"less": {},
	"more": {},
	"nl":   {"-b": true, "-s": true, "-w": true, "-v": true, "-i": true},
	"bat":  {"-l": true, "--language": true, "-r": true, "--line-range": true},
	"sed":  {"-e": true, "-f": true},
}

// printsSkillFile reports whether a bash command only prints files and
// prints at least one skill's SKILL.md. Anything it does not understand
// (pipes, redirections, substitutions, other commands) makes it answer no.
func printsSkillFile(command, cwd string, skillFile Lookup) (Skill, bool) {
	var found Skill
	any := false
	for _, part := range splitCommands(command) {
		words, ok := shellWords(part)
		if !ok {
			return Skill{}, false
		}
		if len(words) == 0 {
			continue
		}
		switch name := filepath.Base(words[0]); {
		case name == "cd":
			if len(words) > 2 {
				return Skill{}, false
			}
			if len(words) == 2 {
				cwd = resolveHostPath(words[1], cwd)
			}
		case printers[name] != nil:
			files, ok := printedFiles(name, words[1:])
			if !ok {
				return Skill{}, false
			}
			for _, f := range files {
				if s, ok := skillFile(resolveHostPath(f, cwd)); ok {
					if !any {
						found = s
					}
					any = true
				}
			}
		default:
			return Skill{}, false
		}
	}
	return found, any
}

// printedFiles returns the file operands of one printer invocation; ok is
// false when the invocation does more than print (sed without -n, or with
// a script that writes or executes).
func printedFiles(name string, args []string) (files []string, ok bool) {
	takesArg := printers[name]
	quiet := false
	script := false // sed: a script was given with -e or -f
	endOpts := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case !endOpts && a == "--":
			endOpts = true
		case !endOpts && strings.HasPrefix(a, "-") && len(a) > 1:
			if name == "sed" {
				switch {
				case a == "-n" || a == "--quiet" || a == "--silent":
					quiet = true
				case a == "-i" || strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "--in-place"):
					return nil, false
				case a == "-e" || a == "-f":
					if i+1 < len(args) && a == "-e" && !sedScriptPrints(args[i+1]) {
						return nil, false
					}
					if a == "-f" {
						return nil, false
					}
					script = true
					i++
				case strings.HasPrefix(a, "-") && strings.Contains(a, "n") && !strings.HasPrefix(a, "--"):
					quiet = true
				}
				continue
			}
			if takesArg[a] && i+1 < len(args) {
				i++
			}
		case !endOpts && strings.HasPrefix(a, "+") && (name == "less" || name == "more" || name == "tail"):
			// +N start line
		default:
			if name == "sed" && !script {
				if !sedScriptPrints(a) {
					return nil, false
				}
				script = true
				continue
			}
			files = append(files, a)
		}
	}
	if name == "sed" && !quiet {
		return nil, false
	}
	return files, len(files) > 0
}

// sedScriptPrints reports whether a sed script only selects lines to print
// (addresses, ranges, p, q, =), with no command that writes or executes.
func sedScriptPrints(s string) bool {
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9', r == ',', r == '$', r == 'p', r == 'q', r == '=', r == ';', r == ' ', r == '~', r == '+':
		default:
			return false
		}
	}
	return true
}

// splitCommands cuts a command line at ;, &&, || and newlines outside
// quotes.
func splitCommands(s string) []string {
	var parts []string
	var cur strings.Builder
	var quote rune
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else if r == '\\' && quote == '"' && i+1 < len(rs) {
				cur.WriteRune(r)
				i++
				r = rs[i]
			}
			cur.WriteRune(r)
			continue
		case r == '\'' || r == '"':
			quote = r
		case r == ';' || r == '\n':
			parts = append(parts, cur.String())
			cur.Reset()
			continue
		case (r == '&' || r == '|') && i+1 < len(rs) && rs[i+1] == r:
			parts = append(parts, cur.String())
			cur.Reset()
			i++
			continue
		case r == '&':
			// background job: not a plain print
			return []string{s + "\x00"}
		}
		cur.WriteRune(r)
	}
	return append(parts, cur.String())
}

// shellWords splits one simple command into words, honouring single and
// double quotes and backslash escapes; ok is false on an unclosed quote or
// a NUL, and also on anything a plain word cannot hold: a pipe, a
// redirection, an expansion or a glob outside single quotes.
func shellWords(s string) (words []string, ok bool) {
	var cur strings.Builder
	inWord := false
	var quote rune
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == 0 {
			return nil, false
		}
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"' && (r == '$' || r == '`'):
			return nil, false // expansion: not a plain word
		case quote == '"':
			if r == '"' {
				quote = 0
			} else if r == '\\' && i+1 < len(rs) {
				i++
				cur.WriteRune(rs[i])
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote = r
			inWord = true
		case strings.ContainsRune("|<>`$(){}*?[", r):
			return nil, false // pipes, redirections, expansions, globs
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case r == ' ' || r == '\t' || r == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, true
}
