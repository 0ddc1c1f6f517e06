package host

import (
	"fmt"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// ReattachType is the customType of the message that carries the
// re-attached bodies (Pi: a custom message, sent to the model as a user
// message, kept in the session so a resume or fork sees it again).
const ReattachType = "skill-lifecycle-reattach"

// reattachIntro opens the re-attach region sent after a compaction summary.
const reattachIntro = "[skill-lifecycle: the conversation above was compacted. These skills were in use before it and still apply; their instructions follow.]"

// Compact takes a compaction the host made: the bodies it summarised away
// are archived as compacted, and those the rules still keep are rendered
// again (reattachBlock) within the re-attach budget, most recent first, as
// one region for the host to send after the summary.
func (s *Session) Compact(p SessionCompactParams) (SessionCompactResult, error) {
	if p.ID == "" {
		return SessionCompactResult{}, missing("id")
	}
	cmp := lifecycle.Compaction{ID: p.ID, Visible: p.Visible, Config: s.world.Config.Compaction}
	plan := s.eng.PlanCompaction(cmp)
	res := SessionCompactResult{Bodies: []ReattachRef{}, Plan: plan.Items}
	var blocks []string
	var sent []lifecycle.Reattach
	for _, it := range plan.Kept() {
		block, r, ok := s.world.Skills.reattachBlock(it)
		if !ok {
			continue
		}
		blocks = append(blocks, block)
		sent = append(sent, r)
		res.Bodies = append(res.Bodies, ReattachRef{ID: lifecycle.ReattachID(p.ID, r.Skill), Skill: r.Skill, Size: r.Chars, Hash: r.Hash, Cut: r.Cut})
	}
	before := len(s.eng.Archived())
	s.apply(lifecycle.Event{Type: lifecycle.EvCompact, Compaction: &cmp, Reattached: sent})
	res.Archived = len(s.eng.Archived()) - before
	if len(blocks) > 0 {
		res.Text = reattachIntro + "\n\n" + strings.Join(blocks, "\n\n")
	}
	if line := reattachSummary(res); line != "" {
		s.tell("info", line)
	}
	return res, nil
}

// reattachBlock reads skill it.Skill's file now and renders its block: the
// skill tool's text when the body fits the item's grant (hashed as the
// skill tool hashes it, so a later skill(name) answers "already loaded"),
// else the body cut at a line break with a note on reading the rest
// (hashed as sent). ok is false when the file cannot be read any more.
func (c *Index) reattachBlock(it rules.ReattachItem) (block string, r lifecycle.Reattach, ok bool) {
	s, found := c.lookup(it.Skill)
	if !found {
		return "", lifecycle.Reattach{}, false
	}
	p, baseDir, err := skills.ReadSkill(s.Path)
	if err != nil {
		return "", lifecycle.Reattach{}, false
	}
	body := strings.TrimSpace(p.Body)
	files := skills.TopLevelFiles(baseDir)
	whole := skills.SkillContent(s.Name, body, baseDir, files)
	if rules.EstimateTokens(rules.RuneCount(whole)) <= it.Granted {
		return whole, lifecycle.Reattach{Skill: s.Name, Chars: rules.RuneCount(whole), Hash: lifecycle.HashBody(body)}, true
	}
	// Over its grant (planned as cut, or the file grew since it was
	// loaded): cut, unless too little would be left to be of use.
	// The wrapper (tags, base directory, file list) takes its share too.
	overhead := rules.RuneCount(skills.SkillContent(s.Name, "\n\n", baseDir, files))
	keep := (it.Granted-rules.ReattachNoteTokens)*rules.CharsPerToken - overhead
	if keep < rules.MinCutTokens*rules.CharsPerToken {
		return "", lifecycle.Reattach{}, false
	}
	// The body starts after the frontmatter and any blank lines TrimSpace
	// dropped: find its first line in the file.
	lead := strings.Count(p.Body[:strings.Index(p.Body, body)], "\n")
	kept, lines := rules.CutBody(body, keep)
	note := rules.ReattachNote(s.Name, s.Path, p.BodyLine+lead+lines, rules.RuneCount(kept), rules.RuneCount(body))
	text := skills.SkillContent(s.Name, strings.TrimRight(kept, "\n")+"\n\n"+note, baseDir, files)
	return text, lifecycle.Reattach{Skill: s.Name, Chars: rules.RuneCount(text), Hash: lifecycle.HashBody(kept), Cut: true}, true
}

// reattachSummary is a line for the user about what a compaction
// re-attached.
func reattachSummary(res SessionCompactResult) string {
	var whole, cut, dropped []string
	for _, it := range res.Plan {
		switch it.Outcome {
		case rules.ReattachWhole:
			whole = append(whole, it.Skill)
		case rules.ReattachCut:
			cut = append(cut, it.Skill)
		default:
			dropped = append(dropped, it.Skill)
		}
	}
	if len(res.Plan) == 0 {
		return ""
	}
	return fmt.Sprintf("skill-lifecycle: after compaction, re-attached %d skill(s) whole (%s), %d cut (%s), %d left out (%s)",
		len(whole), strings.Join(whole, ", "), len(cut), strings.Join(cut, ", "), len(dropped), strings.Join(dropped, ", "))
}
