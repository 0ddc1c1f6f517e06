//go:build !linux

package skills

import "os"

// readSkillOpen declines here: ReadSkillStat lstats the file.
func readSkillOpen(*Resolver, string) (*Skill, string, os.FileInfo, bool, error) {
	return nil, "", nil, false, nil
}
