// Package lifecycle is the engine: it keeps the state of the loaded skill
// bodies (which are live, which archived, which pinned), takes events from a
// host (user prompts, skill loads, runs starting and ending, pins, config
// reloads) and returns decisions (archive this body with this placeholder,
// switch to that model), each recorded so that the state can be restored
// from the record. The sidecar and replay drive this same engine. It does
// no I/O.
package lifecycle
