package rules

import (
	"fmt"
	"github.com/skill-lifecycle/skill-lifecycle/internal/conf"
	"strings"
	"unicode/utf8"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Compaction is the `compaction` option: what happens to the loaded skill
// bodies when the host compacts the conversation. The bodies the lifecycle
// still keeps are summarised away with everything else; with Reattach on
// they are sent again, most recent first, as one region after the summary,
// within BudgetTokens in all and PerSkillTokens each. A body over its
// share is cut at a line break, with a note telling the model how to read
// the rest. Sizes are estimated tokens: characters / 4, rounded up
// (EstimateTokens), the same rule for every model, since the sidecar sees
// no tokenizer.
type Compaction struct {
	Reattach       bool `json:"reattach"`
	BudgetTokens   int  `json:"budgetTokens" conf:",min=0,max=10000000"`
	PerSkillTokens int  `json:"perSkillTokens" conf:",min=0,max=10000000"`
}

// CheckConf warns of a per-skill share above the whole budget.
func (c *Compaction) CheckConf(d *conf.Decoder, key string) {
	if c.PerSkillTokens > c.BudgetTokens {
		d.Warn(key+".perSkillTokens", "perSkillTokens %d is above budgetTokens %d: no body gets more than the whole budget", c.PerSkillTokens, c.BudgetTokens)
	}
}

// ArchiveCompacted is the reason recorded for a body the host's compaction
// summarised away: it is no longer in the context, whether or not a copy
// is re-attached.
const ArchiveCompacted Code = "compacted"

// Dedupe strategies: what the skill tool does when the model asks for a
// skill whose identical body (same content hash) is visible in the
// context. DedupeArchiveOlder delivers the body again and archives the
// older copy (only the latest copy is kept); DedupeAlreadyLoaded answers
// with a short "already loaded" text and changes nothing in the context.
const (
	DedupeArchiveOlder  = "archive-older"
	DedupeAlreadyLoaded = "already-loaded"
	// DefaultDedupe is the cheaper of the two on the recorded sessions
	// (docs/protocol.md, skill/load).
	DefaultDedupe = DedupeAlreadyLoaded
)

// Defaults of the `compaction` option.
const (
	DefaultReattachBudget   = 25000
	DefaultReattachPerSkill = 5000
	// CharsPerToken is the estimate used for every size in this file.
	CharsPerToken = 4
	// ReattachNoteTokens is what the note appended to a cut body may take;
	// it is reserved out of the body's share.
	ReattachNoteTokens = 80
	// MinCutTokens is the smallest part of a body worth re-attaching: a
	// share that leaves less (after the note) drops the body instead.
	MinCutTokens = 200
)

// DefaultCompaction is the `compaction` option when no file sets it.
func DefaultCompaction() Compaction {
	return Compaction{Reattach: true, BudgetTokens: DefaultReattachBudget, PerSkillTokens: DefaultReattachPerSkill}
}

// EstimateTokens is the token estimate of chars characters: chars/4,
// rounded up; 0 for 0 or less.
func EstimateTokens(chars int64) int64 {
	if chars <= 0 {
		return 0
	}
	return (chars + CharsPerToken - 1) / CharsPerToken
}

// ReattachCandidate is one body the lifecycle rules still keep when the
// conversation is compacted away under it.
type ReattachCandidate struct {
	ID    string `json:"id"`
	Skill string `json:"skill"`
	// Chars is the body's size in characters.
	Chars int64 `json:"chars"`
	// Why it is kept: KeepPinned, KeepEntry, KeepRecent or KeepRelevant.
	Why Code `json:"why,omitempty"`
}

// Outcome is what happens to one candidate.
type Outcome string

// Outcomes.
const (
	ReattachWhole   Outcome = "whole"   // sent again in full
	ReattachCut     Outcome = "cut"     // sent again up to KeepChars, with a note
	ReattachDropped Outcome = "dropped" // not sent; the model loads it again when needed
)

// ReattachItem is the decision on one candidate.
type ReattachItem struct {
	ID      string  `json:"id"`
	Skill   string  `json:"skill"`
	Outcome Outcome `json:"outcome"`
	// Tokens is the body's estimated size; Granted what it takes of the
	// budget (the body, or its kept part and the note).
	Tokens  int64 `json:"tokens"`
	Granted int64 `json:"granted"`
	// KeepChars bounds the characters of a cut body to send (CutBody
	// then cuts at the last line break within it); 0 otherwise.
	KeepChars int64  `json:"keepChars,omitempty"`
	Why       Code   `json:"why,omitempty"`
	Text      string `json:"text"`
}

// ReattachPlan is PlanReattach's answer: one item per candidate, in the
// order given, and the budget used.
type ReattachPlan struct {
	Items []ReattachItem `json:"items"`
	Used  int64          `json:"used"`
}

// Kept returns the items sent again (whole or cut), in order.
func (p ReattachPlan) Kept() []ReattachItem {
	var out []ReattachItem
	for _, it := range p.Items {
		if it.Outcome != ReattachDropped {
			out = append(out, it)
		}
	}
	return out
}

// PlanReattach decides which candidates are sent again after a
// compaction, taking them in the order given (most recent first): each gets
// min(PerSkillTokens, what is left of BudgetTokens). A body within its
// share goes whole; a bigger one is cut to its share less the note's
// reserve, unless that leaves under MinCutTokens, in which case it is
// dropped; later, smaller bodies may still fit. Reattach off, or a zero
// budget, drops everything. Negative budgets count as zero.
func PlanReattach(c Compaction, cands []ReattachCandidate) ReattachPlan {
	total, per := int64(max(c.BudgetTokens, 0)), int64(max(c.PerSkillTokens, 0))
	plan := ReattachPlan{Items: make([]ReattachItem, 0, len(cands))}
	left := total
	for _, cd := range cands {
		it := ReattachItem{ID: cd.ID, Skill: cd.Skill, Tokens: EstimateTokens(cd.Chars), Why: cd.Why}
		share := min(per, left)
		switch {
		case !c.Reattach:
			it.Outcome, it.Text = ReattachDropped, "not re-attached: compaction.reattach is off"
		case it.Tokens <= share:
			it.Outcome, it.Granted = ReattachWhole, it.Tokens
			it.Text = fmt.Sprintf("re-attached whole (%d tokens)", it.Tokens)
		case share-ReattachNoteTokens >= MinCutTokens:
			keep := share - ReattachNoteTokens
			it.Outcome, it.Granted, it.KeepChars = ReattachCut, share, keep*CharsPerToken
			why := "its share of the per-skill budget"
			if share < per {
				why = "what was left of the total budget"
			}
			it.Text = fmt.Sprintf("re-attached cut to %d of %d tokens (%s)", keep, it.Tokens, why)
		default:
			it.Outcome = ReattachDropped
			if share == left && left < per {
				it.Text = fmt.Sprintf("not re-attached: %d tokens of the budget left, too few for any useful part of its %d", left, it.Tokens)
			} else {
				it.Text = fmt.Sprintf("not re-attached: the per-skill budget (%d tokens) is too small for any useful part of its %d", per, it.Tokens)
			}
		}
		left -= it.Granted
		plan.Used += it.Granted
		plan.Items = append(plan.Items, it)
	}
	return plan
}

// CutBody keeps the start of body within maxChars characters, ending at
// the last line break inside that span (or mid-line, at a character
// boundary, when the first line alone is longer). lines is the number of
// whole lines kept, so the rest starts at line lines+1 of the body. A body
// within maxChars is returned whole with its line count.
func CutBody(body string, maxChars int64) (kept string, lines int) {
	if maxChars < 0 {
		maxChars = 0
	}
	n, end := int64(0), len(body)
	for i := range body {
		if n == maxChars {
			end = i
			break
		}
		n++
	}
	if end == len(body) {
		return body, lineCount(body)
	}
	if nl := strings.LastIndexByte(body[:end], '\n'); nl >= 0 {
		return body[:nl+1], strings.Count(body[:nl+1], "\n")
	}
	return body[:end], 0
}

func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// ReattachNote is the note that ends a cut body: what was left out and how
// to read it (a ranged read of the skill's file, which is always served,
// or the skill tool for the whole body). fileLine is the 1-based line of
// the file where the rest starts; shown and total count the body's
// characters.
func ReattachNote(skill, path string, fileLine int, shown, total int64) string {
	return fmt.Sprintf("[skill-lifecycle: %s was cut to fit the re-attach budget after compaction: %d of %d characters shown. "+
		"Read the rest with the read tool, path %s, offset %d; or call skill(%s) for the whole body.]",
		skills.ModelText(skill), shown, total, modelQuoted(path), fileLine, modelQuoted(skill))
}

// RuneCount is the size of s in characters, the unit of ReattachCandidate.Chars.
func RuneCount(s string) int64 { return int64(utf8.RuneCountInString(s)) }
