package host

import (
	"fmt"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// The hint (issue 30, docs/config.md `hint`): models often skip a skill
// that matches the task. When a prompt matches one model-visible skill
// strongly (score at least hint.minScore) and clearly (at least
// hint.margin times the runner-up's score), and no copy of its body is
// live, the host adds HintText after the user's prompt: in the
// conversation, never in the system prompt, so the prompt cache holds.
// The decision is recorded (action "hint").

// maxHintPrompt is the longest prompt (bytes) a hint is looked for in: a
// pasted log or file names no one skill clearly.
const maxHintPrompt = 16 << 10

// UserPromptResult answers user_prompt: Hint, when not empty, is the line
// to add after the prompt (Pi: a custom message of HintType).
type UserPromptResult struct {
	Hint  string `json:"hint,omitempty"`
	Skill string `json:"skill,omitempty"`
	// SystemPromptSection is the new listing, once the world of a
	// pending skills/update is read (empty: the one in use stays).
	SystemPromptSection string `json:"systemPromptSection,omitempty"`
}

// HintType is the customType of the message that carries a hint.
const HintType = "skill-lifecycle-hint"

// HintText is the line that names skill.
func HintText(skill string) string {
	return fmt.Sprintf("(skill-lifecycle: the skill %s matches this request; if it applies, load it with the skill tool, name %s, before you start.)", quoted(skill), quoted(skill))
}

// Hint is the skill a prompt matches strongly and clearly under h, with
// its score and the runner-up's ("" when none does).
func (w *World) Hint(h rules.Hint, prompt string) (skill string, best, next float64) {
	if !h.Enabled || w.Catalog.Ranker == nil {
		return "", 0, 0
	}
	ms := w.search(prompt, 2)
	if len(ms) == 0 || ms[0].Score < h.MinScore {
		return "", 0, 0
	}
	best = ms[0].Score
	if len(ms) > 1 {
		next = ms[1].Score
	}
	if next > 0 && best < h.Margin*next {
		return "", 0, 0
	}
	return ms[0].Name, best, next
}

// hint decides the hint for prompt text: the clear match, unless a copy
// of its body is live or the prompt itself carries the skill (an
// expanded /skill:name).
func (s *Session) hint(text string) UserPromptResult {
	if !s.hints || len(text) > maxHintPrompt {
		return UserPromptResult{}
	}
	skill, best, next := s.world.Hint(s.world.Config.Hint, text)
	if skill == "" {
		return UserPromptResult{}
	}
	if _, live := s.eng.LiveCopy(skill); live {
		return UserPromptResult{}
	}
	if strings.Contains(text, `<skill name="`+skill+`"`) {
		return UserPromptResult{}
	}
	s.emit([]lifecycle.Decision{{V: lifecycle.RecordVersion, Action: lifecycle.ActHint, Skill: skill, Hint: &lifecycle.HintScore{Score: best, Next: next}}})
	return UserPromptResult{Hint: HintText(skill), Skill: skill}
}
