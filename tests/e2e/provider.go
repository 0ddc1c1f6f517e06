//go:build e2e

package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Message is one chat-completions message as Pi sent it.
type Message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"`
	ToolCalls  []WireToolCall  `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	Name       string          `json:"name,omitempty"`
}

// WireToolCall is a tool call inside an assistant message.
type WireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Text returns the message content as text: a string content as is, an
// array of parts as the concatenation of its text parts.
func (m Message) Text() string {
	if len(m.Content) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(m.Content, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(m.Content)
}

// Request is one model request received by the provider.
type Request struct {
	Index    int       // 0-based arrival order on this provider
	Time     time.Time // arrival time
	Body     []byte    // the raw request body
	Model    string
	Stream   bool
	Messages []Message
	Tools    []json.RawMessage
	// UserTurn is the number of user-role messages in the request (1 for the
	// first prompt of a session; Pi also sends custom messages and /skill:
	// expansions as user messages); Step is the number of assistant messages
	// after the last user message (0 for the first request of a turn).
	UserTurn, Step int
	S              string // the usage string (see the package comment)
	Usage          Usage  // what the provider reported for this request
	Reply          Reply  // what it answered
}

// ToolNames lists the names of the tools declared in the request, in order.
func (r *Request) ToolNames() []string {
	var names []string
	for _, t := range r.Tools {
		var d struct {
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		if json.Unmarshal(t, &d) == nil {
			if d.Function.Name != "" {
				names = append(names, d.Function.Name)
			} else {
				names = append(names, d.Name)
			}
		}
	}
	return names
}

// SystemPrompt returns the text of the leading system (or developer) message.
func (r *Request) SystemPrompt() string {
	if len(r.Messages) > 0 && (r.Messages[0].Role == "system" || r.Messages[0].Role == "developer") {
		return r.Messages[0].Text()
	}
	return ""
}

// LastUserText returns the text of the last user message.
func (r *Request) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Text()
		}
	}
	return ""
}

// ToolResult returns the tool message answering the call with the given id.
func (r *Request) ToolResult(callID string) (Message, bool) {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			return m, true
		}
	}
	return Message{}, false
}

// LastToolResults returns the tool messages after the last assistant message.
func (r *Request) LastToolResults() []Message {
	var out []Message
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role == "tool"; i-- {
		out = append([]Message{r.Messages[i]}, out...)
	}
	return out
}

// Call is a tool call the scripted model makes. ID is generated when empty.
type Call struct {
	ID   string
	Name string
	Args any // marshalled to the JSON arguments string
}

// Reply is what the scripted model answers to one request: tool calls, text,
// or both. Delay is waited before the answer starts (to imitate generation
// time); Status, when not 0 or 200, answers with that HTTP error instead.
type Reply struct {
	Text   string
	Calls  []Call
	Delay  time.Duration
	Status int
}

// Say is a Reply with text only.
func Say(text string) Reply { return Reply{Text: text} }

// Do is a Reply with tool calls only.
func Do(calls ...Call) Reply { return Reply{Calls: calls} }

// Script decides the reply to each request.
type Script func(req *Request) Reply

// Steps is a Script keyed like the scenario sessions: steps[turn-1][step] is
// the reply for user turn `turn` and step `step`; past the end of a turn's
// list it answers Say("Done.").
func Steps(steps ...[]Reply) Script {
	return func(req *Request) Reply {
		t := req.UserTurn - 1
		if t >= 0 && t < len(steps) && req.Step < len(steps[t]) {
			return steps[t][req.Step]
		}
		return Say("Done.")
	}
}

// Provider is the scripted OpenAI chat-completions server.
type Provider struct {
	URL string // base URL, http://127.0.0.1:PORT/v1

	t       testing.TB
	srv     *http.Server
	mu      sync.Mutex
	script  Script
	reqs    []*Request
	prevS   string
	prevT   time.Time
	log     *os.File
	unknown []string
	ttl     time.Duration
	clock   func(time.Time) time.Time
}

// ExpireCache makes the provider's prompt cache expire: a request more than
// ttl after the previous one reports no cached tokens, as a provider's
// cache lifetime does. clock, when not nil, maps a request's arrival time
// to the time the lifetime is measured on (a virtual timeline). By default
// the cache never expires.
func (p *Provider) ExpireCache(ttl time.Duration, clock func(time.Time) time.Time) {
	p.mu.Lock()
	p.ttl, p.clock = ttl, clock
	p.mu.Unlock()
}

// NewProvider starts a provider on 127.0.0.1 answering with script; it stops
// when the test ends. Every request is appended to requests.jsonl in a temp
// directory (its path is logged when the test fails).
func NewProvider(t testing.TB, script Script) *Provider {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("provider: listen: %v", err)
	}
	logPath := t.TempDir() + "/requests.jsonl"
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatalf("provider: %v", err)
	}
	p := &Provider{URL: "http://" + ln.Addr().String() + "/v1", t: t, script: script, log: f}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", p.handle)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.unknown = append(p.unknown, r.Method+" "+r.URL.Path)
		p.mu.Unlock()
		http.NotFound(w, r)
	})
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = p.srv.Close()
		_ = f.Close()
		if t.Failed() {
			t.Logf("provider request log: %s", logPath)
		}
	})
	return p
}

// SetScript replaces the script for the following requests.
func (p *Provider) SetScript(s Script) {
	p.mu.Lock()
	p.script = s
	p.mu.Unlock()
}

// Requests returns the requests received so far, in arrival order.
func (p *Provider) Requests() []*Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*Request(nil), p.reqs...)
}

// Forget drops the requests kept so far, once a run is over: a long
// benchmark's sessions keep every request whole, quadratic in their length
// (four sessions of 3,000 steps passed 23 GB).
func (p *Provider) Forget() {
	p.mu.Lock()
	p.reqs = nil
	p.mu.Unlock()
}

// Unknown lists requests to paths other than /v1/chat/completions.
func (p *Provider) Unknown() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.unknown...)
}

// LogPath is the file the provider appends each request to, one JSON object a
// line: {"index","time","body","usage"}.
func (p *Provider) LogPath() string { return p.log.Name() }

func (p *Provider) handle(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var wire struct {
		Model    string          `json:"model"`
		Stream   bool            `json:"stream"`
		Messages json.RawMessage `json:"messages"`
		Tools    json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		p.t.Errorf("provider: request body is not JSON: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := &Request{Time: arrived, Body: body, Model: wire.Model, Stream: wire.Stream}
	if len(wire.Messages) > 0 {
		if err := json.Unmarshal(wire.Messages, &req.Messages); err != nil {
			p.t.Errorf("provider: messages: %v", err)
		}
	}
	if len(wire.Tools) > 0 && string(wire.Tools) != "null" {
		if err := json.Unmarshal(wire.Tools, &req.Tools); err != nil {
			p.t.Errorf("provider: tools: %v", err)
		}
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			req.UserTurn++
			req.Step = 0
		case "assistant":
			req.Step++
		}
	}
	s, err := usageString(wire.Tools, wire.Messages)
	if err != nil {
		p.t.Errorf("provider: usage string: %v", err)
	}
	req.S = s

	p.mu.Lock()
	req.Index = len(p.reqs)
	script := p.script
	prev := p.prevS
	at := arrived
	if p.clock != nil {
		at = p.clock(arrived)
	}
	if p.ttl > 0 && !p.prevT.IsZero() && at.Sub(p.prevT) > p.ttl {
		prev = "" // the cache expired
	}
	p.prevS, p.prevT = s, at
	p.reqs = append(p.reqs, req)
	p.mu.Unlock()

	reply := script(req)
	for i := range reply.Calls {
		if reply.Calls[i].ID == "" {
			reply.Calls[i].ID = fmt.Sprintf("call_%d_%d", req.Index, i)
		}
	}
	calls := make([]wireCall, len(reply.Calls))
	output := reply.Text
	for i, c := range reply.Calls {
		args, err := json.Marshal(c.Args)
		if err != nil {
			p.t.Errorf("provider: arguments of %s: %v", c.Name, err)
		}
		if c.Args == nil {
			args = []byte("{}")
		}
		calls[i] = wireCall{ID: c.ID, Name: c.Name, Args: string(args)}
		output += c.Name + string(args)
	}
	req.Usage = estimateUsage(s, prev, output)
	p.mu.Lock()
	req.Reply = reply
	line, _ := json.Marshal(map[string]any{
		"index": req.Index, "time": arrived.UTC().Format(time.RFC3339Nano),
		"body": json.RawMessage(body), "usage": req.Usage,
	})
	_, _ = p.log.Write(append(line, '\n'))
	p.mu.Unlock()

	if reply.Delay > 0 {
		select {
		case <-time.After(reply.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		http.Error(w, `{"error":{"message":"scripted error","type":"server_error"}}`, reply.Status)
		return
	}
	if wire.Stream {
		writeStream(w, req, reply.Text, calls)
	} else {
		writeJSON(w, req, reply.Text, calls)
	}
}

type wireCall struct{ ID, Name, Args string }

func usageObject(u Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":         u.PromptTokens,
		"completion_tokens":     u.CompletionTokens,
		"total_tokens":          u.PromptTokens + u.CompletionTokens,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.CachedTokens},
	}
}

func finishReason(calls []wireCall) string {
	if len(calls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func writeStream(w http.ResponseWriter, req *Request, text string, calls []wireCall) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	bw := bufio.NewWriter(w)
	id := fmt.Sprintf("chatcmpl-%d", req.Index)
	created := req.Time.Unix()
	chunk := func(choices []any, usage map[string]any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model, "choices": choices}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(bw, "data: %s\n\n", b)
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish}}
	}
	chunk(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	// Text in a few pieces, as a real stream would.
	for _, piece := range splitPieces(text, 3) {
		chunk(delta(map[string]any{"content": piece}, nil), nil)
	}
	for i, c := range calls {
		chunk(delta(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": c.ID, "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": ""},
		}}}, nil), nil)
		for _, piece := range splitPieces(c.Args, 2) {
			chunk(delta(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": piece},
			}}}, nil), nil)
		}
	}
	chunk(delta(map[string]any{}, finishReason(calls)), nil)
	chunk([]any{}, usageObject(req.Usage))
	fmt.Fprint(bw, "data: [DONE]\n\n")
	_ = bw.Flush()
}

func writeJSON(w http.ResponseWriter, req *Request, text string, calls []wireCall) {
	msg := map[string]any{"role": "assistant", "content": text}
	if len(calls) > 0 {
		var tc []any
		for _, c := range calls {
			tc = append(tc, map[string]any{"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Args}})
		}
		msg["tool_calls"] = tc
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", req.Index), "object": "chat.completion",
		"created": req.Time.Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(calls)}},
		"usage":   usageObject(req.Usage),
	})
}

// splitPieces cuts s into at most n pieces on rune boundaries ("" gives none).
func splitPieces(s string, n int) []string {
	if s == "" {
		return nil
	}
	r := []rune(s)
	size := (len(r) + n - 1) / n
	var out []string
	for i := 0; i < len(r); i += size {
		j := i + size
		if j > len(r) {
			j = len(r)
		}
		out = append(out, string(r[i:j]))
	}
	return out
}
