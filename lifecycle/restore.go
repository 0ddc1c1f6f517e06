package lifecycle

import (
	"fmt"
	"slices"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// onRestore replaces the engine's state with the one the records describe,
// in order (a resumed, forked or re-navigated session). Records it cannot
// use are reported and skipped; the rest still apply. A record is named by
// one problem at most: skipped, or (Problem.Applied) applied as far as
// this engine understands it, when its version is newer. After a restore
// no agent run is in progress.
func (e *Engine) onRestore(records []Record) []Problem {
	e.reset()
	probs := e.applyRecords(records)
	e.mstate.InRun = false
	return probs
}

// applyRecords applies records on top of the state, in order, and
// reports the ones it could not use (as onRestore does).
func (e *Engine) applyRecords(records []Record) []Problem {
	var probs []Problem
	for i, r := range records {
		msg := e.restoreOne(r)
		newer := r.V > RecordVersion
		switch {
		case msg != "" && newer:
			probs = append(probs, Problem{Index: i, Message: fmt.Sprintf("%s (record version %d, newer than this engine's %d)", msg, r.V, RecordVersion)})
		case msg != "":
			probs = append(probs, Problem{Index: i, Message: msg})
		case newer:
			probs = append(probs, Problem{Index: i, Applied: true,
				Message: fmt.Sprintf("record version %d is newer than this engine's (%d); applied as far as understood", r.V, RecordVersion)})
		}
	}
	e.reindex()
	return probs
}

// restoreOne applies one record; it returns why the record was skipped
// ("" when it was applied).
func (e *Engine) restoreOne(r Record) string {
	switch r.Action {
	case ActLoad:
		if r.ID == "" || r.Skill == "" {
			return "load record without id or skill"
		}
		if _, dup := e.byID[r.ID]; dup {
			return fmt.Sprintf("body %q loaded twice; the second record is ignored", r.ID)
		}
		e.takeResources(e.addBody(Body{ID: r.ID, Skill: r.Skill, Size: r.Size, Kind: r.Kind, Hash: r.Hash, Run: r.Run}))
		e.run = max(e.run, r.Run-1)
	case ActResource:
		return e.restoreResource(r)
	case ActForget:
		j, ok := e.byID[r.ID]
		if !ok {
			return fmt.Sprintf("forget of body %q, which no earlier record loads", r.ID)
		}
		e.forget(j)
	case ActArchive, ActUnarchive:
		j, ok := e.byID[r.ID]
		if !ok {
			return fmt.Sprintf("%s of body %q, which no earlier record loads", r.Action, r.ID)
		}
		e.setArchived(j, r.Action == ActArchive)
		b := &e.bodies[j]
		if r.Action == ActUnarchive {
			b.Reason, b.Placeholder, b.Timing = nil, "", nil
			return ""
		}
		b.Due = nil
		b.Reason = nil
		if r.Reason != nil {
			rr := *r.Reason
			b.Reason = &rr
		}
		b.Timing = nil
		if r.Timing != nil {
			t := *r.Timing
			b.Timing = &t
		}
		e.requests = max(e.requests, r.Request)
		b.Placeholder = r.Placeholder
		if b.Placeholder == "" {
			b.Placeholder = rules.Placeholder(b.Skill)
		}
	case ActPin, ActUnpin:
		if r.Skill == "" {
			return fmt.Sprintf("%s record without a skill", r.Action)
		}
		e.pins[r.Skill] = r.Action == ActPin
	case ActEnabled:
		if r.On == nil {
			return "enabled record without on"
		}
		v := *r.On
		e.enabled = &v
	case ActRun:
		e.run = max(e.run, r.Run)
	case ActTopic:
		e.topic = nonNil(slices.Clone(r.Topic))
	case ActDue, ActUndue:
		j, ok := e.byID[r.ID]
		if !ok {
			return fmt.Sprintf("%s of body %q, which no earlier record loads", r.Action, r.ID)
		}
		b := &e.bodies[j]
		if r.Action == ActUndue {
			b.Due = nil
			return ""
		}
		if b.Archived {
			return fmt.Sprintf("due record for body %q, which is archived", r.ID)
		}
		d := &Due{Run: r.Run, Request: r.Request}
		if r.Reason != nil {
			d.Reason = *r.Reason
		}
		if d.Reason.Code == rules.ArchiveRouted {
			b.Routed = true
		}
		b.Due = d
		e.requests = max(e.requests, r.Request)
	case ActModelState:
		if r.ModelState == nil {
			return "model-state record without modelState"
		}
		e.mstate = copyModelState(*r.ModelState)
	case ActCacheLifetime:
		if r.CacheLifetime == nil {
			return "cache-lifetime record without cacheLifetime"
		}
		if l := r.CacheLifetime; l.WarmUpTo < 0 || l.ColdFrom < 0 {
			return fmt.Sprintf("cache-lifetime record with a negative pause (warmUpTo %d, coldFrom %d); ignored", l.WarmUpTo, l.ColdFrom)
		}
		e.life = *r.CacheLifetime
	case ActHint:
		// A line the host added after a prompt: nothing to rebuild.
	case ActModel, ActModelRestore, ActModelReport, ActModelNote:
		// Shown to the user; the state they led to is in model-state.
	case ActOrphan:
		// The host's note (host/toolresult.go): it reads the records.
	default:
		return fmt.Sprintf("unknown record action %q", r.Action)
	}
	return ""
}
