package protocol

import (
	"encoding/json"
	"strings"
)

// ToolName is the name of the tool that loads a skill's instructions.
const ToolName = "skill"

// protocolText is the stable instruction placed before the skill listing.
// It never changes within a release, so the system prompt stays the same
// from one turn to the next and the provider's prompt cache holds.
const protocolText = `The following skills provide specialized instructions for specific tasks.
When a task matches a skill's description, load it with the skill tool (not by reading SKILL.md); it also gives the skill's base directory, against which the skill's relative paths resolve.
Instructions no longer in use may be replaced by a placeholder: call the skill tool again when you need them.`

// systemPromptSection renders the listing that replaces the host's skills
// section: protocolText, then every model-visible skill's name and
// description, XML-escaped, in the host's order. Locations are left out: the
// model loads skills through the tool, which names the base directory, and
// every listed path would be paid for in every request. It depends only on
// the skill list, so it is identical on every turn. With no model-visible
// skill there is no section ("").
func systemPromptSection(list []HostSkill) string {
	visible := 0
	for _, s := range list {
		if !s.DisableModelInvocation {
			visible++
		}
	}
	if visible == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(protocolText)
	b.WriteString("\n\n<available_skills>\n")
	for _, s := range list {
		if s.DisableModelInvocation {
			continue
		}
		b.WriteString("  <skill>\n    <name>")
		b.WriteString(xmlEscaper.Replace(s.Name))
		b.WriteString("</name>\n    <description>")
		b.WriteString(xmlEscaper.Replace(s.Description))
		b.WriteString("</description>\n  </skill>\n")
	}
	b.WriteString("</available_skills>")
	return b.String()
}

// toolSpec is the skill tool's registration.
func toolSpec() ToolSpec {
	params, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name": map[string]any{
				"type":        "string",
				"description": "The skill's name, as listed in <available_skills>.",
			},
		},
		"required":             []string{"name"},
		"additionalProperties": false,
	})
	return ToolSpec{
		Name:  ToolName,
		Label: "Skill",
		Description: "Load a skill's instructions (its SKILL.md body in a <skill_content> block, with its base directory and top-level files). " +
			"Call it when a task matches a skill in <available_skills>, and again if its instructions were archived.",
		Snippet:    "Load a skill's instructions by name",
		Parameters: params,
	}
}

// commandSpecs lists the slash commands the host registers (names without
// the slash).
func commandSpecs() []CommandSpec {
	return []CommandSpec{
		{Name: "skills-list", Description: "List the skills with their role and whether their body is loaded, archived or pinned"},
		{Name: "skills-explain", Description: "Rank the skills for a prompt and say which loaded bodies would stay or go: /skills-explain <prompt>"},
		{Name: "skills-pin", Description: "Keep a skill's body loaded whatever the topic: /skills-pin <name>"},
		{Name: "skills-unpin", Description: "Let a pinned skill's body be archived again: /skills-unpin <name>"},
		{Name: "skills-reload", Description: "Re-read the skills and skill-lifecycle.json"},
		{Name: "skills-model", Description: "Show the model tiers in effect; /skills-model reset restores the model chosen before a tier switch"},
		{Name: "skills-on", Description: "Turn skill lifecycle management on for this session"},
		{Name: "skills-off", Description: "Turn skill lifecycle management off for this session (nothing is archived)"},
	}
}
