package skills

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is the error of ReadSkill for a skill file that, links
// resolved, lies outside its skill's folder.
var ErrOutside = errors.New("resolves outside the skill's folder")

// ReadSkill reads and parses the skill file at path on the skill's behalf,
// as the skill tool delivers it: the one place that reads a skill's file
// for the model. It refuses a file that, links resolved, lies outside the
// skill's folder (the folder of path, links resolved), anything but a
// regular file, a file over MaxFileSize and a file whose frontmatter has
// an error. baseDir is the skill's folder, links resolved.
func ReadSkill(path string) (s *Skill, baseDir string, err error) { return readSkill(nil, path) }

// readSkill is ReadSkill resolving links with r (nil: none remembered).
// The file is read into a buffer of its own (from r's blocks), which the
// Skill's body and headings then share.
func readSkill(r *Resolver, path string) (s *Skill, baseDir string, err error) {
	realDir, err := r.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return nil, "", err
	}
	realFile, err := r.EvalSymlinks(path)
	if err != nil {
		return nil, "", err
	}
	if !Within(realDir, realFile) {
		return nil, "", fmt.Errorf("%s %w (%s)", path, ErrOutside, realFile)
	}
	data, err := readRegular(realFile, MaxFileSize, r.slab())
	p, err := parseRead(path, data, err)
	if err != nil {
		return nil, "", err
	}
	return p, realDir, nil
}

// parseRead parses the skill file at path, read into data of its own
// (with err, the read's error), as the skill tool takes it.
func parseRead(path string, data []byte, err error) (*Skill, error) {
	if errors.Is(err, errTooLarge) {
		return nil, fmt.Errorf("%s is over the %d-byte limit for a skill file", path, MaxFileSize)
	}
	if err != nil {
		return nil, err
	}
	p, diags := parse(path, data, true)
	for _, d := range diags {
		if d.Severity == Error {
			return nil, fmt.Errorf("%s: %s", path, d.Message)
		}
	}
	return p, nil
}

// ReadSkillStat is ReadSkillWith for a file the caller has not lstat'ed:
// it also returns the file's real path and what lstat says of that (fi),
// whenever the file was found, even when reading or parsing it failed.
// Where it can (a file that is no link, in a folder r resolves), it
// takes both from the open file, without an lstat.
func ReadSkillStat(r *Resolver, path string) (s *Skill, real string, fi os.FileInfo, err error) {
	if s, real, fi, ok, err := readSkillOpen(r, path); ok {
		return s, real, fi, err
	}
	if real, fi, err = r.Lstat(path); err != nil {
		return nil, "", nil, err
	}
	s, _, err = readSkill(r, path)
	return s, real, fi, err
}

// Within reports whether path lies in dir or is dir (both absolute and
// clean).
func Within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
