package skills

import "strings"

// xmlEscaper escapes the five XML special characters, as both Pi and the
// reference implementation do.
var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")

// piPromptIntro is the text Pi puts before its skills listing.
const piPromptIntro = "\n\nThe following skills provide specialized instructions for specific tasks.\n" +
	"Use the read tool to load a skill's file when the task matches its description.\n" +
	"When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.\n\n"

// FormatPrompt renders the skills section of Pi's system prompt: an
// introduction and an <available_skills> listing of name, description and
// location, values XML-escaped. Skills with DisableModelInvocation are left
// out, and with no skill left the section is empty ("").
func FormatPrompt(skills []*Skill) string {
	var b strings.Builder
	n := 0
	for _, s := range skills {
		if s.DisableModelInvocation {
			continue
		}
		if n == 0 {
			b.WriteString(piPromptIntro)
			b.WriteString("<available_skills>\n")
		}
		n++
		b.WriteString("  <skill>\n    <name>")
		b.WriteString(xmlEscaper.Replace(s.Name))
		b.WriteString("</name>\n    <description>")
		b.WriteString(xmlEscaper.Replace(s.Description))
		b.WriteString("</description>\n    <location>")
		b.WriteString(xmlEscaper.Replace(s.Path))
		b.WriteString("</location>\n  </skill>\n")
	}
	if n == 0 {
		return ""
	}
	b.WriteString("</available_skills>")
	return b.String()
}

// FormatAvailableSkills renders the listing as the reference
// implementation's to_prompt does: every skill given, each value on its own
// line between its tags, and "<available_skills>\n</available_skills>" for
// none.
func FormatAvailableSkills(skills []*Skill) string {
	var b strings.Builder
	b.WriteString("<available_skills>\n")
	for _, s := range skills {
		b.WriteString("<skill>\n")
		for _, kv := range [][2]string{{"name", s.Name}, {"description", s.Description}, {"location", s.Path}} {
			b.WriteString("<" + kv[0] + ">\n")
			b.WriteString(xmlEscaper.Replace(kv[1]))
			b.WriteString("\n</" + kv[0] + ">\n")
		}
		b.WriteString("</skill>\n")
	}
	b.WriteString("</available_skills>")
	return b.String()
}

// Properties returns the frontmatter the spec defines, keyed as written in
// SKILL.md ("allowed-tools" keeps its hyphen), leaving out empty optional
// fields.
func (s *Skill) Properties() map[string]any {
	m := map[string]any{"name": s.Name, "description": s.Description}
	if s.License != "" {
		m["license"] = s.License
	}
	if s.Compatibility != "" {
		m["compatibility"] = s.Compatibility
	}
	if s.AllowedTools != "" {
		m["allowed-tools"] = s.AllowedTools
	}
	if len(s.Metadata) > 0 {
		md := make(map[string]string, len(s.Metadata))
		for k, v := range s.Metadata {
			md[k] = v
		}
		m["metadata"] = md
	}
	return m
}
