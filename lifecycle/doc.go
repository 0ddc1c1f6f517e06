// Package lifecycle is the engine: it keeps the state of the loaded skill
// bodies (which are live, which archived, which pinned) and turns host
// events into decisions (archive this body with this placeholder, switch
// to that model), each recorded so that the state can be restored from
// the records. Events go in through one door, Engine.Apply; every other
// exported method is a query. The sidecar and replay drive this same
// engine (through the host package). It does no I/O.
package lifecycle
