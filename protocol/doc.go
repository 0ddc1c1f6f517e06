// Package protocol serves skill-lifecycle over JSON-RPC 2.0 (LSP-style
// Content-Length framing over stdio): it decodes each request from a host
// such as the Pi bridge extension, calls the method of host.Session that
// takes that event, and encodes the answer, with the session's records,
// messages and model switches sent as notifications before it. It holds
// no logic of its own, in the manner of gopls' server methods.
package protocol
