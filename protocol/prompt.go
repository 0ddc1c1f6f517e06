package protocol

import "github.com/skill-lifecycle/skill-lifecycle/skills"

// ToolName is the name of the tool that loads a skill's instructions.
const ToolName = skills.SkillToolName

// systemPromptSection renders the listing that replaces the host's skills
// section (skills.BridgeListing): the bridge's instruction, then every
// model-visible skill's name and description, in the host's order. It
// depends only on the skill list, so it is identical on every turn. With no
// model-visible skill there is no section ("").
func systemPromptSection(list []HostSkill) string {
	var vis []skills.ListedSkill
	for _, s := range list {
		if !s.DisableModelInvocation {
			vis = append(vis, skills.ListedSkill{Name: s.Name, Description: s.Description})
		}
	}
	return skills.BridgeListing(vis)
}

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
