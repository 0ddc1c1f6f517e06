package host

import (
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// The "already loaded" gate (dedupe "already-loaded"): a skill tool call
// whose body, by content hash, the model sees whole now is answered with
// a short note instead of the body, and nothing in the context changes.
// Seen whole means carried whole by the last request the host sent (its
// before_request loads, less those it archived): a body the engine
// recorded that never reached the context (a lost tool result), or one
// restored from the records before the next request, is not seen.

// alreadyLoaded answers a skill tool call for skill's body with hash:
// the visible copy, else a copy still whole in the context but due for
// archive, taken back (a revive: the load shows the agent needs it).
func (s *Session) alreadyLoaded(skill, hash string) (note string, ok bool) {
	b, ok := s.eng.VisibleCopy(skill, hash)
	if !ok {
		if len(s.apply(lifecycle.Event{Type: lifecycle.EvRevive, Skill: skill, Hash: hash})) == 0 {
			return "", false
		}
		b, _ = s.eng.LiveCopy(skill)
	}
	return lifecycle.AlreadyLoadedText(skill, b), true
}
