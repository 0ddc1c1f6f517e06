// Package hostile holds the hostile-input catalogue of skill-lifecycle: every
// case feeds one kind of bad input (broken or malicious skill files, bad
// configuration, damaged session files, malformed JSON-RPC traffic) to a
// public API or to the built binary, and checks the four promises of
// docs/reliability.md: the input gets a clear diagnostic or JSON-RPC error
// naming the file, line or field; the process keeps serving (a valid call
// afterwards still works); memory stays bounded (the big inputs measure
// allocation growth or the sidecar's resident set); and nothing already
// decided is lost. The package has no code of its own outside its tests; it
// is an ordinary test package run by `go test ./...`, and the table in
// docs/reliability.md names the test of each case.
package hostile
