package host

import (
	"fmt"
	"sort"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// ToolName is the name of the tool that loads a skill's instructions.
const ToolName = skills.SkillToolName

// toolSpec is the skill tool's registration.
func toolSpec() ToolSpec {
	return ToolSpec{
		Name:        ToolName,
		Label:       skills.SkillToolLabel,
		Description: skills.SkillToolDescription,
		Snippet:     skills.SkillToolSnippet,
		Parameters:  skills.SkillToolParameters(),
	}
}

// loadSkill answers the skill tool: the skill's body read now
// (skills.ReadSkill), in the tool's wrapper (skills.SkillContent), with
// its hash (lifecycle.HashBody of the trimmed body).
func (c *Index) loadSkill(name string) SkillLoadResult {
	s, ok := c.lookup(strings.TrimSpace(name))
	if !ok {
		return SkillLoadResult{Found: false, Text: c.unknownText(name)}
	}
	p, baseDir, err := skills.ReadSkill(s.Path)
	if err != nil {
		return SkillLoadResult{Found: false, Name: s.Name, Text: fmt.Sprintf("The skill %s could not be loaded: %s. %s", quoted(s.Name), skills.ModelText(err.Error()), c.availableText())}
	}
	body := strings.TrimSpace(p.Body)
	files := skills.TopLevelFiles(baseDir)
	return SkillLoadResult{
		Found:   true,
		Name:    s.Name,
		Text:    skills.SkillContent(s.Name, body, baseDir, files),
		BaseDir: baseDir,
		Files:   files,
		Hash:    lifecycle.HashBody(body),
	}
}

// unknownText answers the skill tool for a name it does not know.
func (c *Index) unknownText(name string) string {
	if len(c.visible()) == 0 {
		return fmt.Sprintf("Unknown skill %s: no skills are available.", quoted(name))
	}
	return fmt.Sprintf("Unknown skill %s. %s", quoted(name), c.availableText())
}

// maxNamedSkills is how many skills an answer names at most: beyond it
// (a large catalogue) an unknown name is answered with the closest
// matches and a pointer to the search, not every name.
const maxNamedSkills = 50

// unknown answers the skill tool for a name it does not know: every
// available name in a small catalogue, else the best matches of a search
// for the name.
func (w *World) unknown(name string) string {
	if len(w.Skills.visible()) <= maxNamedSkills {
		return w.Skills.unknownText(name)
	}
	msg := fmt.Sprintf("Unknown skill %s.", quoted(name))
	if ms := w.search(strings.NewReplacer("-", " ", "_", " ").Replace(name), SearchLimit); len(ms) > 0 {
		names := make([]string, len(ms))
		for i, m := range ms {
			names[i] = skills.ModelText(m.Name)
		}
		msg += " Closest: " + strings.Join(names, ", ") + "."
	}
	return msg + " Call the skill tool with a query (a few words about the task) to search every skill."
}

// availableText lists the skills the tool can load, sorted by name, as
// ModelText.
func (c *Index) availableText() string {
	vis := c.visible()
	if len(vis) == 0 {
		return "No skills are available."
	}
	if len(vis) > maxNamedSkills {
		return fmt.Sprintf("%d skills are available: call the skill tool with a query (a few words about the task) to search them.", len(vis))
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
