// Package replay re-costs recorded sessions. It rebuilds, request by
// request, the context a model saw, lets a lifecycle engine per strategy
// decide which skill bodies would have been archived, and prices each
// request as a provider with a prefix cache would: the part identical to
// the start of the previous request is read from the cache, the rest is
// written to it, subject to a cache lifetime and model switches. An engine
// strategy replayed on a session recorded without the extension stands for
// the bridge: its requests carry the bridge's skills listing and skill tool,
// loads go through that tool, and a prompt that asks for an archived skill
// brings it back with one more request (docs/replay.md).
package replay
