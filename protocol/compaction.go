package protocol

import (
	"fmt"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// MethodSessionCompact is called by the host after it compacted the
// conversation (Pi: session_compact).
const MethodSessionCompact = "session/compact"

// ReattachType is the customType of the message that carries the
// re-attached bodies (Pi: a custom message, sent to the model as a user
// message, kept in the session so a resume or fork sees it again).
const ReattachType = "skill-lifecycle-reattach"

// SessionCompactParams describes a compaction the host made.
type SessionCompactParams struct {
	// ID names the compaction (Pi: the compaction entry's id).
	ID string `json:"id"`
	// Visible lists the ids of the loads still in the context after the
	// compaction (in the messages the host kept), as before_request would
	// list them.
	Visible []string `json:"visible"`
}

// ReattachRef is one body of the re-attach region: its load id (the id
// before_request lists it under, with kind "reattach"), skill, size in
// characters of its block, and hash.
type ReattachRef struct {
	ID    string `json:"id"`
	Skill string `json:"skill"`
	Size  int64  `json:"size"`
	Hash  string `json:"hash"`
	Cut   bool   `json:"cut,omitempty"`
}

// SessionCompactResult is the re-attach region to send after the summary:
// Text, one message holding each body in its <skill_content> block ("" when
// nothing is re-attached), the bodies in it, and the plan (every candidate
// with its outcome and why).
type SessionCompactResult struct {
	Text     string               `json:"text"`
	Bodies   []ReattachRef        `json:"bodies"`
	Plan     []rules.ReattachItem `json:"plan"`
	Archived int                  `json:"archived"`
}

// reattachBlock reads skill it.Skill's file now and renders its block: the
// skill tool's text when the body fits the item's grant (hashed as the
// skill tool hashes it, so a later skill(name) answers "already loaded"),
// else the body cut at a line break with a note on reading the rest
// (hashed as sent). ok is false when the file cannot be read any more.
func reattachBlock(cat *catalog, it rules.ReattachItem) (block string, r lifecycle.Reattach, ok bool) {
	s, found := cat.lookup(it.Skill)
	if !found {
		return "", lifecycle.Reattach{}, false
	}
	p, baseDir, err := readSkill(s)
	if err != nil {
		return "", lifecycle.Reattach{}, false
	}
	body := strings.TrimSpace(p.Body)
	files := topLevelFiles(baseDir)
	whole := wrapSkill(s.Name, body, baseDir, files)
	if rules.EstimateTokens(rules.RuneCount(whole)) <= it.Granted {
		return whole, lifecycle.Reattach{Skill: s.Name, Chars: rules.RuneCount(whole), Hash: lifecycle.HashBody(body)}, true
	}
	// Over its grant (planned as cut, or the file grew since it was
	// loaded): cut, unless too little would be left to be of use.
	// The wrapper (tags, base directory, file list) takes its share too.
	overhead := rules.RuneCount(wrapSkill(s.Name, "\n\n", baseDir, files))
	keep := (it.Granted-rules.ReattachNoteTokens)*rules.CharsPerToken - overhead
	if keep < rules.MinCutTokens*rules.CharsPerToken {
		return "", lifecycle.Reattach{}, false
	}
	// The body starts after the frontmatter and any blank lines TrimSpace
	// dropped: find its first line in the file.
	lead := strings.Count(p.Body[:strings.Index(p.Body, body)], "\n")
	kept, lines := rules.CutBody(body, keep)
	note := rules.ReattachNote(s.Name, s.Path, p.BodyLine+lead+lines, rules.RuneCount(kept), rules.RuneCount(body))
	text := wrapSkill(s.Name, strings.TrimRight(kept, "\n")+"\n\n"+note, baseDir, files)
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
