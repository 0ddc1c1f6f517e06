package lifecycle

import (
	"slices"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// Per-skill lists of copies keep the work of one event in proportion to
// what it touches, not to every body loaded so far: a before_request that
// brings 10,000 loads of one skill, or a restore of their records, walked
// every earlier body for each load (issue 27).
//
//   - bySkill lists every copy of each skill, in load order.
//   - open lists, per skill, the copies a new load of the skill may have to
//     supersede: every live copy that is not already due as superseded
//     (under cacheAware; without it, every live copy). The list may hold
//     more (archived copies, duplicates), which are dropped when it is
//     walked; a copy that becomes live again (unarchived, or taken back
//     from due) is added back.
//   - holders lists, per skill, the live copies that may hold files of the
//     skill's folder (Body.Resources), in the same way.
//   - nlive counts each skill's live copies.

// addBody appends b to the bodies and indexes it; it returns its index.
func (e *Engine) addBody(b Body) int {
	i := len(e.bodies)
	e.byID[b.ID] = i
	e.bodies = append(e.bodies, b)
	e.bySkill[b.Skill] = append(e.bySkill[b.Skill], i)
	if !b.Archived {
		e.nlive[b.Skill]++
		e.open[b.Skill] = append(e.open[b.Skill], i)
		if len(b.Resources) > 0 {
			e.holders[b.Skill] = append(e.holders[b.Skill], i)
		}
	}
	return i
}

// setArchived archives or unarchives body i (only the flag).
func (e *Engine) setArchived(i int, archived bool) {
	e.touch(i)
	b := &e.bodies[i]
	if b.Archived == archived {
		return
	}
	b.Archived = archived
	if archived {
		e.nlive[b.Skill]--
		return
	}
	e.nlive[b.Skill]++
	e.reopened(i)
}

// reopened notes that body i may be live again, or no longer due as
// superseded.
func (e *Engine) reopened(i int) {
	b := &e.bodies[i]
	e.open[b.Skill] = append(e.open[b.Skill], i)
	if len(b.Resources) > 0 {
		e.holders[b.Skill] = append(e.holders[b.Skill], i)
	}
}

// reindex rebuilds the lists from the bodies (after a restore or a new
// configuration).
func (e *Engine) reindex() {
	e.bySkill = map[string][]int{}
	e.open = map[string][]int{}
	e.holders = map[string][]int{}
	e.nlive = map[string]int{}
	e.dues, e.touched, e.archFull = e.dues[:0], e.touched[:0], true
	ca := e.cacheAware()
	for i, b := range e.bodies {
		e.bySkill[b.Skill] = append(e.bySkill[b.Skill], i)
		if b.Archived {
			continue
		}
		if b.Due != nil {
			e.dues = append(e.dues, i)
		}
		e.nlive[b.Skill]++
		if !ca || !supersededDue(b) {
			e.open[b.Skill] = append(e.open[b.Skill], i)
		}
		if len(b.Resources) > 0 {
			e.holders[b.Skill] = append(e.holders[b.Skill], i)
		}
	}
}

func supersededDue(b Body) bool {
	return b.Due != nil && b.Due.Reason.Code == rules.ArchiveSuperseded
}

// listed returns the live bodies of list, in load order, each once,
// leaving out skip (-1: none).
func (e *Engine) listed(list []int, skip int) []int {
	out := slices.Clone(list)
	slices.Sort(out)
	out = slices.Compact(out)
	return slices.DeleteFunc(out, func(i int) bool { return i == skip || e.bodies[i].Archived })
}
