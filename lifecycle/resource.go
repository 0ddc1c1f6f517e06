package lifecycle

import (
	"fmt"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// onResource records a file of a skill's folder (other than its
// SKILL.md) that the model read into the context: with archiveResources,
// it goes with the latest live copy of the skill's body from now on, and
// is archived and unarchived with it. While no copy of the body is live
// (the skill not loaded yet, or archived) nothing is decided: the host
// offers the file again with each request that carries it
// (host.Session.BeforeRequest), and it goes with the first live copy. A
// read without an id or skill, or whose id is already known, is ignored.
func (e *Engine) onResource(r Resource) []Decision {
	if r.ID == "" || r.Skill == "" || !e.cfg.ArchiveResources {
		return nil
	}
	if _, dup := e.byID[r.ID]; dup {
		return nil
	}
	if e.byRes[r.ID] {
		return nil
	}
	i := e.liveIndex(r.Skill)
	if i < 0 {
		return nil
	}
	e.attach(i, r)
	return []Decision{{V: RecordVersion, Action: ActResource, ID: r.ID, Skill: r.Skill, Size: r.Size, Path: r.Path, Of: e.bodies[i].ID}}
}

// liveIndex is the index of the latest live copy of skill's body, or -1.
func (e *Engine) liveIndex(skill string) int {
	if e.nlive[skill] == 0 {
		return -1
	}
	list := e.bySkill[skill]
	for k := len(list) - 1; k >= 0; k-- {
		if i := list[k]; !e.bodies[i].Archived {
			return i
		}
	}
	return -1
}

func (e *Engine) attach(i int, r Resource) {
	b := &e.bodies[i]
	if len(b.Resources) == 0 {
		e.holders[b.Skill] = append(e.holders[b.Skill], i)
	}
	b.Resources = append(b.Resources, r)
	e.byRes[r.ID] = true
}

// takeResources moves to body i, a copy just loaded, the files that went
// with the earlier live copies of its skill: they belong to the copy the
// model works from now, and go only when the skill itself does.
func (e *Engine) takeResources(i int) {
	skill := e.bodies[i].Skill
	for _, j := range e.listed(e.holders[skill], i) {
		o := &e.bodies[j]
		if j > i || len(o.Resources) == 0 {
			continue
		}
		b := &e.bodies[i]
		if len(b.Resources) == 0 {
			// The list moves whole: moving it file by file made a
			// skill loaded n times with a file each cost n² moves.
			b.Resources = o.Resources
		} else {
			b.Resources = append(b.Resources, o.Resources...)
		}
		o.Resources = nil
	}
	// The earlier copies hold nothing now (an archived one keeps its files
	// and comes back to the list when it is unarchived).
	if len(e.bodies[i].Resources) > 0 {
		e.holders[skill] = append(e.holders[skill][:0], i)
	} else {
		delete(e.holders, skill)
	}
}

// restoreResource applies a resource record; it returns the problem, if
// any.
func (e *Engine) restoreResource(r Record) string {
	if r.ID == "" || r.Skill == "" || r.Of == "" {
		return "resource record without id, skill or of"
	}
	if e.byRes[r.ID] {
		return fmt.Sprintf("resource %q recorded twice; the second record is ignored", r.ID)
	}
	i, ok := e.byID[r.Of]
	if !ok {
		return fmt.Sprintf("resource %q goes with body %q, which no earlier record loads", r.ID, r.Of)
	}
	e.attach(i, Resource{ID: r.ID, Skill: r.Skill, Path: r.Path, Size: r.Size})
	return ""
}

// FilesOfFolder says how many files of a skill's folder go with a body,
// for the host's and replay's listings: "1 file of its folder".
func FilesOfFolder(n int) string {
	if n == 1 {
		return "1 file of its folder"
	}
	return fmt.Sprintf("%d files of its folder", n)
}

// resourceChanges lists the files that go (archive: with their
// placeholders) or come back with a body.
func resourceChanges(rs []Resource, archive bool) []ResourceChange {
	if len(rs) == 0 {
		return nil
	}
	out := make([]ResourceChange, len(rs))
	for k, r := range rs {
		out[k].ID = r.ID
		if archive {
			out[k].Placeholder = rules.ResourcePlaceholder(r.Skill, r.Path)
		}
	}
	return out
}
