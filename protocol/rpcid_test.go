package protocol

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// rawServer is a server over pipes driven with raw frames, so that the
// bytes of each response can be checked.
type rawServer struct {
	t      *testing.T
	srv    *Server
	client pipeEnd
	r      *bufio.Reader
	frames chan []byte
}

func startRaw(t *testing.T) *rawServer {
	t.Helper()
	serverEnd, clientEnd := pipes()
	rs := &rawServer{t: t, srv: NewServer(Options{ServerVersion: "test"}), client: clientEnd, r: bufio.NewReader(clientEnd), frames: make(chan []byte, 64)}
	go func() { _ = rs.srv.Serve(context.Background(), serverEnd) }()
	go func() {
		defer close(rs.frames)
		for {
			body, err := readFrame(rs.r)
			if err != nil {
				return
			}
			rs.frames <- body
		}
	}()
	t.Cleanup(func() { clientEnd.Close(); serverEnd.Close() })
	return rs
}

// readFrame reads one Content-Length frame and returns its body as sent.
func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if n < 0 {
				return nil, fmt.Errorf("frame without Content-Length")
			}
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				return nil, err
			}
		}
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}

func (rs *rawServer) send(body string) {
	rs.t.Helper()
	if _, err := fmt.Fprintf(rs.client, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		rs.t.Fatal(err)
	}
}

// response is what a response frame holds; ID keeps the bytes as sent.
type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Method string `json:"method"`
}

// next returns the next response, skipping notifications.
func (rs *rawServer) next() response {
	rs.t.Helper()
	for {
		select {
		case body, ok := <-rs.frames:
			if !ok {
				rs.t.Fatal("the server closed its output")
			}
			var m response
			if err := json.Unmarshal(body, &m); err != nil {
				rs.t.Fatalf("response %q: %v", body, err)
			}
			if m.Method == "" {
				return m
			}
		case <-time.After(10 * time.Second):
			rs.t.Fatal("no response within 10s")
		}
	}
}

func (rs *rawServer) initialize() {
	rs.t.Helper()
	dir := rs.t.TempDir()
	p, _ := json.Marshal(InitializeParams{ProtocolVersion: Version, Cwd: dir, AgentDir: filepath.Join(dir, "agent")})
	rs.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":` + string(p) + `}`)
	if m := rs.next(); m.Error != nil || string(m.ID) != `"init"` {
		rs.t.Fatalf("initialize: id %s, error %+v", m.ID, m.Error)
	}
}

// TestRequestIDsEchoedAsWritten: every id JSON-RPC 2.0 allows (a string,
// a number of any size or form, null) comes back in the response exactly as
// the host wrote it, on results and on errors; ids JSON-RPC does not allow
// are refused and echoed; a notification stays unanswered; nothing is left
// pending afterwards.
func TestRequestIDsEchoedAsWritten(t *testing.T) {
	rs := startRaw(t)
	rs.initialize()
	list := `"method":"command","params":{"name":"skills-list"}`
	for i, tc := range []struct {
		name string
		body string // the request
		id   string // the id expected in the response, as bytes
		code int    // the error code expected, 0 for a result
	}{
		{"minus-one", `{"jsonrpc":"2.0","id":-1,` + list + `}`, `-1`, 0},
		{"zero", `{"jsonrpc":"2.0","id":0,` + list + `}`, `0`, 0},
		{"minus-zero", `{"jsonrpc":"2.0","id":-0,` + list + `}`, `-0`, 0},
		{"fraction", `{"jsonrpc":"2.0","id":1.5,` + list + `}`, `1.5`, 0},
		{"exponent", `{"jsonrpc":"2.0","id":1e3,` + list + `}`, `1e3`, 0},
		{"exponent-upper-signed", `{"jsonrpc":"2.0","id":1E+2,` + list + `}`, `1E+2`, 0},
		{"negative-exponent", `{"jsonrpc":"2.0","id":-2.50e-3,` + list + `}`, `-2.50e-3`, 0},
		{"beyond-uint64", `{"jsonrpc":"2.0","id":123456789012345678901234567890,` + list + `}`, `123456789012345678901234567890`, 0},
		{"max-uint64", `{"jsonrpc":"2.0","id":18446744073709551615,` + list + `}`, `18446744073709551615`, 0},
		{"beyond-float64-exactness", `{"jsonrpc":"2.0","id":9007199254740993,` + list + `}`, `9007199254740993`, 0},
		{"min-int64", `{"jsonrpc":"2.0","id":-9223372036854775808,` + list + `}`, `-9223372036854775808`, 0},
		{"string", `{"jsonrpc":"2.0","id":"abc",` + list + `}`, `"abc"`, 0},
		{"empty-string", `{"jsonrpc":"2.0","id":"",` + list + `}`, `""`, 0},
		{"numeric-string", `{"jsonrpc":"2.0","id":"-1",` + list + `}`, `"-1"`, 0},
		{"escaped-string", `{"jsonrpc":"2.0","id":"\u00e9\n\/x",` + list + `}`, `"\u00e9\n\/x"`, 0},
		{"html-characters", `{"jsonrpc":"2.0","id":"<a&b>",` + list + `}`, `"<a&b>"`, 0},
		{"null", `{"jsonrpc":"2.0","id":null,` + list + `}`, `null`, 0},
		{"spaces-around", `{"jsonrpc":"2.0", "id" :  -7 ,` + list + `}`, `-7`, 0},
		{"id-last", `{"jsonrpc":"2.0",` + list + `,"id":-8}`, `-8`, 0},
		{"escaped-key", `{"jsonrpc":"2.0","\u0069d":-9,` + list + `}`, `-9`, 0},
		{"repeated-id-the-last-counts", `{"jsonrpc":"2.0","id":1,` + list + `,"id":-10}`, `-10`, 0},
		// Strings shaped like the codec's own ids are the host's ids like
		// any other: they cannot be taken for the codec's.
		{"codec-id-0", `{"jsonrpc":"2.0","id":"skill-lifecycle/request/0",` + list + `}`, `"skill-lifecycle/request/0"`, 0},
		// SELF is the codec's own id for this very request (each request
		// takes the next number; initialize took 0).
		{"codec-id-self", `{"jsonrpc":"2.0","id":"SELF",` + list + `}`, `"SELF"`, 0},
		{"codec-id-self-escaped", `{"jsonrpc":"2.0","id":"SELF-ESCAPED",` + list + `}`, `"SELF-ESCAPED"`, 0},
		// Errors carry the id as written too.
		{"unknown-method", `{"jsonrpc":"2.0","id":-2,"method":"no/such"}`, `-2`, CodeMethodNotFound},
		{"bad-params", `{"jsonrpc":"2.0","id":2.25,"method":"skill/load","params":{"name":5}}`, `2.25`, CodeInvalidParams},
		{"method-not-a-string", `{"jsonrpc":"2.0","id":-3,"method":5}`, `-3`, CodeInvalidRequest},
		{"neither-request-nor-response", `{"jsonrpc":"2.0","id":-4e0}`, `-4e0`, CodeInvalidRequest},
		{"id-is-a-bool", `{"jsonrpc":"2.0","id":true,` + list + `}`, `true`, CodeInvalidRequest},
		{"id-is-an-object", `{"jsonrpc":"2.0","id":{ "a" : 1 },` + list + `}`, `{ "a" : 1 }`, CodeInvalidRequest},
		{"id-is-an-array", `{"jsonrpc":"2.0","id":[-1],` + list + `}`, `[-1]`, CodeInvalidRequest},
	} {
		self := idPrefix + strconv.Itoa(i+1)
		r := strings.NewReplacer("SELF-ESCAPED", strings.ReplaceAll(self, "/", `\/`), "SELF", self)
		tc.body, tc.id = r.Replace(tc.body), r.Replace(tc.id)
		t.Run(tc.name, func(t *testing.T) {
			rs.t = t
			rs.send(tc.body)
			m := rs.next()
			if string(m.ID) != tc.id {
				t.Errorf("response id %s, want %s", m.ID, tc.id)
			}
			switch {
			case tc.code == 0 && m.Error != nil:
				t.Errorf("error %+v, want a result", *m.Error)
			case tc.code == 0 && !strings.Contains(string(m.Result), "skills"):
				t.Errorf("result %s is not the skills list", m.Result)
			case tc.code != 0 && (m.Error == nil || m.Error.Code != tc.code):
				t.Errorf("error %+v, want code %d", m.Error, tc.code)
			}
		})
	}
	rs.t = t
	// A notification is not answered: the next response is the call's.
	rs.send(`{"jsonrpc":"2.0","method":"model/switchFailed","params":{"provider":"p","id":-1}}`)
	rs.send(`{"jsonrpc":"2.0","id":-11,` + list + `}`)
	if m := rs.next(); string(m.ID) != `-11` {
		t.Errorf("after a notification: response id %s, want -11", m.ID)
	}
}

// TestRequestIDsSameIDTwice: two requests with the same id are both
// answered, each with that id.
func TestRequestIDsSameIDTwice(t *testing.T) {
	rs := startRaw(t)
	rs.initialize()
	for range 2 {
		rs.send(`{"jsonrpc":"2.0","id":-5,"method":"command","params":{"name":"skills-list"}}`)
	}
	var got []string
	for range 2 {
		m := rs.next()
		got = append(got, string(m.ID))
	}
	if d := cmp.Diff([]string{"-5", "-5"}, got); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
}

// TestIDTable: the table keeps an entry per pending request, forgets it
// when the response is written, puts back exactly what was read, and keeps
// at most maxPendingIDs entries (the oldest forgotten first).
func TestIDTable(t *testing.T) {
	tab := newIDTable()
	body, sub, raw := tab.substitute([]byte(`{"id" : -1.50E+3 ,"method":"x","params":{"id":7}}`))
	if string(raw) != `-1.50E+3` || tab.pending() != 1 {
		t.Fatalf("raw %s, %d pending", raw, tab.pending())
	}
	if want := `{"id" : ` + string(sub) + ` ,"method":"x","params":null}`; string(body) != want {
		t.Errorf("substituted body %s, want %s", body, want)
	}
	if p, ok := tab.takeParams(strings.Trim(string(sub), `"`)); !ok || string(p) != `{"id":7}` {
		t.Errorf("params kept aside: %s, %v", p, ok)
	}
	if _, ok := tab.takeParams(strings.Trim(string(sub), `"`)); ok {
		t.Errorf("params taken twice")
	}
	out := tab.restore([]byte(`{"id":` + string(sub) + `,"result":{"id":` + string(sub) + `}}`))
	if want := `{"id":-1.50E+3,"result":{"id":` + string(sub) + `}}`; string(out) != want {
		t.Errorf("restored %s, want %s", out, want)
	}
	if tab.pending() != 0 {
		t.Errorf("%d pending after the response", tab.pending())
	}
	// A second write of the same id finds nothing to restore.
	if out := tab.restore([]byte(`{"id":` + string(sub) + `}`)); string(out) != `{"id":`+string(sub)+`}` {
		t.Errorf("a forgotten id was restored: %s", out)
	}
	// Notifications and responses are left alone.
	for _, in := range []string{`{"method":"x","params":{"id":1}}`, `{"id":1,"result":2}`, `[{"id":1,"method":"x"}]`, `"id"`} {
		if out, sub, _ := tab.substitute([]byte(in)); string(out) != in || sub != nil {
			t.Errorf("%s became %s", in, out)
		}
	}
	subs := []json.RawMessage{}
	for i := range maxPendingIDs + 10 {
		_, s, _ := tab.substitute([]byte(`{"id":` + strconv.Itoa(i) + `,"method":"x"}`))
		subs = append(subs, s)
	}
	if tab.pending() != maxPendingIDs {
		t.Errorf("%d pending, want the bound %d", tab.pending(), maxPendingIDs)
	}
	if _, ok := tab.take(subs[9]); ok {
		t.Errorf("the oldest entries were not forgotten")
	}
	if raw, ok := tab.take(subs[len(subs)-1]); !ok || string(raw) != strconv.Itoa(maxPendingIDs+9) {
		t.Errorf("the newest entry: %s %v", raw, ok)
	}
}
