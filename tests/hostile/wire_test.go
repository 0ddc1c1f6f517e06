package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// rpcMsg is any message the server sends: a response (ID with Result or
// Error) or a notification (Method and Params).
type rpcMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *rpcErr         `json:"error"`
}

type rpcErr struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (m rpcMsg) isResponse() bool { return m.Method == "" }

// wire is a raw JSON-RPC client: it writes whatever bytes a test gives it
// and reads the server's frames on its own goroutine.
type wire struct {
	t      testing.TB
	mu     sync.Mutex // serialises writes
	w      io.Writer
	msgs   chan rpcMsg
	closed chan struct{} // closed when the server's output ends
	nextID int
	// notes are the notifications waitID passed over, in order.
	notes []rpcMsg
}

func newWire(t testing.TB, r io.Reader, w io.Writer) *wire {
	c := &wire{t: t, w: w, msgs: make(chan rpcMsg, 1<<14), closed: make(chan struct{}), nextID: 1000}
	go func() {
		defer close(c.closed)
		br := bufio.NewReader(r)
		for {
			body, err := readFrame(br)
			if err != nil {
				return
			}
			var m rpcMsg
			if err := json.Unmarshal(body, &m); err != nil {
				m = rpcMsg{Method: "!unparsable", Params: json.RawMessage(strconv.Quote(string(body)))}
			}
			c.msgs <- m
		}
	}()
	return c
}

// readFrame reads one Content-Length frame.
func readFrame(br *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if n < 0 {
				continue
			}
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Content-Length") {
			n, err = strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return nil, err
			}
		}
	}
	body := make([]byte, n)
	_, err := io.ReadFull(br, body)
	return body, err
}

func frame(body []byte) []byte {
	return append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
}

// sendRaw writes bytes as they are.
func (c *wire) sendRaw(b []byte) {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := c.w.Write(b); err != nil {
		c.t.Fatalf("writing to the server: %v", err)
	}
}

// sendAside writes bytes on its own goroutine, ignoring a write the
// server no longer reads (after a frame it refused, it ends the
// connection without reading the rest).
func (c *wire) sendAside(chunks ...[]byte) {
	go func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, b := range chunks {
			if _, err := c.w.Write(b); err != nil {
				return
			}
		}
	}()
}

// ended waits for the server's output to end, the responses before it
// dropped; it fails the test when it does not within 10 s.
func (c *wire) ended() {
	c.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-c.msgs:
		case <-c.closed:
			return
		case <-deadline:
			c.t.Fatal("the server did not end the connection")
		}
	}
}

// send frames a body correctly.
func (c *wire) send(body string) { c.t.Helper(); c.sendRaw(frame([]byte(body))) }

// request builds a request body with a fresh id.
func (c *wire) request(method string, params any) (id int, body string) {
	c.nextID++
	p, err := json.Marshal(params)
	if err != nil {
		c.t.Fatal(err)
	}
	if params == nil {
		p = []byte("null")
	}
	return c.nextID, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.nextID, method, p)
}

// call sends a request and waits for its response (notifications and
// other responses met on the way are dropped).
func (c *wire) call(method string, params any) rpcMsg {
	c.t.Helper()
	id, body := c.request(method, params)
	c.send(body)
	return c.waitID(id)
}

func (c *wire) waitID(id int) rpcMsg {
	c.t.Helper()
	want := strconv.Itoa(id)
	deadline := time.After(60 * time.Second)
	for {
		select {
		case m := <-c.msgs:
			if m.isResponse() && string(m.ID) == want {
				return m
			}
			if !m.isResponse() {
				c.notes = append(c.notes, m)
			}
		case <-c.closed:
			if m, ok := c.pending(); ok {
				if m.isResponse() && string(m.ID) == want {
					return m
				}
				continue
			}
			c.t.Fatalf("the server closed its output before answering request %d", id)
		case <-deadline:
			c.t.Fatalf("no response to request %d within 60s", id)
		}
	}
}

// pending returns a message read before the server's output ended, if
// one is left (both are ready then, and select picks either).
func (c *wire) pending() (rpcMsg, bool) {
	select {
	case m := <-c.msgs:
		return m, true
	default:
		return rpcMsg{}, false
	}
}

// nextResponse returns the next response (notifications are dropped).
func (c *wire) nextResponse() rpcMsg {
	c.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case m := <-c.msgs:
			if m.isResponse() {
				return m
			}
		case <-c.closed:
			if m, ok := c.pending(); ok {
				if m.isResponse() {
					return m
				}
				continue
			}
			c.t.Fatal("the server closed its output before answering")
		case <-deadline:
			c.t.Fatal("no response within 60s")
		}
	}
}

// ok asserts a response carries no error and decodes its result.
func (c *wire) ok(m rpcMsg, v any) {
	c.t.Helper()
	if m.Error != nil {
		c.t.Fatalf("unexpected error %d: %s", m.Error.Code, m.Error.Message)
	}
	if v != nil {
		if err := json.Unmarshal(m.Result, v); err != nil {
			c.t.Fatalf("result %s: %v", m.Result, err)
		}
	}
}

// wantErr asserts a response is a JSON-RPC error with that code whose
// message holds every one of words.
func wantErr(t testing.TB, m rpcMsg, code int64, words ...string) {
	t.Helper()
	if m.Error == nil {
		t.Fatalf("want error %d, got result %s", code, m.Result)
	}
	if m.Error.Code != code {
		t.Fatalf("want error code %d, got %d: %s", code, m.Error.Code, m.Error.Message)
	}
	for _, w := range words {
		if !strings.Contains(m.Error.Message, w) {
			t.Errorf("error message %q does not mention %q", m.Error.Message, w)
		}
	}
}

// listText runs /skills-list, the view of the engine's state used to check
// that nothing decided is lost.
func (c *wire) listText() string {
	c.t.Helper()
	var r protocol.CommandResult
	c.ok(c.call(protocol.MethodCommand, protocol.CommandParams{Name: "skills-list"}), &r)
	return r.Text
}

// pipeEnd joins two io.Pipe halves.
type pipeEnd struct {
	*io.PipeReader
	*io.PipeWriter
}

func (p pipeEnd) Close() error {
	p.PipeReader.Close()
	return p.PipeWriter.Close()
}

// served is a server running in this process over pipes.
type served struct {
	*wire
	done chan error
}

// startInProcess runs protocol.Server over pipes; memory measurements use
// it, since they read this process's statistics.
func startInProcess(t testing.TB, opts protocol.Options) *served {
	t.Helper()
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	srv := protocol.NewServer(opts)
	s := &served{done: make(chan error, 1)}
	go func() { s.done <- srv.Serve(context.Background(), pipeEnd{sr, sw}); sw.Close() }()
	s.wire = newWire(t, cr, cw)
	t.Cleanup(func() { cw.Close(); sr.Close(); cr.Close() })
	return s
}

// sidecar is `skill-lifecycle serve` running as a child process.
type sidecar struct {
	*wire
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *bytes.Buffer
	exited chan struct{}
	code   int
}

func startSidecar(t testing.TB, args ...string) *sidecar {
	t.Helper()
	return startSidecarWith(t, nil, args...)
}

// startSidecarWith is startSidecar with setup applied to the command
// before it starts (a controlling terminal, for one).
func startSidecarWith(t testing.TB, setup func(*exec.Cmd), args ...string) *sidecar {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"serve"}, args...)...)
	if setup != nil {
		setup(cmd)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sc := &sidecar{cmd: cmd, stdin: stdin, stderr: &bytes.Buffer{}, exited: make(chan struct{})}
	cmd.Stderr = sc.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc.wire = newWire(t, stdout, stdin)
	go func() {
		<-sc.wire.closed
		err := cmd.Wait()
		sc.code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			sc.code = ee.ExitCode()
		} else if err != nil {
			sc.code = -1
		}
		close(sc.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-sc.exited:
		default:
			_ = cmd.Process.Kill()
			<-sc.exited
		}
	})
	return sc
}

// memKB reads a field of /proc/<pid>/status (VmRSS, VmHWM) in KiB.
func memKB(t testing.TB, pid int, field string) int {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("reading the sidecar's memory: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("%s: %q", field, v)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// pack is a small skill pack for protocol tests: three skills in a
// temporary folder, with the host's view of them.
type pack struct {
	dir, cwd, agentDir string
	skills             []protocol.HostSkill
}

func newPack(t testing.TB) *pack {
	t.Helper()
	root := t.TempDir()
	p := &pack{dir: filepath.Join(root, "skills"), cwd: filepath.Join(root, "project"), agentDir: filepath.Join(root, "agent")}
	for _, d := range []string{p.cwd, p.agentDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []struct{ name, desc, body string }{
		{"sql-migration", "Write a SQL migration for Postgres tables, indexes and constraints.", "# Migrations\n\nWrite the up and down SQL.\n\n## Indexes\n\nCreate indexes concurrently."},
		{"go-tests", "Add table-driven Go tests with httptest and the race detector.", "# Go tests\n\nUse t.Run for each case.\n\n## Flaky tests\n\nRun with -count=20."},
		{"release-notes", "Write release notes from merged pull requests and the changelog.", "# Release notes\n\nGroup changes by kind."},
	} {
		path := writeSkill(t, p.dir, s.name, s.desc, s.body)
		p.skills = append(p.skills, protocol.HostSkill{Name: s.name, Description: s.desc, Path: path})
	}
	return p
}

func (p *pack) initParams() protocol.InitializeParams {
	return protocol.InitializeParams{
		ProtocolVersion: protocol.Version,
		Host:            protocol.HostInfo{Name: "hostile-test"},
		Cwd:             p.cwd,
		AgentDir:        p.agentDir,
		Skills:          p.skills,
	}
}

// initialize opens the session and fails the test on an error.
func (c *wire) initialize(p *pack) protocol.InitializeResult {
	c.t.Helper()
	var r protocol.InitializeResult
	c.ok(c.call(protocol.MethodInitialize, p.initParams()), &r)
	return r
}

// decide makes the engine take decisions worth keeping: a pin and a
// loaded body, and returns the /skills-list text that shows them.
func (c *wire) decide() string {
	c.t.Helper()
	c.ok(c.call(protocol.MethodCommand, protocol.CommandParams{Name: "skills-pin", Args: "release-notes"}), nil)
	c.ok(c.call(protocol.MethodUserPrompt, protocol.UserPromptParams{Text: "write a postgres migration adding an index on orders"}), nil)
	c.ok(c.call(protocol.MethodBeforeRequest, protocol.BeforeRequestParams{Loads: []protocol.LoadRef{{ID: "call-1", Skill: "sql-migration", Kind: "tool", Size: 400}}}), nil)
	text := c.listText()
	if !strings.Contains(text, "pinned") || !strings.Contains(text, "loaded") {
		c.t.Fatalf("setup: the engine did not record the pin and the load:\n%s", text)
	}
	return text
}
