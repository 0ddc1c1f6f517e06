// Package session reads Pi session files (.jsonl) and rebuilds the
// context Pi sends to the model.
//
//	s, err := session.ReadFile(path, nil) // err: I/O only; bad lines are s.Diagnostics
//	msgs := session.BuildContext(s.Branch(s.Leaf()))
//
// Entries of format versions 1 to 3 are migrated in memory to the
// version-3 tree, as Pi does; a branch runs from the root to a leaf, with
// compaction and branch summaries applied as Pi builds the model's
// context (ContextBuilder steps through it). A malformed line is reported
// with its number and skipped; reading streams, and lines are parsed by a
// small JSON parser of its own (json.go says why).
package session
