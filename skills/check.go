package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// FindSkillFile returns the skill file of a skill folder: SKILL.md, or
// else skill.md (which the reference validator also accepts), or "" when
// neither exists.
func FindSkillFile(dir string) string {
	for _, n := range []string{"SKILL.md", "skill.md"} {
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			// On a case-insensitive file system both names hit the same
			// file; report the name as it is stored.
			if n == "SKILL.md" || !sameNameStored(dir, "SKILL.md") {
				return p
			}
		}
	}
	return ""
}

func sameNameStored(dir, name string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() == name {
			return true
		}
	}
	return false
}

// CheckDir validates the skill whose folder is dir, the way the reference
// validator's validate(path) does: the path must exist and be a folder
// holding SKILL.md (or skill.md), which is then parsed and validated in
// mode. ok reports that no diagnostic is an Error. The Skill is nil when no
// file could be read.
func CheckDir(dir string, mode Mode) (s *Skill, diags []Diagnostic, ok bool) {
	st, err := os.Stat(dir)
	if err != nil {
		code, msg := "path-unreadable", fmt.Sprintf("cannot read path: %v", err)
		if errors.Is(err, fs.ErrNotExist) {
			code, msg = "path-not-found", "path does not exist"
		}
		return nil, []Diagnostic{{Path: dir, Severity: Error, Code: code, Message: msg}}, false
	}
	if !st.IsDir() {
		return nil, []Diagnostic{{Path: dir, Severity: Error, Code: "not-a-directory", Message: "Not a directory: a skill is a folder holding SKILL.md"}}, false
	}
	file := FindSkillFile(dir)
	if file == "" {
		return nil, []Diagnostic{{Path: dir, Severity: Error, Code: "missing-skill-md",
			Message: "Missing required file: SKILL.md (SKILL.md not found in this folder)"}}, false
	}
	return CheckFile(file, mode)
}

// CheckFile reads, parses and validates one skill file in mode.
func CheckFile(file string, mode Mode) (s *Skill, diags []Diagnostic, ok bool) {
	data, err := readLimited(file, MaxFileSize)
	if err != nil {
		code, msg := unreadable(err)
		if errors.Is(err, errTooLarge) {
			code, msg = "file-too-large", fmt.Sprintf("the file is over the %d-byte limit for a skill file", MaxFileSize)
		}
		return nil, []Diagnostic{{Path: file, Severity: Error, Code: code, Message: msg}}, false
	}
	s, diags, ok = Load(file, data, mode)
	if real, err := filepath.EvalSymlinks(file); err == nil {
		s.RealPath = real
	}
	if mode == Lenient && filepath.Base(file) == "skill.md" {
		diags = append(diags, Diagnostic{Path: file, Severity: Warning, Code: "lowercase-skill-md",
			Message: "Pi discovers only files named SKILL.md inside skill folders; rename skill.md to SKILL.md"})
	}
	return s, diags, ok
}

// Result is the outcome of checking one skill file.
type Result struct {
	Path        string // the file (or, when nothing could be read, the path given)
	Skill       *Skill // nil when the file could not be read
	Diagnostics []Diagnostic
	OK          bool // no Error diagnostic: loads (Lenient) or is valid (Strict)
}

// Check validates what path names, in mode: a skill file; a skill folder
// (one holding SKILL.md or skill.md, checked as CheckDir does); or a folder
// of skills, scanned with Discover's rules (root *.md files, SKILL.md
// below, dot folders and node_modules skipped, symlinks followed once), in
// which case a name used twice adds a "name-collision" warning to the
// second file. A path that holds no skill gives one failing Result.
func Check(path string, mode Mode) []Result {
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		var s *Skill
		var ds []Diagnostic
		var ok bool
		if err == nil {
			s, ds, ok = CheckFile(path, mode)
		} else {
			_, ds, ok = CheckDir(path, mode)
		}
		return []Result{{Path: path, Skill: s, Diagnostics: ds, OK: ok}}
	}
	if FindSkillFile(path) != "" {
		s, ds, ok := CheckDir(path, mode)
		p := path
		if s != nil {
			p = s.Path
		}
		return []Result{{Path: p, Skill: s, Diagnostics: ds, OK: ok}}
	}
	w := newWalker(func(*item) {})
	w.root(Root{Path: path, Source: SourcePath})
	var results []Result
	byName := map[string]string{}
	for _, it := range w.items {
		it.load(mode, nil)
		if it.path == "" || it.s == nil {
			// a walk problem or an unreadable file: invalid
			var ds []Diagnostic
			for _, d := range it.diags {
				d.Severity = Error
				ds = append(ds, d)
			}
			p := it.path
			if p == "" && len(ds) > 0 {
				p = ds[0].Path
			}
			results = append(results, Result{Path: p, Diagnostics: ds})
			continue
		}
		s, ds, ok := it.s, it.diags, it.ok
		if ok {
			if first, dup := byName[s.Name]; dup {
				ds = append(ds, Diagnostic{Path: first, OtherPath: s.Path, Field: "name", Severity: Warning, Code: "name-collision",
					Message: fmt.Sprintf("skill name %q is used by %s and by %s; the first is kept", s.Name, first, s.Path)})
			} else {
				byName[s.Name] = s.Path
			}
		}
		results = append(results, Result{Path: it.path, Skill: s, Diagnostics: ds, OK: ok})
	}
	if len(results) == 0 {
		results = append(results, Result{Path: path, Diagnostics: []Diagnostic{{Path: path, Severity: Error, Code: "no-skills",
			Message: "no skill found: the folder holds no SKILL.md and no root .md file"}}})
	}
	return results
}

// String formats a diagnostic as "path:line: severity: message [code]",
// one line for a terminal: the path and the message (which may quote skill
// text) as TerminalText.
func (d Diagnostic) String() string {
	loc := TerminalText(d.Path)
	if d.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, d.Line)
	}
	return fmt.Sprintf("%s: %s: %s [%s]", loc, d.Severity, TerminalText(d.Message), d.Code)
}
