package replay

import (
	"maps"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// DedupeStrategy runs the engine under the "already-loaded" dedupe
// (rules.DedupeAlreadyLoaded): a load whose identical body (same content
// hash) is visible in the context is answered with the skill tool's short
// "already loaded" note instead of the body, and the engine does not
// record it (nothing earlier in the context changes). Replay shows the
// note by replacing the repeated body with it, from the request that
// carries it on, like an archived body's placeholder. Loads without a
// hash go to the engine as usual, as does everything else.
type DedupeStrategy struct {
	*EngineStrategy
	notes  map[string]string // load id -> the note that replaced it
	merged map[string]string
	fresh  bool
}

// NewDedupeStrategy wraps an engine.
func NewDedupeStrategy(e *lifecycle.Engine) *DedupeStrategy {
	return &DedupeStrategy{EngineStrategy: NewEngineStrategy(e), notes: map[string]string{}}
}

// Observe answers a repeated identical load with the note, and hands
// every other event to the engine.
func (s *DedupeStrategy) Observe(ev lifecycle.Event) {
	switch ev.Type {
	case lifecycle.EvLoad:
		if ev.Load != nil && s.dedupe(*ev.Load) {
			return
		}
	case lifecycle.EvLoads:
		var rest []lifecycle.Load
		for _, l := range ev.Loads {
			if !s.dedupe(l) {
				rest = append(rest, l)
			}
		}
		if len(rest) == 0 {
			return
		}
		ev.Loads = rest
	}
	s.EngineStrategy.Observe(ev)
	if s.EngineStrategy.dirty {
		s.fresh = false
	}
}

// dedupe reports whether l is answered "already loaded" (and notes it).
func (s *DedupeStrategy) dedupe(l lifecycle.Load) bool {
	if _, known := s.notes[l.ID]; known {
		return true
	}
	b, ok := s.Engine.VisibleCopy(l.Skill, l.Hash)
	var ds []lifecycle.Decision
	if !ok {
		if ds, _ = s.Engine.Apply(lifecycle.Event{Type: lifecycle.EvRevive, Skill: l.Skill, Hash: l.Hash}); len(ds) == 0 {
			return false
		}
		b, _ = s.Engine.LiveCopy(l.Skill)
	}
	text := lifecycle.AlreadyLoadedText(l.Skill, b)
	if len(ds) > 0 {
		s.EngineStrategy.dirty = true // a due copy taken back
	}
	s.notes[l.ID] = text
	s.fresh = false
	return true
}

// Deduped reports whether load id was answered "already loaded": it is no
// body, so it is neither a reload nor the skill's latest copy.
func (s *DedupeStrategy) Deduped(id string) bool {
	_, ok := s.notes[id]
	return ok
}

// Archived is the engine's archived set plus the notes (shared; do not
// modify).
func (s *DedupeStrategy) Archived() map[string]string {
	if !s.fresh {
		arch := s.EngineStrategy.Archived()
		if len(s.notes) == 0 {
			s.merged = arch
		} else {
			m := maps.Clone(arch)
			if m == nil {
				m = map[string]string{}
			}
			maps.Copy(m, s.notes)
			s.merged = m
		}
		s.fresh = true
	}
	return s.merged
}
