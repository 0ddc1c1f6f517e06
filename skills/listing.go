package skills

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// This file renders what the skill-lifecycle bridge shows the model: the
// skills section that replaces the host's, the skill tool's definition and
// the tool's answer. The sidecar (protocol) sends these texts, and replay
// measures them to predict what a session would have cost with the bridge,
// so both render them here.

// BridgeIntro is the stable instruction placed before the bridge's skill
// listing. It never changes within a release, so the system prompt stays
// the same from one turn to the next and the provider's prompt cache holds.
const BridgeIntro = `The following skills provide specialized instructions for specific tasks.
When a task matches a skill's description, load it with the skill tool (not by reading SKILL.md); it also gives the skill's base directory, against which the skill's relative paths resolve.
Instructions no longer in use may be replaced by a placeholder: call the skill tool again when you need them.`

// The skill tool as the bridge registers it.
const (
	SkillToolName        = "skill"
	SkillToolLabel       = "Skill"
	SkillToolDescription = "Load a skill's instructions (its SKILL.md body in a <skill_content> block, with its base directory and top-level files). " +
		"Call it when a task matches a skill in <available_skills>, and again if its instructions were archived. " +
		"Given a query instead of a name, it searches every installed skill."
	SkillToolSnippet  = "Load a skill's instructions by name, or search skills by query"
	skillToolArgDesc  = "The skill's name, as listed in <available_skills> or found by a query."
	skillToolQueryArg = "Instead of a name: words about the task; answers the best-matching skills."
)

// SkillToolParameters is the JSON schema of the skill tool's arguments.
func SkillToolParameters() json.RawMessage {
	params, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name": map[string]any{
				"type":        "string",
				"description": skillToolArgDesc,
			},
			"query": map[string]any{
				"type":        "string",
				"description": skillToolQueryArg,
			},
		},
		"additionalProperties": false,
	})
	return params
}

// ListedSkill is one model-visible skill of the bridge's listing.
type ListedSkill struct {
	Name, Description string
}

// BridgeListing renders the bridge's skills section: BridgeIntro, then each
// skill's name and description (without surrounding white space) as
// ModelText, in the order given. Locations are left out: the model loads
// skills through the tool, which names the base directory. With no skill
// there is no section ("").
func BridgeListing(list []ListedSkill) string {
	if len(list) == 0 {
		return ""
	}
	return skillsXML(BridgeIntro+"\n\n", nil, list, nil, false)
}

// piListingIntro is what Pi 1.6 writes before its skill listing (the
// "skills" section of its system prompt, which the bridge replaces).
const piListingIntro = "The following skills provide specialized instructions for specific tasks.\n" +
	"Use the read tool to load a skill's file when the task matches its description.\n" +
	"Resolve relative paths against the skill's directory (parent of SKILL.md). Use absolute paths in tool calls.\n\n"

// piEscaper escapes XML as Pi does (an apostrophe becomes &#39;).
var piEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

// PiListing renders Pi 1.6's own skills section, which the bridge replaces,
// for the given skills and their SKILL.md locations (in the same order; a
// missing location is written empty); replay measures the difference.
// With no skill there is no section ("").
func PiListing(list []ListedSkill, locations []string) string {
	if len(list) == 0 {
		return ""
	}
	return skillsXML(piListingIntro, piEscaper, list, locations, true)
}

// skillsXML writes intro and an <available_skills> block, one <skill> per
// entry with its name, description and, with withLoc, its location, each
// escaped with esc (Pi's own rendering), or as ModelText when esc is nil
// (the bridge's).
func skillsXML(intro string, esc *strings.Replacer, list []ListedSkill, locations []string, withLoc bool) string {
	var b strings.Builder
	b.WriteString(intro)
	b.WriteString("<available_skills>\n")
	for i, s := range list {
		b.WriteString("  <skill>\n    <name>")
		if esc == nil {
			b.WriteString(ModelText(s.Name))
		} else {
			b.WriteString(esc.Replace(s.Name))
		}
		b.WriteString("</name>\n    <description>")
		if esc == nil {
			b.WriteString(ModelText(strings.TrimSpace(s.Description)))
		} else {
			b.WriteString(esc.Replace(s.Description))
		}
		b.WriteString("</description>\n")
		if withLoc {
			loc := ""
			if i < len(locations) {
				loc = locations[i]
			}
			b.WriteString("    <location>")
			b.WriteString(esc.Replace(loc))
			b.WriteString("</location>\n")
		}
		b.WriteString("  </skill>\n")
	}
	b.WriteString("</available_skills>")
	return b.String()
}

var wrapperTag = regexp.MustCompile(`(?i)<(/?)(skill_content|available_skills|skill)\b`)

// EscapeWrapped neutralises any tag in text that could close or open the
// wrappers the bridge writes around skill text (<skill_content>,
// <available_skills>, <skill>), so that a body or description cannot break
// out of them. Other markup is left alone.
func EscapeWrapped(text string) string {
	return wrapperTag.ReplaceAllString(text, "&lt;$1$2")
}

// SkillContent renders the skill tool's answer: the body in a
// <skill_content> block with the base directory and the top-level files.
// The name, the base directory and each file name are ModelText, so none
// can close the block or start a line of its own (a line break in a file's
// name is listed as the two characters \n, and a forged "Base directory:"
// stays on the files' line); the body only has the wrappers' tags
// neutralised.
func SkillContent(name, body, baseDir string, files []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<skill_content name=\"%s\">\n", ModelText(name))
	b.WriteString(EscapeWrapped(body))
	b.WriteString("\n\nBase directory: ")
	b.WriteString(ModelText(baseDir))
	b.WriteString("\nResolve relative paths in these instructions against the base directory.")
	if len(files) > 0 {
		b.WriteString("\nTop-level files: ")
		for i, f := range files {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ModelText(f))
		}
	}
	b.WriteString("\n</skill_content>")
	return b.String()
}

// MaxListedFiles bounds the top-level file list of a skill tool answer.
const MaxListedFiles = 60

// TopLevelFiles lists a skill folder's entries as the skill tool names
// them: sorted, folders with a trailing slash, hidden entries and
// node_modules left out, a symlink only when it stays inside the folder,
// at most MaxListedFiles (then "(and N more)"). An unreadable folder gives
// none.
func TopLevelFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			real, err := filepath.EvalSymlinks(filepath.Join(dir, name))
			if err != nil || !inside(dir, real) {
				continue
			}
			if st, err := os.Stat(real); err == nil {
				isDir = st.IsDir()
			}
		}
		if isDir {
			name += "/"
		}
		out = append(out, name)
	}
	sort.Strings(out)
	if len(out) > MaxListedFiles {
		more := len(out) - MaxListedFiles
		out = append(out[:MaxListedFiles], fmt.Sprintf("(and %d more)", more))
	}
	return out
}

// inside reports whether path lies in dir (both absolute and cleaned).
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
