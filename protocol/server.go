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

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
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
	// Stats answers /skills-stats (host.Options.Stats); nil: unavailable.
	Stats host.StatsFunc
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
	sess  *host.Session
	conn  *jsonrpc2.Conn
	codec *codec
	exit  chan struct{}
	once  sync.Once
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
	codec := &codec{max: s.opts.MaxMessage, w: rwc}
	stream := jsonrpc2.NewBufferedStream(rwc, codec)
	s.mu.Lock()
	s.codec = codec
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
	params := s.codec.takeParams()
	switch req.Method {
	case MethodExit:
		s.once.Do(func() { close(s.exit) })
	case MethodModelSwitchFailed:
		s.mu.Lock()
		ready := s.state == stateReady
		s.mu.Unlock()
		if ready && params != nil {
			c := &call{s: s, ctx: ctx, conn: s.conn, params: params, method: req.Method}
			_, _ = handlers[MethodModelSwitchFailed](c)
		}
	}
	// Other notifications are ignored, as JSON-RPC requires.
}

// dispatch runs one request.
func (s *Server) dispatch(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, *jsonrpc2.Error) {
	s.mu.Lock()
	state := s.state
	s.mu.Unlock()
	params := s.codec.takeParams() // as the host wrote them
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

type handler func(*call) (any, *jsonrpc2.Error)

// Methods the host calls (requests unless marked as a notification).
const (
	MethodInitialize        = "initialize"
	MethodShutdown          = "shutdown"
	MethodExit              = "exit" // notification
	MethodSkillsUpdate      = "skills/update"
	MethodSkillLoad         = "skill/load"
	MethodSkillSearch       = "skill/search"
	MethodToolCall          = "tool_call"
	MethodToolResult        = "tool_result"
	MethodUserPrompt        = "user_prompt"
	MethodBeforeRequest     = "before_request"
	MethodSessionRestore    = "session/restore"
	MethodSessionCompact    = "session/compact"
	MethodCommand           = "command"
	MethodRunStart          = "run/start"
	MethodRunEnd            = "run/end"
	MethodModelChanged      = "model/changed"
	MethodModelSwitchFailed = "model/switchFailed" // notification or request
)

// handlers maps each method to the session's event (package host); the
// server only decodes, calls and encodes. A new host event is a line here
// (docs/protocol.md, "Adding a host event").
var handlers map[string]handler

func init() {
	handlers = map[string]handler{
		MethodInitialize:        (*call).initialize,
		MethodShutdown:          (*call).shutdown,
		MethodSkillsUpdate:      route((*host.Session).SkillsUpdate),
		MethodSkillLoad:         route((*host.Session).SkillLoad),
		MethodSkillSearch:       route((*host.Session).SkillSearch),
		MethodToolCall:          route((*host.Session).ToolCall),
		MethodToolResult:        route((*host.Session).ToolResult),
		MethodCommand:           route((*host.Session).Command),
		MethodUserPrompt:        route((*host.Session).UserPrompt),
		MethodBeforeRequest:     route((*host.Session).BeforeRequest),
		MethodSessionRestore:    route((*host.Session).Restore),
		MethodSessionCompact:    route((*host.Session).Compact),
		MethodRunStart:          bare((*host.Session).RunStart),
		MethodRunEnd:            bare((*host.Session).RunEnd),
		MethodModelChanged:      done((*host.Session).ModelChanged),
		MethodModelSwitchFailed: done((*host.Session).ModelSwitchFailed),
	}
}

// route is the handler of a session method with params and a result.
func route[P, R any](f func(*host.Session, P) (R, error)) handler {
	return func(c *call) (any, *jsonrpc2.Error) {
		var p P
		if err := c.decode(&p); err != nil {
			return nil, err
		}
		c.s.mu.Lock()
		defer c.s.mu.Unlock()
		r, err := f(c.s.sess, p)
		if err != nil {
			return nil, c.fail(err)
		}
		return r, nil
	}
}

// done is the handler of a session method with params and an empty result.
func done[P any](f func(*host.Session, P) error) handler {
	return route(func(s *host.Session, p P) (struct{}, error) { return struct{}{}, f(s, p) })
}

// bare is the handler of a session method without params.
func bare(f func(*host.Session)) handler {
	return func(c *call) (any, *jsonrpc2.Error) {
		c.s.mu.Lock()
		defer c.s.mu.Unlock()
		f(c.s.sess)
		return struct{}{}, nil
	}
}

// fail turns a session's error into the JSON-RPC error: wrong params
// name the method and the field.
func (c *call) fail(err error) *jsonrpc2.Error {
	var pe *host.ParamError
	if errors.As(err, &pe) {
		return rpcError(CodeInvalidParams, "%s: %v", c.method, pe)
	}
	return rpcError(CodeInternalError, "%s: %v", c.method, err)
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
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	if c.s.state != stateNew {
		return nil, rpcError(CodeAlreadyInit, "initialize called twice")
	}
	sess, res, err := host.Open(p, sink{c.s, c.ctx}, host.Options{Watch: true, Stats: c.s.opts.Stats, Hints: true})
	if err != nil {
		return nil, c.fail(err)
	}
	c.s.sess, c.s.state = sess, stateReady
	res.ProtocolVersion, res.ServerVersion = Version, c.s.opts.ServerVersion
	return res, nil
}

func (c *call) shutdown() (any, *jsonrpc2.Error) {
	c.s.mu.Lock()
	c.s.state = stateShutDown
	c.s.shutDown.Store(true)
	c.s.mu.Unlock()
	return nil, nil
}

// sink sends the session's records, messages and model switches as
// notifications, on the stream of the request being handled.
type sink struct {
	s   *Server
	ctx context.Context
}

func (k sink) Record(d lifecycle.Decision) {
	k.notify(NotifyAppendEntry, AppendEntryParams{CustomType: EntryType, Data: d})
}

func (k sink) Notify(level, message string) {
	k.notify(NotifyNotify, NotifyParams{Level: level, Message: message})
}

func (k sink) SetModel(p SetModelParams) { k.notify(NotifySetModel, p) }

func (k sink) Line(l LineParams) { k.notify(NotifyLine, l) }

func (k sink) notify(method string, params any) {
	if k.s.conn != nil {
		_ = k.s.conn.Notify(k.ctx, method, params)
	}
}
