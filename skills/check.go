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
		msg := fmt.Sprintf("cannot read skill file: %v", err)
		code := "file-unreadable"
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
