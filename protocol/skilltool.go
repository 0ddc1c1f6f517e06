package protocol

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/guard"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// catalog is the host's skill list, indexed for the skill tool and the
// tool-call guard.
type catalog struct {
	skills []HostSkill    // in host order
	byName map[string]int // name -> index in skills
	byPath map[string]int // Path and its resolved form -> index
	// byShown maps a name as the model is shown it (ModelText), where that
	// differs from the name and is no other skill's name, to its index.
	byShown map[string]int
	diags   []string // problems found while indexing
}

func newCatalog(list []HostSkill) *catalog {
	c := &catalog{byName: map[string]int{}, byPath: map[string]int{}, byShown: map[string]int{}}
	for _, s := range list {
		if s.Name == "" || s.Path == "" {
			c.diags = append(c.diags, fmt.Sprintf("host skill %q with path %q ignored: name and path are required", s.Name, s.Path))
			continue
		}
		if _, dup := c.byName[s.Name]; dup {
			c.diags = append(c.diags, fmt.Sprintf("skill %q listed twice by the host; the first (%s) is kept", s.Name, c.skills[c.byName[s.Name]].Path))
			continue
		}
		i := len(c.skills)
		c.skills = append(c.skills, s)
		c.byName[s.Name] = i
		c.byPath[filepath.Clean(s.Path)] = i
		if real, err := filepath.EvalSymlinks(s.Path); err == nil {
			c.byPath[real] = i
		}
	}
	for i, s := range c.skills {
		if shown := skills.ModelText(s.Name); shown != s.Name {
			if _, taken := c.byName[shown]; !taken {
				c.byShown[shown] = i
			}
		}
	}
	return c
}

// visible lists the skills the model may load (in host order).
func (c *catalog) visible() []HostSkill {
	out := make([]HostSkill, 0, len(c.skills))
	for _, s := range c.skills {
		if !s.DisableModelInvocation {
			out = append(out, s)
		}
	}
	return out
}

// lookup finds a model-visible skill by name: the name as the host gave
// it, or as the model was shown it (ModelText) when that differs.
func (c *catalog) lookup(name string) (HostSkill, bool) {
	i, ok := c.byName[name]
	if !ok {
		i, ok = c.byShown[name]
	}
	if !ok || c.skills[i].DisableModelInvocation {
		return HostSkill{}, false
	}
	return c.skills[i], true
}

// skillFile reports which visible skill's SKILL.md the absolute path p is,
// comparing the path as given and with symlinks resolved. A path that is
// not clean (Pi 0.73 opens an absolute path as written) is resolved as the
// kernel resolves it: a ".." after a symbolic link leaves the link's
// target, not the link's folder.
func (c *catalog) skillFile(p string) (HostSkill, bool) {
	i, ok := 0, false
	if p == filepath.Clean(p) {
		i, ok = c.byPath[p]
	}
	if !ok {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return HostSkill{}, false
		}
		if i, ok = c.byPath[real]; !ok {
			return HostSkill{}, false
		}
	}
	s := c.skills[i]
	return s, !s.DisableModelInvocation
}

// guardSkill is the guard's lookup (guard.Lookup): which visible skill's
// SKILL.md p is.
func (c *catalog) guardSkill(p string) (guard.Skill, bool) {
	s, ok := c.skillFile(p)
	return guard.Skill{Name: s.Name, Path: s.Path}, ok
}

// readSkill reads a skill's file on its behalf (skills.ReadSkill).
func readSkill(s HostSkill) (*skills.Skill, string, error) { return skills.ReadSkill(s.Path) }

// topLevelFiles lists a folder's entries as the skill tool names them
// (skills.TopLevelFiles).
func topLevelFiles(dir string) []string { return skills.TopLevelFiles(dir) }

// loadSkill answers the skill tool.
func (c *catalog) loadSkill(name string) SkillLoadResult {
	s, ok := c.lookup(strings.TrimSpace(name))
	if !ok {
		return SkillLoadResult{Found: false, Text: c.unknownText(name)}
	}
	p, baseDir, err := readSkill(s)
	if err != nil {
		return SkillLoadResult{Found: false, Name: s.Name, Text: fmt.Sprintf("The skill %s could not be loaded: %s. %s", quoted(s.Name), skills.ModelText(err.Error()), c.availableText())}
	}
	body := strings.TrimSpace(p.Body)
	sum := sha256.Sum256([]byte(body))
	files := topLevelFiles(baseDir)
	return SkillLoadResult{
		Found:   true,
		Name:    s.Name,
		Text:    wrapSkill(s.Name, body, baseDir, files),
		BaseDir: baseDir,
		Files:   files,
		Hash:    hex.EncodeToString(sum[:]),
	}
}

// wrapSkill renders the skill tool's text (skills.SkillContent).
func wrapSkill(name, body, baseDir string, files []string) string {
	return skills.SkillContent(name, body, baseDir, files)
}

// unknownText answers the skill tool for a name it does not know.
func (c *catalog) unknownText(name string) string {
	vis := c.visible()
	if len(vis) == 0 {
		return fmt.Sprintf("Unknown skill %s: no skills are available.", quoted(name))
	}
	return fmt.Sprintf("Unknown skill %s. %s", quoted(name), c.availableText())
}

// availableText lists the skills the tool can load, sorted by name, as
// ModelText.
func (c *catalog) availableText() string {
	vis := c.visible()
	if len(vis) == 0 {
		return "No skills are available."
	}
	names := make([]string, len(vis))
	for i, s := range vis {
		names[i] = s.Name
	}
	sort.Strings(names)
	for i, n := range names {
		names[i] = skills.ModelText(n)
	}
	return "Available skills: " + strings.Join(names, ", ") + "."
}

// quoted is a name (or any skill text) in double quotes for a sentence the
// model reads: ModelText, so it cannot close the quotes, open a tag or
// start a line.
func quoted(s string) string { return `"` + skills.ModelText(s) + `"` }
