package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"sync/atomic"

	"github.com/skill-lifecycle/skill-lifecycle/guard"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
	"github.com/sourcegraph/jsonrpc2"
)

// Options configure a Server.
type Options struct {
	// ServerVersion is reported in initialize (the binary's version).
	ServerVersion string
	// MaxMessage bounds one incoming message body in bytes;
	// DefaultMaxMessage when zero.
	MaxMessage int64
	// Log receives connection-level problems (a broken stream); nothing
	// is logged when nil.
	Log *log.Logger
}

type serverState int

const (
	stateNew serverState = iota
	stateReady
	stateShutDown
)

// ErrExitWithoutShutdown is returned by Serve when the host sent exit
// without shutdown first, or closed the stream before shutdown.
var ErrExitWithoutShutdown = errors.New("protocol: connection ended without shutdown")

// Server answers one host over one stream. Requests are handled one at a
// time, in the order they arrive; notifications a request causes are sent
// before its response.
type Server struct {
	opts Options

	mu    sync.Mutex
	state serverState
	init  InitializeParams
	cat   *catalog
	world world
	eng   *lifecycle.Engine
	watch *skillWatch // live re-index (reindex.go)
	// pending holds the loads the engine recorded at skill/load (or took
	// back from the records at session/restore) that no before_request
	// has listed yet: one the next request does not carry never reached
	// the context and is forgotten there.
	pending map[string]bool
	conn    *jsonrpc2.Conn
	out     jsonrpc2.ObjectStream
	ids     *idTable // the codec's: the params of each request (rpcid.go)
	exit    chan struct{}
	once    sync.Once
	// shutDown is set with state = stateShutDown; Serve reads it without
	// mu, which a running request holds.
	shutDown atomic.Bool
}

// NewServer returns a server ready to Serve.
func NewServer(opts Options) *Server {
	if opts.MaxMessage == 0 {
		opts.MaxMessage = DefaultMaxMessage
	}
	return &Server{opts: opts, exit: make(chan struct{})}
}

// Serve reads requests from rwc and answers them until the host sends exit,
// the stream ends, or ctx is cancelled. It returns nil after a clean
// shutdown and exit, ErrExitWithoutShutdown otherwise. Once ctx is
// cancelled it returns at once, also while a request is running (that
// request's answer is never sent): a process that ends when Serve returns
// stops promptly on a signal whatever it was doing.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	codec := newFrameCodec(s.opts.MaxMessage)
	stream := jsonrpc2.NewBufferedStream(rwc, codec)
	s.mu.Lock()
	s.out = stream
	s.ids = codec.ids
	s.mu.Unlock()
	logger := s.opts.Log
	if logger == nil {
		logger = log.New(io.Discard, "", 0)
	}
	conn := jsonrpc2.NewConn(ctx, stream, s, jsonrpc2.SetLogger(logger))
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	select {
	case <-s.exit:
		conn.Close()
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	// Not s.mu: a request still running holds it.
	if !s.shutDown.Load() {
		return ErrExitWithoutShutdown
	}
	return nil
}

// rpcError builds a JSON-RPC error.
func rpcError(code int, format string, args ...any) *jsonrpc2.Error {
	return &jsonrpc2.Error{Code: int64(code), Message: fmt.Sprintf(format, args...)}
}

// Handle implements jsonrpc2.Handler.
func (s *Server) Handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Notif {
		s.handleNotification(ctx, req)
		return
	}
	result, rerr := s.dispatch(ctx, conn, req)
	if rerr != nil {
		_ = conn.ReplyWithError(ctx, req.ID, rerr)
		return
	}
	if err := conn.Reply(ctx, req.ID, result); err != nil {
		_ = conn.ReplyWithError(ctx, req.ID, rpcError(CodeInternalError, "encoding the result of %s: %v", req.Method, err))
	}
}

func (s *Server) handleNotification(ctx context.Context, req *jsonrpc2.Request) {
	switch req.Method {
	case MethodExit:
		s.once.Do(func() { close(s.exit) })
	case MethodModelSwitchFailed:
		s.mu.Lock()
		ready := s.state == stateReady
		s.mu.Unlock()
		if ready && req.Params != nil {
			c := &call{s: s, ctx: ctx, conn: s.conn, params: *req.Params, method: req.Method}
			_, _ = c.modelSwitchFailed()
		}
	case malformedMethod:
		var p malformedParams
		_ = json.Unmarshal(*req.Params, &p)
		id := json.RawMessage("null")
		if len(p.ID) > 0 {
			id = p.ID
		}
		resp, _ := json.Marshal(map[string]any{
			"jsonrpc": "2.0",
			"id":      id,
			"error":   map[string]any{"code": p.Code, "message": p.Message},
		})
		s.mu.Lock()
		out := s.out
		s.mu.Unlock()
		if out != nil {
			_ = out.WriteObject(json.RawMessage(resp))
		}
	}
	// Other notifications are ignored, as JSON-RPC requires.
}

// dispatch runs one request.
func (s *Server) dispatch(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, *jsonrpc2.Error) {
	s.mu.Lock()
	state := s.state
	ids := s.ids
	s.mu.Unlock()
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	if req.ID.IsString {
		if kept, ok := ids.takeParams(req.ID.Str); ok {
			params = kept // as the host wrote them (the codec kept them aside)
		}
	}
	h, known := handlers[req.Method]
	switch {
	case !known:
		return nil, rpcError(CodeMethodNotFound, "unknown method %q", req.Method)
	case state == stateShutDown:
		return nil, rpcError(CodeShutDown, "%s after shutdown: the server only accepts exit now", req.Method)
	case state == stateNew && req.Method != MethodInitialize:
		return nil, rpcError(CodeNotInitialized, "%s before initialize: initialize must be the first call", req.Method)
	}
	call := &call{s: s, ctx: ctx, conn: conn, params: params, method: req.Method}
	return h(call)
}

// call is one request being handled.
type call struct {
	s      *Server
	ctx    context.Context
	conn   *jsonrpc2.Conn
	method string
	params json.RawMessage
}

// decode unmarshals the params into v; a type error names the field.
func (c *call) decode(v any) *jsonrpc2.Error {
	if len(c.params) == 0 || string(c.params) == "null" {
		return rpcError(CodeInvalidParams, "%s: params: missing (an object is required)", c.method)
	}
	if err := json.Unmarshal(c.params, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if field == "" {
				field = "params"
			}
			return rpcError(CodeInvalidParams, "%s: %s: expected %s, got %s", c.method, field, te.Type.String(), te.Value)
		}
		return rpcError(CodeInvalidParams, "%s: params: %v", c.method, err)
	}
	return nil
}

// required reports a missing required field.
func required(method, field string) *jsonrpc2.Error {
	return rpcError(CodeInvalidParams, "%s: %s: missing (required)", method, field)
}

type handler func(*call) (any, *jsonrpc2.Error)

var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		MethodInitialize:        (*call).initialize,
		MethodShutdown:          (*call).shutdown,
		MethodSkillsUpdate:      (*call).skillsUpdate,
		MethodSkillLoad:         (*call).skillLoad,
		MethodToolCall:          (*call).toolCall,
		MethodCommand:           (*call).command,
		MethodUserPrompt:        (*call).userPrompt,
		MethodBeforeRequest:     (*call).beforeRequest,
		MethodSessionRestore:    (*call).sessionRestore,
		MethodRunStart:          (*call).runStart,
		MethodRunEnd:            (*call).runEnd,
		MethodModelChanged:      (*call).modelChanged,
		MethodModelSwitchFailed: (*call).modelSwitchFailed,
		MethodSessionCompact:    (*call).sessionCompact,
	}
}

func (c *call) initialize() (any, *jsonrpc2.Error) {
	var p InitializeParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	if p.ProtocolVersion != Version {
		return nil, rpcError(CodeVersionMismatch,
			"protocol version mismatch: the host speaks version %d, this skill-lifecycle binary (%s) speaks version %d; install matching versions of the bridge and the binary",
			p.ProtocolVersion, c.s.opts.ServerVersion, Version)
	}
	if p.Cwd == "" {
		return nil, required(c.method, "cwd")
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.s.state != stateNew {
		return nil, rpcError(CodeAlreadyInit, "initialize called twice")
	}
	c.s.init = p
	c.s.cat = newCatalog(p.Skills)
	c.s.world = loadWorld(p, c.s.cat.skills)
	c.s.eng = lifecycle.New(c.s.world.cat, c.s.world.cfg)
	reg := registryOf(p.Models)
	c.s.apply(lifecycle.Event{Type: lifecycle.EvWorld, Registry: &reg})
	c.s.watch = newSkillWatch(p, c.s.cat.skills)
	var ds []lifecycle.Decision
	if sel, ok := selection(p.CurrentModel, p.ThinkingLevel); ok {
		ds = hostModelDecisions(c.s.apply(lifecycle.Event{Type: lifecycle.EvModelSelected, Selection: &sel}))
	}
	diags := append(append([]string{}, c.s.cat.diags...), c.s.world.diags...)
	for _, d := range c.s.eng.ModelDiagnostics() {
		diags = append(diags, d.String())
	}
	c.s.state = stateReady
	c.emit(ds)
	return InitializeResult{
		ProtocolVersion:     Version,
		ServerVersion:       c.s.opts.ServerVersion,
		SystemPromptSection: systemPromptSection(c.s.cat.skills),
		Tool:                toolSpec(),
		Commands:            commandSpecs(),
		Diagnostics:         terminalLines(diags),
	}, nil
}

func (c *call) shutdown() (any, *jsonrpc2.Error) {
	c.s.mu.Lock()
	c.s.state = stateShutDown
	c.s.shutDown.Store(true)
	c.s.mu.Unlock()
	return nil, nil
}

func (c *call) skillsUpdate() (any, *jsonrpc2.Error) {
	var p SkillsUpdateParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	c.s.mu.Lock()
	c.s.init.Skills = p.Skills
	c.s.cat = newCatalog(p.Skills)
	cat := c.s.cat
	w := loadWorld(c.s.init, cat.skills)
	c.s.world.parsed, c.s.world.cat = w.parsed, w.cat
	ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvWorld, Catalog: &w.cat})
	if c.s.watch != nil {
		c.s.watch.rebase(cat.skills)
	}
	c.s.mu.Unlock()
	c.emit(ds)
	return SkillsUpdateResult{SystemPromptSection: systemPromptSection(cat.skills), Diagnostics: terminalLines(append(append([]string{}, cat.diags...), w.diags...))}, nil
}

// tell sends the user a one-line message (host/notify), with the control
// characters of any skill text in it made visible (skills.TerminalText):
// the host shows it on the user's terminal.
func (c *call) tell(level, msg string) {
	_ = c.conn.Notify(c.ctx, NotifyNotify, NotifyParams{Level: level, Message: skills.TerminalText(msg)})
}

func (c *call) catalog() *catalog {
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	return c.s.cat
}

func (c *call) skillLoad() (any, *jsonrpc2.Error) {
	var p SkillLoadParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, required(c.method, "name")
	}
	res := c.catalog().loadSkill(p.Name)
	if res.Found {
		// Dedupe "already-loaded": the identical body is visible (or due
		// for archive but still there, and taken back), so the tool says
		// so and nothing in the context changes.
		c.s.mu.Lock()
		var text string
		var ds []lifecycle.Decision
		ok := false
		if c.s.world.cfg.Dedupe == rules.DedupeAlreadyLoaded {
			text, ds, ok = c.s.alreadyLoaded(res.Name, res.Hash)
		}
		c.s.mu.Unlock()
		if ok {
			c.emit(ds)
			res.Text, res.AlreadyLoaded, res.Files = text, true, nil
			return res, nil
		}
	}
	if res.Found && p.CallID != "" {
		// The body is in the context from the tool result on: the engine
		// learns of it now, so that what the load decides (archiving others
		// mid-run, a model tier) applies from the next request.
		// It stays pending until a request carries it: one that does not
		// (the result was lost on its way to the host) forgets it.
		c.s.mu.Lock()
		ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvLoad, Load: &lifecycle.Load{ID: p.CallID, Skill: res.Name, Size: int64(len(res.Text)), Kind: lifecycle.ByTool, Hash: res.Hash}})
		for _, d := range ds {
			if d.Action == lifecycle.ActLoad && d.ID == p.CallID {
				if c.s.pending == nil {
					c.s.pending = map[string]bool{}
				}
				c.s.pending[p.CallID] = true
			}
		}
		c.s.mu.Unlock()
		c.emit(ds)
	}
	return res, nil
}

func (c *call) toolCall() (any, *jsonrpc2.Error) {
	var p ToolCallParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	if p.ToolName == "" {
		return nil, required(c.method, "toolName")
	}
	c.s.mu.Lock()
	cwd := c.s.init.Cwd
	block := c.s.world.cfg.BlockDirectSkillReads
	c.s.mu.Unlock()
	if !block {
		return ToolCallResult{}, nil
	}
	if p.Cwd != "" {
		cwd = p.Cwd
	}
	v := guard.Check(p.ToolName, p.Input, cwd, c.catalog().guardSkill)
	return ToolCallResult{Block: v.Block, Reason: v.Reason, Skill: v.Skill}, nil
}

// hostModelDecisions drops the model-state record from the decisions the
// engine takes when told the host's current model at start or after a
// restore. That model is state the host already holds, not a decision:
// every session/restore ends by telling the engine the host's model again,
// so recording it only added one model-state entry to the session at every
// (re)start of the sidecar.
func hostModelDecisions(ds []lifecycle.Decision) []lifecycle.Decision {
	out := ds[:0:0]
	for _, d := range ds {
		if d.Action != lifecycle.ActModelState {
			out = append(out, d)
		}
	}
	return out
}

// apply hands ev to the engine, the engine's one door.
func (s *Server) apply(ev lifecycle.Event) []lifecycle.Decision {
	ds, err := s.eng.Apply(ev)
	if err != nil && s.opts.Log != nil {
		s.opts.Log.Print(err)
	}
	return ds
}

// alreadyLoaded answers a skill tool call under the "already loaded"
// dedupe: the identical body (hash) is visible now, or still whole in the
// context but due for archive and taken back (with the undue decision in
// ds to record).
func (s *Server) alreadyLoaded(skill, hash string) (text string, ds []lifecycle.Decision, ok bool) {
	b, ok := s.eng.VisibleCopy(skill, hash)
	if !ok {
		if ds = s.apply(lifecycle.Event{Type: lifecycle.EvRevive, Skill: skill, Hash: hash}); len(ds) == 0 {
			return "", nil, false
		}
		b, _ = s.eng.LiveCopy(skill)
	}
	return lifecycle.AlreadyLoadedText(skill, b), ds, true
}
