package lifecycle

import (
	"fmt"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// ByReattach is the load kind of a body sent again after a compaction, in
// the re-attach region the host keeps apart from the summary.
const ByReattach LoadKind = "reattach"

// ReattachID is the load id of skill's body re-attached after the
// compaction named compactionID: the host finds the body under it in the
// re-attach region.
func ReattachID(compactionID, skill string) string {
	return "reattach:" + compactionID + ":" + skill
}

// Compaction describes a compaction the host made.
type Compaction struct {
	// ID names it (Pi: the compaction entry's id); re-attached bodies get
	// ReattachID(ID, skill) as their load id.
	ID string `json:"id"`
	// Visible lists the load ids still in the context after it (bodies in
	// the messages the host kept). Every other live body was summarised
	// away.
	Visible []string `json:"visible,omitempty"`
	// Config is the `compaction` option in force.
	Config rules.Compaction `json:"config"`
}

// Reattach is one body the host sends again, as it sends it.
type Reattach struct {
	Skill string `json:"skill"`
	// Chars is the size sent (after any cut), in characters; Hash the
	// content hash of the body text sent (HashBody: the whole body's
	// hash when it is whole, so the skill tool can answer "already
	// loaded"; a cut body's never matches).
	Chars int64  `json:"chars"`
	Hash  string `json:"hash"`
	Cut   bool   `json:"cut,omitempty"`
}

// gone returns the indices of the bodies c summarised away, oldest first:
// every body, live or archived, not among c.Visible, except those an
// earlier compaction already took and the bodies re-attached after c
// itself (they come after it).
func (e *Engine) gone(c Compaction) []int {
	vis := make(map[string]bool, len(c.Visible))
	for _, id := range c.Visible {
		vis[id] = true
	}
	own := ReattachID(c.ID, "")
	var out []int
	for i, b := range e.bodies {
		if vis[b.ID] || strings.HasPrefix(b.ID, own) || compacted(b) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// compacted reports whether b was summarised away by a compaction.
func compacted(b Body) bool {
	return b.Archived && b.Reason != nil && b.Reason.Code == rules.ArchiveCompacted
}

// keepWhy says why the rules keep body b, for the re-attach plan.
func (e *Engine) keepWhy(b Body) rules.Code {
	switch e.PinOf(b.Skill) {
	case rules.PinEntry:
		return rules.KeepEntry
	case rules.NotPinned:
		return rules.KeepRelevant
	default:
		return rules.KeepPinned
	}
}

// PlanCompaction says which bodies to send again after c, without changing
// anything: of the live bodies c summarised away (the bodies the rules
// still keep: pinned, the entry, relevant to the topic, the most recent),
// those not due for archive, the latest copy of each skill, most recent
// first, within c.Config's budgets (rules.PlanReattach; sizes are the
// recorded sizes in characters). Archived bodies are never candidates, nor
// are bodies still visible (they need no second copy).
func (e *Engine) PlanCompaction(c Compaction) rules.ReattachPlan {
	g := e.gone(c)
	seen := map[string]bool{}
	var cands []rules.ReattachCandidate
	for k := len(g) - 1; k >= 0; k-- {
		b := e.bodies[g[k]]
		if b.Archived || b.Due != nil || seen[b.Skill] {
			continue
		}
		if e.visibleLive(c, b.Skill) {
			continue // a copy of the skill is still in the context
		}
		seen[b.Skill] = true
		cands = append(cands, rules.ReattachCandidate{ID: b.ID, Skill: b.Skill, Chars: b.Size, Why: e.keepWhy(b)})
	}
	return rules.PlanReattach(c.Config, cands)
}

// visibleLive reports whether a live copy of skill is among c.Visible.
func (e *Engine) visibleLive(c Compaction, skill string) bool {
	for _, id := range c.Visible {
		if j, ok := e.byID[id]; ok && e.bodies[j].Skill == skill && !e.bodies[j].Archived {
			return true
		}
	}
	return false
}

// onCompact records a compaction: every body c summarised away is
// archived with reason "compacted" (the host has nothing to replace: the
// body is no longer in the context; a body archived earlier is recorded
// again with this reason, so that no later pin or "already loaded" counts
// on it), then each body in sent (what the host
// re-attached, normally PlanCompaction's kept items read from disk) is
// recorded as a load of kind ByReattach with id ReattachID(c.ID, skill),
// its hash and size, in the run of the copy it replaces. Those records are
// all Restore needs: a restored engine has the same bodies, so "already
// loaded" answers the same after a resume or fork. A body in sent whose
// skill had no copy summarised away, or an id already known (the same
// compaction twice), is ignored. Nothing is judged: the rules decide about
// the re-attached bodies at the next prompt, as about any other.
func (e *Engine) onCompact(c Compaction, sent []Reattach) []Decision {
	var ds []Decision
	runOf := map[string]int{}
	whyOf := map[string]rules.Code{}
	for _, i := range e.gone(c) {
		b := e.bodies[i]
		if !b.Archived {
			runOf[b.Skill] = b.Run // the latest live copy's run wins
			whyOf[b.Skill] = e.keepWhy(b)
		}
		ds = append(ds, e.archive(i, rules.Reason{Code: rules.ArchiveCompacted,
			Text: fmt.Sprintf("the conversation was compacted (%s): the body was summarised away", c.ID)}))
	}
	for _, r := range sent {
		run, ok := runOf[r.Skill]
		if !ok || r.Skill == "" {
			continue
		}
		id := ReattachID(c.ID, r.Skill)
		if _, dup := e.byID[id]; dup {
			continue
		}
		b := Body{ID: id, Skill: r.Skill, Size: r.Chars, Kind: ByReattach, Hash: r.Hash, Run: run}
		e.addBody(b)
		text := "re-attached after compaction"
		if r.Cut {
			text = "re-attached after compaction, cut to fit the budget"
		}
		ds = append(ds, Decision{V: RecordVersion, Action: ActLoad, ID: id, Skill: r.Skill, Size: r.Chars, Kind: ByReattach,
			Hash: r.Hash, Run: run, Reason: &rules.Reason{Code: whyOf[r.Skill], Text: text}})
	}
	return ds
}
