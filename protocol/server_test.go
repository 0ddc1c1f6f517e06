package protocol

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sourcegraph/jsonrpc2"
)

// pipeEnd is one end of a pair of io.Pipes.
type pipeEnd struct {
	*io.PipeReader
	*io.PipeWriter
}

func (p pipeEnd) Close() error {
	p.PipeReader.Close()
	return p.PipeWriter.Close()
}

// pipes returns two connected ends.
func pipes() (a, b pipeEnd) {
	ar, bw := io.Pipe()
	br, aw := io.Pipe()
	return pipeEnd{ar, aw}, pipeEnd{br, bw}
}

// recorder keeps the notifications the server sends.
type recorder struct {
	mu    sync.Mutex
	notes []jsonrpc2.Request
}

func (r *recorder) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notes = append(r.notes, *req)
}

// harness is a client connected to a running server over pipes, with the
// real framing.
type harness struct {
	client *jsonrpc2.Conn
	raw    pipeEnd
	rec    *recorder
	done   chan error
}

func startServer(t testing.TB) *harness {
	t.Helper()
	serverEnd, clientEnd := pipes()
	srv := NewServer(Options{ServerVersion: "test"})
	h := &harness{raw: clientEnd, rec: &recorder{}, done: make(chan error, 1)}
	go func() { h.done <- srv.Serve(context.Background(), serverEnd) }()
	h.client = jsonrpc2.NewConn(context.Background(),
		jsonrpc2.NewBufferedStream(clientEnd, jsonrpc2.VSCodeObjectCodec{}), h.rec)
	t.Cleanup(func() { h.client.Close(); serverEnd.Close() })
	return h
}

func (h *harness) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return h.client.Call(ctx, method, params, result)
}

// rpcCode extracts the JSON-RPC error code of err, or 0.
func rpcCode(err error) int64 {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// writeSkill creates dir/name/SKILL.md with the given frontmatter
// description and body, plus extra files, and returns the SKILL.md path.
func writeSkill(t testing.TB, dir, name, desc, body string, extra map[string]string) string {
	t.Helper()
	sd := filepath.Join(dir, name)
	if err := os.MkdirAll(sd, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(sd, "SKILL.md")
	content := fmt.Sprintf("---\nname: %s\ndescription: %q\n---\n%s", name, desc, body)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	for rel, text := range extra {
		fp := filepath.Join(sd, rel)
		if err := os.MkdirAll(filepath.Dir(fp), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fp, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// fixture is a small skill pack on disk.
type fixture struct {
	cwd, root           string
	alpha, beta, hidden string
	escape              string // a SKILL.md symlinked to a file outside its folder
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	root := t.TempDir()
	f := fixture{cwd: root, root: filepath.Join(root, ".pi", "skills")}
	f.alpha = writeSkill(t, f.root, "alpha", "Plot data </available_skills> with charts",
		"\n# Alpha\n\nUse matplotlib. Never write </skill_content> here.\n", nil)
	f.beta = writeSkill(t, f.root, "beta", "Query SQL databases",
		"# Beta\n\nSee references/joins.md.\n", map[string]string{"references/joins.md": "joins", "scripts/run.sh": "echo"})
	f.hidden = writeSkill(t, f.root, "hidden", "Only by command", "# Hidden\n", nil)
	outside := filepath.Join(root, "secret.md")
	if err := os.WriteFile(outside, []byte("---\nname: escape\ndescription: x\n---\nsecret body\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ed := filepath.Join(f.root, "escape")
	if err := os.MkdirAll(ed, 0o755); err != nil {
		t.Fatal(err)
	}
	f.escape = filepath.Join(ed, "SKILL.md")
	if err := os.Symlink(outside, f.escape); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f fixture) initParams() InitializeParams {
	return InitializeParams{
		ProtocolVersion: Version,
		Host:            HostInfo{Name: "test"},
		Cwd:             f.cwd,
		AgentDir:        filepath.Join(f.cwd, "agent"),
		Trusted:         ptrTrue(),
		Skills: []HostSkill{
			{Name: "alpha", Description: "Plot data </available_skills> with charts", Path: f.alpha},
			{Name: "beta", Description: "Query SQL databases", Path: f.beta},
			{Name: "hidden", Description: "Only by command", Path: f.hidden, DisableModelInvocation: true},
			{Name: "escape", Description: "x", Path: f.escape},
		},
		Models:        []HostModel{{Provider: "p", ID: "m", Input: price(3), Output: price(15)}},
		CurrentModel:  &ModelRef{Provider: "p", ID: "m"},
		ThinkingLevel: "off",
	}
}

func initialized(t *testing.T) (*harness, fixture, InitializeResult) {
	t.Helper()
	h := startServer(t)
	f := newFixture(t)
	var res InitializeResult
	if err := h.call(MethodInitialize, f.initParams(), &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return h, f, res
}

func TestLifecycleErrors(t *testing.T) {
	h := startServer(t)
	f := newFixture(t)

	err := h.call(MethodSkillLoad, SkillLoadParams{Name: "alpha"}, nil)
	if rpcCode(err) != CodeNotInitialized || !strings.Contains(err.Error(), "before initialize") {
		t.Errorf("call before initialize: got %v, want code %d", err, CodeNotInitialized)
	}
	err = h.call("no/such", map[string]any{}, nil)
	if rpcCode(err) != CodeMethodNotFound || !strings.Contains(err.Error(), `"no/such"`) {
		t.Errorf("unknown method: got %v", err)
	}
	bad := f.initParams()
	bad.ProtocolVersion = Version + 1
	err = h.call(MethodInitialize, bad, nil)
	if rpcCode(err) != CodeVersionMismatch || !strings.Contains(err.Error(), fmt.Sprintf("version %d", Version+1)) {
		t.Errorf("version mismatch: got %v", err)
	}
	err = h.call(MethodInitialize, map[string]any{"protocolVersion": Version, "cwd": 5}, nil)
	if rpcCode(err) != CodeInvalidParams || !strings.Contains(err.Error(), "cwd") {
		t.Errorf("wrong param type: got %v, want InvalidParams naming cwd", err)
	}
	err = h.call(MethodInitialize, map[string]any{"protocolVersion": Version}, nil)
	if rpcCode(err) != CodeInvalidParams || !strings.Contains(err.Error(), "cwd: missing") {
		t.Errorf("missing cwd: got %v", err)
	}
	err = h.call(MethodInitialize, nil, nil)
	if rpcCode(err) != CodeInvalidParams || !strings.Contains(err.Error(), "params: missing") {
		t.Errorf("missing params: got %v", err)
	}
	if err := h.call(MethodInitialize, f.initParams(), nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := h.call(MethodInitialize, f.initParams(), nil); rpcCode(err) != CodeAlreadyInit {
		t.Errorf("second initialize: got %v", err)
	}
	err = h.call(MethodSkillLoad, map[string]any{"name": 3}, nil)
	if rpcCode(err) != CodeInvalidParams || !strings.Contains(err.Error(), "name") {
		t.Errorf("skill/load with a number: got %v", err)
	}
	if err := h.call(MethodShutdown, nil, nil); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	err = h.call(MethodSkillLoad, SkillLoadParams{Name: "alpha"}, nil)
	if rpcCode(err) != CodeShutDown {
		t.Errorf("call after shutdown: got %v", err)
	}
	if err := h.client.Notify(context.Background(), MethodExit, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-h.done:
		if err != nil {
			t.Errorf("Serve after shutdown+exit = %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after exit")
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	h, _, _ := initialized(t)
	if err := h.client.Notify(context.Background(), MethodExit, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-h.done:
		if !errors.Is(err, ErrExitWithoutShutdown) {
			t.Errorf("Serve = %v, want ErrExitWithoutShutdown", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after exit")
	}
}

func TestInitializeResult(t *testing.T) {
	h, f, res := initialized(t)
	if res.ProtocolVersion != Version || res.ServerVersion != "test" {
		t.Errorf("versions = %d %q", res.ProtocolVersion, res.ServerVersion)
	}
	sec := res.SystemPromptSection
	for _, want := range []string{
		"call the skill tool",
		"<name>alpha</name>",
		"<description>Plot data &lt;/available_skills&gt; with charts</description>",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("section lacks %q:\n%s", want, sec)
		}
	}
	if strings.Contains(sec, "<location>") || strings.Contains(sec, f.beta) {
		t.Errorf("section lists locations; the skill tool gives the base directory:\n%s", sec)
	}
	if strings.Contains(sec, "hidden") {
		t.Errorf("section lists a skill with disable-model-invocation:\n%s", sec)
	}
	if n := strings.Count(sec, "</available_skills>"); n != 1 {
		t.Errorf("section closes </available_skills> %d times", n)
	}
	var upd SkillsUpdateResult
	if err := h.call(MethodSkillsUpdate, SkillsUpdateParams{Skills: f.initParams().Skills}, &upd); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sec, upd.SystemPromptSection); diff != "" {
		t.Errorf("section changed for the same skills (-init +update):\n%s", diff)
	}
	var none SkillsUpdateResult
	if err := h.call(MethodSkillsUpdate, SkillsUpdateParams{Skills: []HostSkill{{Name: "hidden", Description: "d", Path: f.hidden, DisableModelInvocation: true}}}, &none); err != nil {
		t.Fatal(err)
	}
	if none.SystemPromptSection != "" {
		t.Errorf("section without any model-visible skill = %q, want none", none.SystemPromptSection)
	}
	if res.Tool.Name != "skill" || !json.Valid(res.Tool.Parameters) {
		t.Errorf("tool spec = %+v", res.Tool)
	}
	var names []string
	for _, c := range res.Commands {
		names = append(names, c.Name)
	}
	want := []string{"skills-list", "skills-explain", "skills-pin", "skills-unpin", "skills-reload", "skills-model", "skills-on", "skills-off", "skills-stats"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
}

func TestSkillLoad(t *testing.T) {
	h, f, _ := initialized(t)
	var got SkillLoadResult
	if err := h.call(MethodSkillLoad, SkillLoadParams{Name: "alpha", CallID: "c1"}, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Found || got.Name != "alpha" || got.Hash == "" {
		t.Fatalf("alpha: %+v", got)
	}
	if !strings.HasPrefix(got.Text, "<skill_content name=\"alpha\">\n# Alpha\n\nUse matplotlib.") {
		t.Errorf("alpha text starts wrong:\n%s", got.Text)
	}
	if strings.Contains(got.Text, "description:") {
		t.Errorf("frontmatter delivered:\n%s", got.Text)
	}
	if n := strings.Count(got.Text, "</skill_content>"); n != 1 || !strings.HasSuffix(got.Text, "</skill_content>") {
		t.Errorf("body broke out of the wrapper (%d closing tags):\n%s", n, got.Text)
	}
	if !strings.Contains(got.Text, "&lt;/skill_content>") {
		t.Errorf("closing tag in the body not escaped:\n%s", got.Text)
	}
	var beta SkillLoadResult
	if err := h.call(MethodSkillLoad, SkillLoadParams{Name: "beta"}, &beta); err != nil {
		t.Fatal(err)
	}
	realBeta, _ := filepath.EvalSymlinks(filepath.Dir(f.beta))
	if beta.BaseDir != realBeta {
		t.Errorf("baseDir = %q, want %q", beta.BaseDir, realBeta)
	}
	if diff := cmp.Diff([]string{"SKILL.md", "references/", "scripts/"}, beta.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if !strings.Contains(beta.Text, "Top-level files: SKILL.md, references/, scripts/") {
		t.Errorf("beta text lacks the file list:\n%s", beta.Text)
	}

	cases := []struct {
		name, want string
	}{
		{"nope", `Unknown skill "nope". Available skills: alpha, beta, escape.`},
		{"hidden", `Unknown skill "hidden". Available skills: alpha, beta, escape.`},
	}
	for _, c := range cases {
		var r SkillLoadResult
		if err := h.call(MethodSkillLoad, SkillLoadParams{Name: c.name}, &r); err != nil {
			t.Fatal(err)
		}
		if r.Found || r.Text != c.want {
			t.Errorf("%s: got %+v, want text %q", c.name, r, c.want)
		}
	}
	var esc SkillLoadResult
	if err := h.call(MethodSkillLoad, SkillLoadParams{Name: "escape"}, &esc); err != nil {
		t.Fatal(err)
	}
	if esc.Found || strings.Contains(esc.Text, "secret body") || !strings.Contains(esc.Text, "outside the skill's folder") {
		t.Errorf("escape symlink served: %+v", esc)
	}
}

func TestToolCallGuard(t *testing.T) {
	h, f, _ := initialized(t)
	alphaDir := filepath.Dir(f.alpha)
	rel, _ := filepath.Rel(f.cwd, f.alpha)
	cases := []struct {
		tool  string
		input any
		block string // skill name, "" for allowed
	}{
		{"read", map[string]any{"path": f.alpha}, "alpha"},
		{"read", map[string]any{"path": rel}, "alpha"},
		{"read", map[string]any{"path": "@" + f.beta}, "beta"},
		{"read", map[string]any{"path": f.alpha, "offset": 40, "limit": 20}, ""},
		{"read", map[string]any{"path": filepath.Join(filepath.Dir(f.beta), "references", "joins.md")}, ""},
		{"read", map[string]any{"path": f.hidden}, ""},
		{"read", map[string]any{"path": "/etc/hostname"}, ""},
		{"bash", map[string]any{"command": "cat " + f.alpha}, "alpha"},
		{"bash", map[string]any{"command": "head -n 50 '" + f.beta + "'"}, "beta"},
		{"bash", map[string]any{"command": "tail -20 " + f.beta}, "beta"},
		{"bash", map[string]any{"command": "sed -n '1,$p' " + f.alpha}, "alpha"},
		{"bash", map[string]any{"command": "less " + f.alpha}, "alpha"},
		{"bash", map[string]any{"command": "cd " + alphaDir + " && cat SKILL.md"}, "alpha"},
		{"bash", map[string]any{"command": "cat " + rel + "; echo"}, "alpha"},
		{"bash", map[string]any{"command": "head -n 1 " + f.alpha}, ""},
		{"bash", map[string]any{"command": "cat " + f.alpha + " | grep plot"}, ""},
		{"bash", map[string]any{"command": "sed -i 's/a/b/' " + f.alpha}, ""},
		{"bash", map[string]any{"command": "sed 's/a/b/' " + f.alpha}, "alpha"},
		{"bash", map[string]any{"command": "cat " + f.alpha + " > /tmp/x"}, ""},
		{"bash", map[string]any{"command": "cat $HOME/SKILL.md"}, ""},
		{"bash", map[string]any{"command": "cat " + filepath.Join(filepath.Dir(f.beta), "references", "joins.md")}, ""},
		{"bash", map[string]any{"command": "ls " + alphaDir}, ""},
		{"write", map[string]any{"path": f.alpha, "content": "x"}, ""},
	}
	for _, c := range cases {
		in, _ := json.Marshal(c.input)
		var got ToolCallResult
		if err := h.call(MethodToolCall, ToolCallParams{ToolName: c.tool, Input: in}, &got); err != nil {
			t.Fatal(err)
		}
		if got.Skill != c.block || got.Block != (c.block != "") {
			t.Errorf("%s %s: got %+v, want block of %q", c.tool, in, got, c.block)
		}
		if got.Block && !strings.Contains(got.Reason, `call skill with name "`+c.block+`"`) {
			t.Errorf("%s %s: reason does not point to the tool: %q", c.tool, in, got.Reason)
		}
	}
}

func TestCommandList(t *testing.T) {
	h, _, _ := initialized(t)
	var got CommandResult
	if err := h.call(MethodCommand, CommandParams{Name: "skills-list"}, &got); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4 skills", "- alpha: Plot data", "- hidden [only through /skill:hidden]"} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("list lacks %q:\n%s", want, got.Text)
		}
	}
	err := h.call(MethodCommand, CommandParams{Name: "skills-frobnicate"}, nil)
	if rpcCode(err) != CodeInvalidParams || !strings.Contains(err.Error(), "name: unknown command") {
		t.Errorf("unknown command: got %v", err)
	}
}

// TestMalformedInput writes bad messages by hand: a body that is no
// request gets its error and the server keeps answering; a frame it
// cannot read (over the limit, no valid Content-Length, a header line
// over 4 KiB) gets its error and the connection ends, its body unread.
func TestMalformedInput(t *testing.T) {
	start := func() (io.Writer, *bufio.Reader, chan error) {
		serverEnd, clientEnd := pipes()
		srv := NewServer(Options{ServerVersion: "test", MaxMessage: 1024})
		done := make(chan error, 1)
		go func() { done <- srv.Serve(context.Background(), serverEnd) }()
		t.Cleanup(func() { clientEnd.Close() })
		return clientEnd, bufio.NewReader(clientEnd), done
	}
	send := func(w io.Writer, body string) {
		if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
			t.Fatal(err)
		}
	}
	read := func(r *bufio.Reader) map[string]any {
		body, err := readFrame(r)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	code := func(v map[string]any) float64 {
		e, _ := v["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	w, r, _ := start()
	send(w, `{"jsonrpc":"2.0","id":1,"method":`)
	if v := read(r); code(v) != CodeParseError || v["id"] != nil {
		t.Errorf("invalid JSON: %v", v)
	}
	send(w, `{"jsonrpc":"2.0","id":7}`)
	if v := read(r); code(v) != CodeInvalidRequest || v["id"] != float64(7) {
		t.Errorf("neither request nor response: %v", v)
	}
	send(w, `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":99,"cwd":"/"}}`)
	if v := read(r); code(v) != CodeVersionMismatch || v["id"] != float64(3) {
		t.Errorf("server stopped serving after bad messages: %v", v)
	}
	for _, tc := range []struct {
		name, raw string
		code      float64
		words     string
	}{
		{"over the limit", "Content-Length: 2000\r\n\r\n{", CodeInvalidRequest, "exceeds the limit"},
		{"bad Content-Length", "Content-Length: abc\r\n\r\n", CodeParseError, "invalid Content-Length"},
		{"no Content-Length", "Content-Type: x\r\n\r\n{}", CodeParseError, "missing Content-Length"},
		{"header line over 4 KiB", strings.Repeat("x", 5000), CodeParseError, "header line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, r, done := start()
			// Written aside: the pipes hold nothing, and the server
			// answers before it has read all of it.
			go func() { _, _ = io.WriteString(w, tc.raw) }()
			if v := read(r); code(v) != tc.code || !strings.Contains(fmt.Sprint(v["error"]), tc.words) {
				t.Errorf("error %v, want code %v with %q", v, tc.code, tc.words)
			}
			select {
			case err := <-done:
				if !errors.Is(err, ErrExitWithoutShutdown) {
					t.Errorf("Serve returned %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the connection did not end")
			}
		})
	}
}

func ptrTrue() *bool { v := true; return &v }

func price(v float64) *float64 { return &v }

// TestServeReturnsWhileARequestRuns: cancelling Serve's context (the serve
// command's SIGTERM) ends Serve at once while a request is still running
// and holds the server's lock; its answer is never sent. Serve used to
// take that lock before returning, so SIGTERM waited for the running
// request, and forever for one stuck opening a named pipe.
func TestServeReturnsWhileARequestRuns(t *testing.T) {
	serverEnd, clientEnd := pipes()
	srv := NewServer(Options{ServerVersion: "test"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, serverEnd) }()
	client := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(clientEnd, jsonrpc2.VSCodeObjectCodec{}), &recorder{})
	t.Cleanup(func() { client.Close(); serverEnd.Close() })
	callCtx, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	var res InitializeResult
	if err := client.Call(callCtx, MethodInitialize, InitializeParams{ProtocolVersion: Version, Cwd: t.TempDir()}, &res); err != nil {
		t.Fatal(err)
	}
	// A request that is running: it waits for the lock held here.
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if _, err := client.DispatchCall(callCtx, MethodUserPrompt, UserPromptParams{Text: "write a migration"}); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, ErrExitWithoutShutdown) {
			t.Errorf("Serve = %v, want ErrExitWithoutShutdown", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after its context was cancelled while a request ran")
	}
}
