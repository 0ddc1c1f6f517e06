package hostile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// TestHostileRPCBeforeInitialize: every call before a successful
// initialize is refused with an error naming the method; a failed
// initialize leaves the server waiting for a good one; a second one is
// refused.
func TestHostileRPCBeforeInitialize(t *testing.T) {
	p := newPack(t)
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	for _, m := range []string{protocol.MethodSkillLoad, protocol.MethodCommand, protocol.MethodBeforeRequest, protocol.MethodShutdown, protocol.MethodSessionRestore} {
		t.Run("call-before-initialize/"+m, func(t *testing.T) {
			wantErr(t, s.call(m, map[string]any{"name": "go-tests"}), protocol.CodeNotInitialized, m, "before initialize")
		})
	}
	t.Run("unknown-method-before-initialize", func(t *testing.T) {
		wantErr(t, s.call("skills/delete", nil), protocol.CodeMethodNotFound, `"skills/delete"`)
	})
	t.Run("initialize-wrong-version", func(t *testing.T) {
		ip := p.initParams()
		ip.ProtocolVersion = 99
		wantErr(t, s.call(protocol.MethodInitialize, ip), protocol.CodeVersionMismatch, "99", fmt.Sprint(protocol.Version))
	})
	t.Run("initialize-wrong-types", func(t *testing.T) {
		wantErr(t, s.call(protocol.MethodInitialize, map[string]any{"protocolVersion": "1", "cwd": p.cwd}), protocol.CodeInvalidParams, "protocolVersion")
		wantErr(t, s.call(protocol.MethodInitialize, map[string]any{"protocolVersion": 1, "cwd": p.cwd, "skills": "all"}), protocol.CodeInvalidParams, "skills")
	})
	t.Run("initialize-missing-cwd", func(t *testing.T) {
		ip := p.initParams()
		ip.Cwd = ""
		wantErr(t, s.call(protocol.MethodInitialize, ip), protocol.CodeInvalidParams, "cwd")
	})
	s.initialize(p)
	t.Run("initialize-twice", func(t *testing.T) {
		wantErr(t, s.call(protocol.MethodInitialize, p.initParams()), protocol.CodeAlreadyInit, "twice")
	})
	if !strings.Contains(s.listText(), "3 skills") {
		t.Errorf("the good initialize did not take")
	}
}

// rpcCase is one bad message sent after the session has decided things.
type rpcCase struct {
	name string
	raw  []byte // the bytes sent, framed correctly unless the case is about framing
	// the error expected; code 0 means no response at all (a notification),
	// answered a result (the skills list) with the id as written
	code  int64
	id    string // the response's id as JSON ("null" when not recoverable)
	words []string
}

// answered is rpcCase.code for a message that is served: it gets a result,
// not an error (JSON-RPC error codes are negative).
const answered = 1

func rpcCases() []rpcCase {
	f := func(s string) []byte { return frame([]byte(s)) }
	return []rpcCase{
		{"invalid-json", f(`{"jsonrpc":"2.0","id":7,"method":`), protocol.CodeParseError, "null", []string{"invalid JSON"}},
		{"invalid-json-garbage-bytes", f("\x00\xff\xfe{]"), protocol.CodeParseError, "null", []string{"invalid JSON"}},
		{"json-array-not-object", f(`[1,2,3]`), protocol.CodeInvalidRequest, "null", []string{"not a JSON-RPC 2.0 message"}},
		{"json-string-not-object", f(`"hello"`), protocol.CodeInvalidRequest, "null", []string{"not a JSON-RPC 2.0 message"}},
		{"batch-request", f(`[{"jsonrpc":"2.0","id":8,"method":"command","params":{"name":"skills-list"}}]`), protocol.CodeInvalidRequest, "null", []string{"not a JSON-RPC 2.0 message"}},
		{"deeply-nested-json", f(`{"jsonrpc":"2.0","id":9,"method":"command","params":` + strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000) + `}`), protocol.CodeParseError, "null", []string{"invalid JSON"}},
		// An id is an integer (int64's range) or a string, echoed as
		// written (finding 4: -1 used to come back as
		// 18446744073709551615); any other id gets an error with id null.
		{"id-is-an-object", f(`{"jsonrpc":"2.0","id":{"a":1},"method":"command","params":{"name":"skills-list"}}`), protocol.CodeInvalidRequest, "null", []string{"an integer or a string"}},
		{"id-is-a-fraction", f(`{"jsonrpc":"2.0","id":1.5,"method":"command","params":{"name":"skills-list"}}`), protocol.CodeInvalidRequest, "null", []string{"an integer or a string"}},
		{"id-is-negative", f(`{"jsonrpc":"2.0","id":-1,"method":"command","params":{"name":"skills-list"}}`), answered, `-1`, nil},
		{"id-is-an-exponent", f(`{"jsonrpc":"2.0","id":1E+2,"method":"command","params":{"name":"skills-list"}}`), protocol.CodeInvalidRequest, "null", []string{"an integer or a string"}},
		{"id-is-null", f(`{"jsonrpc":"2.0","id":null,"method":"command","params":{"name":"skills-list"}}`), protocol.CodeInvalidRequest, "null", []string{"an integer or a string"}},
		{"id-is-a-bool", f(`{"jsonrpc":"2.0","id":true,"method":"command","params":{"name":"skills-list"}}`), protocol.CodeInvalidRequest, "null", []string{"an integer or a string"}},
		{"id-out-of-range", f(`{"jsonrpc":"2.0","id":99999999999999999999,"method":"command","params":{"name":"skills-list"}}`), protocol.CodeInvalidRequest, "null", []string{"an integer or a string"}},
		{"unknown-method", f(`{"jsonrpc":"2.0","id":10,"method":"skills/delete","params":{}}`), protocol.CodeMethodNotFound, "10", []string{`"skills/delete"`}},
		{"wrong-param-type-string-field", f(`{"jsonrpc":"2.0","id":11,"method":"skill/load","params":{"name":5}}`), protocol.CodeInvalidParams, "11", []string{"skill/load", "name", "string", "number"}},
		{"wrong-param-type-array-params", f(`{"jsonrpc":"2.0","id":12,"method":"skill/load","params":["go-tests"]}`), protocol.CodeInvalidParams, "12", []string{"skill/load", "params"}},
		{"wrong-param-type-nested", f(`{"jsonrpc":"2.0","id":13,"method":"before_request","params":{"loads":[{"id":"x","skill":"go-tests","kind":"tool","size":"big"}]}}`), protocol.CodeInvalidParams, "13", []string{"before_request", "size", "int64"}},
		{"wrong-param-type-bool-for-string", f(`{"jsonrpc":"2.0","id":14,"method":"command","params":{"name":true}}`), protocol.CodeInvalidParams, "14", []string{"command", "name"}},
		{"params-missing", f(`{"jsonrpc":"2.0","id":15,"method":"user_prompt"}`), protocol.CodeInvalidParams, "15", []string{"user_prompt", "params", "missing"}},
		{"required-field-missing", f(`{"jsonrpc":"2.0","id":16,"method":"tool_call","params":{"input":{}}}`), protocol.CodeInvalidParams, "16", []string{"tool_call", "toolName", "missing"}},
		{"bad-enum-value", f(`{"jsonrpc":"2.0","id":17,"method":"before_request","params":{"loads":[{"id":"x","skill":"go-tests","kind":"telepathy"}]}}`), protocol.CodeInvalidParams, "17", []string{"loads[0].kind", "telepathy"}},
		{"bad-load-missing-id", f(`{"jsonrpc":"2.0","id":18,"method":"before_request","params":{"loads":[{"skill":"go-tests","kind":"tool"}]}}`), protocol.CodeInvalidParams, "18", []string{"loads[0].id"}},
		{"unknown-command", f(`{"jsonrpc":"2.0","id":19,"method":"command","params":{"name":"skills-rm","args":"*"}}`), protocol.CodeInvalidParams, "19", []string{"unknown command", "skills-rm", "skills-list"}},
		{"pin-unknown-skill", f(`{"jsonrpc":"2.0","id":20,"method":"command","params":{"name":"skills-pin","args":"../../etc"}}`), protocol.CodeInvalidParams, "20", []string{"unknown skill", "../../etc"}},
		{"model-changed-without-model", f(`{"jsonrpc":"2.0","id":21,"method":"model/changed","params":{}}`), protocol.CodeInvalidParams, "21", []string{"model.provider"}},
		{"huge-number", f(`{"jsonrpc":"2.0","id":22,"method":"before_request","params":{"loads":[],"sincePreviousMs":1e400}}`), protocol.CodeInvalidParams, "22", []string{"before_request"}},
		{"delta-past-the-messages-held", f(`{"jsonrpc":"2.0","id":23,"method":"before_request","params":{"from":4,"messages":[]}}`), protocol.CodeInvalidParams, "23", []string{"from", "send from 0"}},
		{"message-content-not-text", f(`{"jsonrpc":"2.0","id":24,"method":"before_request","params":{"from":0,"messages":[{"role":"user","content":"hi"},{"role":"user","content":42}]}}`), protocol.CodeInvalidParams, "24", []string{"messages[1].content"}},
		{"messages-and-loads", f(`{"jsonrpc":"2.0","id":25,"method":"before_request","params":{"messages":[],"loads":[{"id":"x","skill":"go-tests","kind":"tool"}]}}`), protocol.CodeInvalidParams, "25", []string{"loads", "not with messages"}},
		{"unknown-notification", f(`{"jsonrpc":"2.0","method":"skills/explode","params":{"now":true}}`), 0, "", nil},
		{"stray-blank-lines", []byte("\r\n\r\n\n\n"), 0, "", nil},
	}
}

// TestHostileRPCBadMessages: each bad message gets a JSON-RPC error that
// says what is wrong (naming the method and the field), the server goes
// on serving, and the engine's state is what it was.
func TestHostileRPCBadMessages(t *testing.T) {
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(newPack(t))
	before := s.decide()
	for _, tc := range rpcCases() {
		t.Run(tc.name, func(t *testing.T) {
			s.sendRaw(tc.raw)
			// A valid call follows; its answer must come after the error's.
			id, body := s.request(protocol.MethodCommand, protocol.CommandParams{Name: "skills-list"})
			s.send(body)
			first := s.nextResponse()
			switch tc.code {
			case 0:
				if string(first.ID) != fmt.Sprint(id) {
					t.Fatalf("a notification was answered: %+v", first)
				}
			case answered:
				if string(first.ID) != tc.id {
					t.Errorf("response id %s, want %s", first.ID, tc.id)
				}
				var r protocol.CommandResult
				s.ok(first, &r)
				if r.Text != before {
					t.Errorf("the call was not served: %q", r.Text)
				}
				first = s.waitID(id)
			default:
				if string(first.ID) != tc.id {
					t.Errorf("error response id %s, want %s", first.ID, tc.id)
				}
				wantErr(t, first, tc.code, tc.words...)
				first = s.waitID(id)
			}
			var r protocol.CommandResult
			s.ok(first, &r)
			if r.Text != before {
				t.Errorf("state changed:\n%s\nwant\n%s", r.Text, before)
			}
		})
	}
}

// TestHostileRPCSessionRestoreCount: restored is the number of records
// applied, never negative, and each record is named by one problem at
// most (issue 27, item 11): a record of a newer version that is also
// unusable was reported twice, so two such records out of five answered
// restored: -1; one of a newer version that applies counts as restored,
// with applied: true.
func TestHostileRPCSessionRestoreCount(t *testing.T) {
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(newPack(t))
	records := []any{
		map[string]any{"v": 1, "action": "load", "id": "c1", "skill": "go-tests", "size": 10, "kind": "tool", "run": 1},
		map[string]any{"v": 99, "action": "archive", "id": "nope"},
		map[string]any{"v": 99, "action": "pin", "skill": "go-tests"},
		"garbage",
		map[string]any{"v": 99, "action": "load"},
	}
	// As the host reads the result.
	type problem struct {
		Index   int    `json:"index"`
		Message string `json:"message"`
		Applied bool   `json:"applied"`
	}
	var r struct {
		Restored int       `json:"restored"`
		Problems []problem `json:"problems"`
	}
	s.ok(s.call(protocol.MethodSessionRestore, map[string]any{"records": records}), &r)
	if r.Restored != 2 {
		t.Errorf("restored %d, want 2 (the load and the pin)", r.Restored)
	}
	byIndex := map[int]problem{}
	for _, p := range r.Problems {
		if _, twice := byIndex[p.Index]; twice {
			t.Errorf("record %d named twice: %+v", p.Index, r.Problems)
		}
		byIndex[p.Index] = p
	}
	for i, applied := range map[int]bool{1: false, 2: true, 3: false, 4: false} {
		p, ok := byIndex[i]
		if !ok || p.Applied != applied || p.Message == "" {
			t.Errorf("record %d: problem %+v (found %v), want applied %v", i, p, ok, applied)
		}
	}
	if len(byIndex) != 4 {
		t.Errorf("problems %+v, want records 1 to 4", r.Problems)
	}
	if !strings.Contains(byIndex[1].Message, "newer") || !strings.Contains(byIndex[1].Message, `"nope"`) {
		t.Errorf("problem of record 1 does not say both what is wrong and the version: %q", byIndex[1].Message)
	}
	if list := s.listText(); !strings.Contains(list, "go-tests") || !strings.Contains(list, "pinned") {
		t.Errorf("the load and the pin were not restored:\n%s", list)
	}
}

// TestHostileRPCSessionRestoreGarbage: records that are not decisions are
// reported one by one.
func TestHostileRPCSessionRestoreGarbage(t *testing.T) {
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(newPack(t))
	var r protocol.SessionRestoreResult
	s.ok(s.call(protocol.MethodSessionRestore, map[string]any{"records": []any{"garbage", 5, nil, map[string]any{"action": 7}, []int{1}}}), &r)
	if r.Restored != 0 || len(r.Problems) != 5 {
		t.Fatalf("restored %d, problems %+v", r.Restored, r.Problems)
	}
	seen := map[int]bool{}
	for _, p := range r.Problems {
		if p.Message == "" || !strings.Contains(p.Message, "record") {
			t.Errorf("problem %+v does not say which record", p)
		}
		seen[p.Index] = true
	}
	if len(seen) != 5 {
		t.Errorf("problems name records %v, want 0 to 4", seen)
	}
	wantErr(t, s.call(protocol.MethodSessionRestore, map[string]any{"records": "all"}), protocol.CodeInvalidParams, "records")
}

// TestHostileRPCHugeMessage: a message over the size limit is refused at
// once, its body unread, and the connection ends (the host starts a new
// sidecar): the 100 MiB body is never buffered.
func TestHostileRPCHugeMessage(t *testing.T) {
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(newPack(t))
	const size = 100 * mib
	var resp rpcMsg
	grew := testio.Allocated(func() {
		chunk := bytes.Repeat([]byte("x"), mib)
		chunks := [][]byte{[]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", size))}
		for i := 0; i < size/mib; i++ {
			chunks = append(chunks, chunk)
		}
		s.sendAside(chunks...)
		resp = s.nextResponse()
		s.ended()
	})
	wantErr(t, resp, protocol.CodeInvalidRequest, fmt.Sprint(size), "exceeds the limit")
	if grew > 16*mib {
		t.Errorf("refusing a 100 MiB message allocated %d MiB: it was buffered", grew/mib)
	}
	t.Logf("100 MiB message: %.1f MiB allocated while it was refused", float64(grew)/mib)
	if err := <-s.done; !errors.Is(err, protocol.ErrExitWithoutShutdown) {
		t.Errorf("Serve returned %v, want ErrExitWithoutShutdown", err)
	}
}

// TestHostileSidecarHugeMessage: the real sidecar refuses a 100 MiB
// message at once and ends, having read no more of its body than its
// input buffer holds: the host's writes fail after at most a pipe's
// worth (64 KiB) and a buffer (4 KiB). (Its peak RSS cannot be read
// after it has ended, and the kernel counts the parent's memory in a
// child's maxrss before exec.)
func TestHostileSidecarHugeMessage(t *testing.T) {
	sc := startSidecar(t)
	sc.initialize(newPack(t))
	const size = 100 * mib
	chunk := bytes.Repeat([]byte(`{"a":1}`), 64<<10/7)
	written := make(chan int, 1)
	go func() {
		n, _ := sc.stdin.Write([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", size)))
		for n < size {
			k, err := sc.stdin.Write(chunk)
			n += k
			if err != nil {
				break
			}
		}
		written <- n
	}()
	wantErr(t, sc.nextResponse(), protocol.CodeInvalidRequest, "exceeds the limit")
	sc.ended()
	<-sc.exited
	if sc.code != 1 {
		t.Errorf("exit status %d, want 1 (the connection ended without shutdown)", sc.code)
	}
	n := <-written
	t.Logf("the sidecar took %d bytes of a 100 MiB message before it ended", n)
	if n > mib {
		t.Errorf("the sidecar took %d bytes of the message: it read the body", n)
	}
}

// TestHostileSidecarAfterShutdown: after shutdown every call is refused
// (unknown methods are still unknown), and exit ends the process cleanly.
func TestHostileSidecarAfterShutdown(t *testing.T) {
	sc := startSidecar(t)
	sc.initialize(newPack(t))
	sc.decide()
	sc.ok(sc.call(protocol.MethodShutdown, nil), nil)
	for _, m := range []string{protocol.MethodSkillLoad, protocol.MethodCommand, protocol.MethodShutdown, protocol.MethodInitialize} {
		wantErr(t, sc.call(m, map[string]any{"name": "go-tests"}), protocol.CodeShutDown, m, "after shutdown")
	}
	wantErr(t, sc.call("skills/delete", nil), protocol.CodeMethodNotFound, "skills/delete")
	sc.send(`{"jsonrpc":"2.0","method":"exit"}`)
	select {
	case <-sc.exited:
	case <-time.After(20 * time.Second):
		t.Fatal("the sidecar did not exit after exit")
	}
	if sc.code != 0 {
		t.Errorf("exit code %d after shutdown and exit; stderr %s", sc.code, sc.stderr)
	}
}

// TestHostileSidecarExitWithoutShutdown: a host that closes the stream
// without shutdown gets exit status 1 and a line on stderr.
func TestHostileSidecarExitWithoutShutdown(t *testing.T) {
	sc := startSidecar(t)
	sc.initialize(newPack(t))
	sc.stdin.Close()
	select {
	case <-sc.exited:
	case <-time.After(20 * time.Second):
		t.Fatal("the sidecar did not exit when its input closed")
	}
	if sc.code != 1 || !strings.Contains(sc.stderr.String(), "without shutdown") {
		t.Errorf("exit code %d, stderr %q", sc.code, sc.stderr)
	}
}

// TestHostileSidecarFlood: 10,000 calls written without waiting for any
// answer are all answered, once each, in order, and the state decided
// before them survives.
func TestHostileSidecarFlood(t *testing.T) {
	sc := startSidecar(t)
	sc.initialize(newPack(t))
	before := sc.decide()
	pid := sc.cmd.Process.Pid
	rssStart := memKB(t, pid, "VmRSS")
	const n = 10_000
	var ids []int
	var all bytes.Buffer
	for i := 0; i < n; i++ {
		var id int
		var body string
		switch i % 5 {
		case 0:
			id, body = sc.request(protocol.MethodSkillLoad, protocol.SkillLoadParams{Name: "go-tests"})
		case 1:
			in, _ := json.Marshal(map[string]string{"path": "/etc/hosts"})
			id, body = sc.request(protocol.MethodToolCall, protocol.ToolCallParams{ToolName: "read", Input: in})
		case 2:
			id, body = sc.request(protocol.MethodCommand, protocol.CommandParams{Name: "skills-explain", Args: "add a flaky test for the orders handler"})
		case 3:
			id, body = sc.request("no/such/method", nil)
		default:
			id, body = sc.request(protocol.MethodSkillLoad, map[string]any{"name": i})
		}
		ids = append(ids, id)
		all.Write(frame([]byte(body)))
	}
	go sc.sendRaw(all.Bytes())
	for i, id := range ids {
		m := sc.nextResponse()
		if string(m.ID) != fmt.Sprint(id) {
			t.Fatalf("response %d has id %s, want %d", i, m.ID, id)
		}
		if (i%5 >= 3) != (m.Error != nil) {
			t.Fatalf("response %d (kind %d): error %+v", i, i%5, m.Error)
		}
	}
	rssEnd := memKB(t, pid, "VmRSS")
	t.Logf("flood of %d calls: sidecar RSS %d KiB before, %d KiB after, peak %d KiB", n, rssStart, rssEnd, memKB(t, pid, "VmHWM"))
	if rssEnd > rssStart+64*1024 {
		t.Errorf("RSS grew from %d to %d KiB", rssStart, rssEnd)
	}
	if after := sc.listText(); after != before {
		t.Errorf("state changed:\n%s\nwant\n%s", after, before)
	}
}

// TestHostileSidecarLongSession: a session of 10,000 requests through the
// live sidecar, shaped like a host's (prompt, run start, skill load, the
// loads in context before each model request, a guarded read, run end),
// keeps its resident set flat. The figures are logged for
// docs/reliability.md.
func TestHostileSidecarLongSession(t *testing.T) {
	sc := startSidecar(t)
	p := newPack(t)
	sc.initialize(p)
	pid := sc.cmd.Process.Pid
	prompts := []string{
		"write a postgres migration that adds an index on orders.created_at",
		"add a table-driven Go test for the orders handler and fix the flaky one",
		"write the release notes for the merged pull requests of this week",
	}
	names := []string{"sql-migration", "go-tests", "release-notes"}
	readIn, _ := json.Marshal(map[string]string{"path": p.skills[1].Path})
	const total = 10_000
	var loads []protocol.LoadRef
	requests, archived := 0, 0
	rss := []int{memKB(t, pid, "VmRSS")}
	call := func(method string, params any, v any) {
		sc.ok(sc.call(method, params), v)
		requests++
		if requests%2000 == 0 {
			rss = append(rss, memKB(t, pid, "VmRSS"))
		}
	}
	for turn := 0; requests < total; turn++ {
		k := turn % 3
		call(protocol.MethodUserPrompt, protocol.UserPromptParams{Text: prompts[k]}, nil)
		call(protocol.MethodRunStart, struct{}{}, nil)
		var lr protocol.SkillLoadResult
		call(protocol.MethodSkillLoad, protocol.SkillLoadParams{Name: names[k], CallID: fmt.Sprintf("call-%d", turn)}, &lr)
		if !lr.Found {
			t.Fatalf("turn %d: %s not found", turn, names[k])
		}
		loads = append(loads, protocol.LoadRef{ID: fmt.Sprintf("call-%d", turn), Skill: names[k], Kind: "tool", Size: int64(len(lr.Text)), Hash: lr.Hash})
		if len(loads) > 50 { // a compaction drops the oldest from the context
			loads = loads[1:]
		}
		var br protocol.BeforeRequestResult
		call(protocol.MethodBeforeRequest, protocol.BeforeRequestParams{Loads: loads, SincePreviousMs: 2000}, &br)
		archived += len(br.Archive)
		var tr protocol.ToolCallResult
		call(protocol.MethodToolCall, protocol.ToolCallParams{ToolName: "read", Input: readIn}, &tr)
		if !tr.Block {
			t.Fatalf("turn %d: a direct read of a SKILL.md was not blocked", turn)
		}
		call(protocol.MethodRunEnd, struct{}{}, nil)
	}
	end, peak := memKB(t, pid, "VmRSS"), memKB(t, pid, "VmHWM")
	t.Logf("long session: %d requests, %d placeholders served; RSS (KiB) every 2,000 requests %v, end %d, peak %d", requests, archived, rss, end, peak)
	if archived == 0 {
		t.Errorf("the engine archived nothing over %d requests", requests)
	}
	if end > rss[0]+64*1024 {
		t.Errorf("RSS grew from %d KiB to %d KiB", rss[0], end)
	}
}

// TestHostileRPCLyingContentLength: a header declaring 2 GiB, followed by
// a short body and good calls. The header is refused at once (−32600
// naming the size) and the connection ends; the body is never waited for.
// The codec used to skip 2 GiB by the declared length, so the sidecar
// ignored everything the host sent after it without a word.
func TestHostileRPCLyingContentLength(t *testing.T) {
	sc := startSidecar(t)
	sc.initialize(newPack(t))
	const declared = 2 << 30
	_, body := sc.request(protocol.MethodCommand, protocol.CommandParams{Name: "skills-list"})
	sc.sendAside([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", declared)+`{"jsonrpc":"2.0","id":5,"method":"command","params":{"name":"skills-list"}}`), frame([]byte(body)))
	wantErr(t, sc.nextResponse(), protocol.CodeInvalidRequest, fmt.Sprint(declared), "exceeds the limit")
	sc.ended()
	<-sc.exited
	if sc.code != 1 {
		t.Errorf("exit status %d, want 1", sc.code)
	}
}
