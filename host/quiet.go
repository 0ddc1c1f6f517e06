package host

import "encoding/json"

// A host that waits for the answer to every model request pays a round
// trip to the sidecar each time, though most requests of a tool loop
// change nothing. The answers to before_request and tool_result say when
// the next request will not (Quiet), so that the host may send it without
// waiting (docs/protocol.md, `quiet`).

// Quiet reports whether the next request changes nothing of the answer
// to this one but its Status when its messages only append ones that
// hold no load (no skill tool result, read of a skill's file, body found
// in a result, user or custom message; docs/protocol.md): the engine
// would decide nothing (lifecycle.Engine.Quiet), no skill tool load waits
// to be seen, and the loads are kept with no file waiting for its skill.
func (s *Session) Quiet() bool {
	return s.flat != nil && len(s.flat.wait) == 0 && len(s.pending) == 0 && s.eng.Quiet()
}

// readsSkillFile says whether a read of input's path (resolved as the
// context model resolves it) is one of a skill's files.
func (s *Session) readsSkillFile(input json.RawMessage, cwd string) bool {
	var args struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(input, &args) != nil || args.Path == "" {
		return true // not known: not quiet
	}
	listed, folder := s.world.Skills.skillFiles(resolveHostPath(args.Path, cwd))
	return listed != "" || folder != ""
}
