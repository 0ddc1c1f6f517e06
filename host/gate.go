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

// Visible returns the copy among copies (one skill's, in load order)
// whose content hash is hash that the model sees whole now: the latest
// one not archived, not due for archive (a due body may be replaced at
// the next request), and carried whole by the last request. A copy
// without a hash (a direct read, a /skill:name block) never matches, nor
// does an empty hash. Replay's plans (foresight) use it as the sidecar
// does.
func Visible(copies []lifecycle.Body, carried map[string]bool, hash string) (lifecycle.Body, bool) {
	if hash == "" {
		return lifecycle.Body{}, false
	}
	for i := len(copies) - 1; i >= 0; i-- {
		if b := copies[i]; !b.Archived && b.Due == nil && b.Hash == hash && carried[b.ID] {
			return b, true
		}
	}
	return lifecycle.Body{}, false
}

// alreadyLoaded answers a skill tool call for skill's body with hash:
// the visible copy, else the latest live copy when it is still whole in
// the context but due for archive, taken back (a revive: the load shows
// the agent needs it).
func (s *Session) alreadyLoaded(skill, hash string) (note string, ok bool) {
	copies := s.eng.Copies(skill)
	if b, ok := Visible(copies, s.carried, hash); ok {
		return lifecycle.AlreadyLoadedText(skill, b), true
	}
	for i := len(copies) - 1; i >= 0; i-- {
		b := copies[i]
		if b.Archived {
			continue
		}
		if hash == "" || b.Hash != hash || b.Due == nil || !s.carried[b.ID] {
			return "", false
		}
		if len(s.apply(lifecycle.Event{Type: lifecycle.EvRevive, ID: b.ID})) == 0 {
			return "", false
		}
		return lifecycle.AlreadyLoadedText(skill, b), true
	}
	return "", false
}
