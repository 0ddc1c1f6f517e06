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

// TestRequestIDs: an integer id (int64's range) or a string id comes back
// in the response exactly as the host wrote it, on results and on errors
// (jsonrpc2's own ids are unsigned: -1 used to come back as
// 18446744073709551615); any other id is answered with an error and the
// connection goes on; a notification stays unanswered.
func TestRequestIDs(t *testing.T) {
	rs := startRaw(t)
	rs.initialize()
	list := `"method":"command","params":{"name":"skills-list"}`
	for _, tc := range []struct {
		name string
		body string // the request
		id   string // the id expected in the response, as bytes
		code int    // the error code expected, 0 for a result
	}{
		{"minus-one", `{"jsonrpc":"2.0","id":-1,` + list + `}`, `-1`, 0},
		{"zero", `{"jsonrpc":"2.0","id":0,` + list + `}`, `0`, 0},
		{"max-int64", `{"jsonrpc":"2.0","id":9223372036854775807,` + list + `}`, `9223372036854775807`, 0},
		{"min-int64", `{"jsonrpc":"2.0","id":-9223372036854775808,` + list + `}`, `-9223372036854775808`, 0},
		{"string", `{"jsonrpc":"2.0","id":"abc",` + list + `}`, `"abc"`, 0},
		{"empty-string", `{"jsonrpc":"2.0","id":"",` + list + `}`, `""`, 0},
		{"numeric-string", `{"jsonrpc":"2.0","id":"-1",` + list + `}`, `"-1"`, 0},
		{"codec-id", `{"jsonrpc":"2.0","id":"r",` + list + `}`, `"r"`, 0},
		{"escaped-string", `{"jsonrpc":"2.0","id":"\u00e9\n\/x",` + list + `}`, `"\u00e9\n\/x"`, 0},
		{"spaces-around", `{"jsonrpc":"2.0", "id" :  -7 ,` + list + `}`, `-7`, 0},
		{"id-last", `{"jsonrpc":"2.0",` + list + `,"id":-8}`, `-8`, 0},
		// Errors carry the id as written too.
		{"unknown-method", `{"jsonrpc":"2.0","id":-2,"method":"no/such"}`, `-2`, CodeMethodNotFound},
		{"bad-params", `{"jsonrpc":"2.0","id":"p","method":"skill/load","params":{"name":5}}`, `"p"`, CodeInvalidParams},
		{"method-not-a-string", `{"jsonrpc":"2.0","id":-3,"method":5}`, `-3`, CodeInvalidRequest},
		{"neither-request-nor-response", `{"jsonrpc":"2.0","id":-4}`, `-4`, CodeInvalidRequest},
		// Other ids: an error, with id null.
		{"fraction", `{"jsonrpc":"2.0","id":1.5,` + list + `}`, `null`, CodeInvalidRequest},
		{"exponent", `{"jsonrpc":"2.0","id":1e3,` + list + `}`, `null`, CodeInvalidRequest},
		{"beyond-int64", `{"jsonrpc":"2.0","id":9223372036854775808,` + list + `}`, `null`, CodeInvalidRequest},
		{"null", `{"jsonrpc":"2.0","id":null,` + list + `}`, `null`, CodeInvalidRequest},
		{"bool", `{"jsonrpc":"2.0","id":true,` + list + `}`, `null`, CodeInvalidRequest},
		{"object", `{"jsonrpc":"2.0","id":{ "a" : 1 },` + list + `}`, `null`, CodeInvalidRequest},
	} {
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

// TestCodecWarmsAhead: a first frame of warmAheadFrom bytes or more has
// the heap readied for the skills it lists (its "path" keys) before it
// is decoded; a smaller first frame, or any later frame, has not.
func TestCodecWarmsAhead(t *testing.T) {
	defer func(f func(int)) { warmAhead = f }(warmAhead)
	var got []int
	warmAhead = func(n int) { got = append(got, n) }
	frame := func(skills int) string {
		list := make([]map[string]string, skills)
		for i := range list {
			list[i] = map[string]string{"name": fmt.Sprint("s", i), "description": strings.Repeat("a skill \"path\": ", 20), "path": fmt.Sprintf("/p/s%d/SKILL.md", i)}
		}
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"cwd": "/p", "skills": list}})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	big, small := frame(5000), frame(10)
	if len(big) < warmAheadFrom || len(small) >= warmAheadFrom {
		t.Fatalf("frames of %d and %d bytes: want one over %d and one under", len(big), len(small), warmAheadFrom)
	}
	for _, c := range []struct {
		frames []string
		want   []int
	}{
		{[]string{big}, []int{5000}},
		{[]string{big, big}, []int{5000}},
		{[]string{small, big}, nil},
	} {
		got = nil
		c0 := &codec{}
		r := bufio.NewReader(strings.NewReader(strings.Join(c.frames, "")))
		for range c.frames {
			var v map[string]any
			if err := c0.ReadObject(r, &v); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%d frames: readied for (-want +got):\n%s", len(c.frames), diff)
		}
	}
}
