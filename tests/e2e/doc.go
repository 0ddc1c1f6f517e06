//go:build e2e

// Package e2e runs the real Pi coding agent headless against a scripted model
// and checks what Pi sends and records. Nothing here is compiled without the
// e2e build tag; scripts/e2e.sh installs Node 22 and the pinned Pi releases
// (scripts/setup-pi.sh) and runs `go test -tags e2e ./tests/e2e/...`. The
// scripted model is an OpenAI chat-completions server on 127.0.0.1 (Provider):
// for every request it asks the test's Script for the reply (text or tool
// calls, streamed as server-sent events), logs the request body with its
// arrival time, and reports a usage estimate computed from the request it
// actually received, the same rule as ../shared/corpora/scenario-sessions:
// S is the request's "tools" then "messages" re-serialised compactly (Python's
// json.dumps with ensure_ascii=False and separators "," ":", keys in their
// original order), prompt_tokens = ceil(code points of S / 4),
// cached_tokens = floor(P / 4) where P is the code-point length of the longest
// common prefix of S and the previous request's S on the same provider (0 for
// its first request), completion_tokens = ceil(code points of O / 4) where O is
// the reply text followed by each tool call's name and JSON arguments. Pi
// turns this into usage.input = prompt - cached and usage.cacheRead = cached.
// Env prepares an isolated Pi (PI_CODING_AGENT_DIR, HOME and a project
// directory in temp folders, models.json pointing at the provider) and Run
// starts `pi --offline -p …` with the right Node first on PATH; the helpers in
// assert.go look into captured requests and session files.
package e2e
