// Package replay re-costs recorded sessions. It rebuilds, request by
// request, the context a model saw, lets a lifecycle engine per strategy
// decide which skill bodies would have been archived, and prices each
// request as a provider with a prefix cache would: the part identical to
// the start of the previous request is read from the cache, the rest is
// written to it, subject to a cache lifetime and model switches.
package replay
