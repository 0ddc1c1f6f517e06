package lifecycle

import (
	"slices"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// The engine keeps, between events, what each model request asks of the
// bodies held, so that a request costs what changed since the previous
// one, not every body loaded so far (issue 30): the bodies due for
// archive, and the archived set (Archived) with what each placeholder
// saves.
//
//   - dues lists the bodies marked due (drop), in no order; it may hold
//     bodies no longer due or archived since, dropped when it is walked.
//   - arch is the archived set as of the last ArchivedView; touched the
//     bodies whose archive state, placeholder or files may have changed
//     since, and archFull says it must be built again whole (after a
//     reindex: a restore, a forget, a new configuration, a compaction).

// dueBodies are the bodies due for archive and not archived, oldest
// first (the order a walk of every body gives).
func (e *Engine) dueBodies() []int {
	kept := e.dues[:0]
	for _, i := range e.dues {
		if b := &e.bodies[i]; b.Due != nil && !b.Archived {
			kept = append(kept, i)
		}
	}
	slices.Sort(kept)
	e.dues = slices.Compact(kept)
	return slices.Clone(e.dues)
}

// Quiet reports whether the next model request decides nothing when it
// brings nothing new (no load, prompt, compaction, or change of model or
// cache state): no body is due for archive, and the usage that request
// reports for the one before cannot teach the cache lifetime anything (the
// provider's reports are known, and the pause before the previous request
// was within the lifetime).
func (e *Engine) Quiet() bool {
	for _, i := range e.dues {
		if b := &e.bodies[i]; b.Due != nil && !b.Archived {
			return false
		}
	}
	if ca := e.cfg.CacheAware; ca.Enabled && ca.LearnFromUsage {
		if !e.life.Reports || e.last.judged && e.last.ttl > 0 && e.last.pause > e.last.ttl {
			return false
		}
	}
	return true
}

// touch notes that body i's archive state, placeholder or files may have
// changed.
func (e *Engine) touch(i int) {
	if !e.archFull {
		e.touched = append(e.touched, i)
	}
}

// ArchivedView is Archived kept between calls: the engine's own map,
// which the caller must not change, valid until the next event.
func (e *Engine) ArchivedView() map[string]string {
	if e.arch == nil || e.archFull {
		e.arch, e.archFull, e.touched = e.Archived(), false, e.touched[:0]
		return e.arch
	}
	for _, i := range e.touched {
		b := &e.bodies[i]
		if !b.Archived {
			delete(e.arch, b.ID)
			for _, r := range b.Resources {
				delete(e.arch, r.ID)
			}
			continue
		}
		e.arch[b.ID] = b.Placeholder
		for _, r := range b.Resources {
			e.arch[r.ID] = rules.ResourcePlaceholder(r.Skill, r.Path)
		}
	}
	e.touched = e.touched[:0]
	return e.arch
}
