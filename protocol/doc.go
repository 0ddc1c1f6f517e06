// Package protocol is skill-lifecycle's JSON-RPC 2.0 server (LSP-style
// Content-Length framing over stdio). It decodes requests from a host such
// as the Pi bridge extension, hands them to the lifecycle engine and encodes
// the engine's answers and notifications. It holds no lifecycle logic of its
// own.
package protocol
