// Package session reads Pi session files (.jsonl): the header, entries of
// format versions 1 to 3 (migrated in memory to the version-3 tree as Pi
// does), and the branch from the root to a leaf, with compaction and
// branch summaries applied as Pi builds the model's context. A malformed
// line is reported with its number and skipped; reading streams.
package session
