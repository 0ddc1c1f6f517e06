package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
)

// DefaultMaxMessage is the largest message body the server reads (bytes).
const DefaultMaxMessage = 64 << 20

// maxHeaderLine bounds one header line (bytes, its line end included).
const maxHeaderLine = 4096

// codec reads and writes the frames jsonrpc2.VSCodeObjectCodec reads and
// writes (a Content-Length header, a blank line, the JSON body), within a
// size bound: a frame it cannot read (no valid Content-Length, a header
// line over maxHeaderLine, a body over max) gets its error and ends the
// connection, since where the next frame starts is then unknown; the host
// starts a new sidecar. A frame read whole whose body is no request (bad
// JSON, not a JSON-RPC message, an id that is neither an integer nor a
// string) gets its error and the connection goes on.
//
// jsonrpc2 decodes a request's params into interface values and encodes
// them again (ten times a 10 MB prompt), and its ids are unsigned: so the
// codec hands it each request with the id "r" and no params, keeps the
// id and the params as the host wrote them, and puts the id back into the
// response. Requests are handled one at a time, each answered before the
// next is read, so one slot of each is enough.
type codec struct {
	max int64
	w   io.Writer // the connection, for the errors the codec answers itself

	mu     sync.Mutex
	id     json.RawMessage // the id of the request being handled
	params json.RawMessage // the params of the message just read

	read bool // a frame was read whole
}

// The first message, initialize, carries the host's list of skills.
// When it is large the codec counts the skills in it (their "path" keys)
// and has the heap readied for them (host.WarmAhead) while the message
// is decoded, twice, on one core.
const warmAheadFrom = 1 << 20 // bytes

var (
	warmAhead = host.WarmAhead
	pathKey   = []byte(`"path":`)
)

// codecID is the id jsonrpc2 sees for every request.
const codecID = `"r"`

// errFrame ends the connection after a frame the codec could not read.
var errFrame = errors.New("protocol: unreadable frame")

func (c *codec) ReadObject(r *bufio.Reader, v any) error {
	for {
		n, err := c.header(r)
		if err != nil {
			return err
		}
		body := make([]byte, n)
		regfile.AdviseHuge(body) // a large initialize: 2 MB faults while it is read
		if _, err := io.ReadFull(r, body); err != nil {
			return io.ErrUnexpectedEOF
		}
		if !c.read && n >= warmAheadFrom {
			warmAhead(bytes.Count(body, pathKey))
		}
		c.read = true
		msg, ok := c.request(body)
		if ok {
			return json.Unmarshal(msg, v)
		}
	}
}

// header reads a frame's headers and returns its Content-Length; a frame
// it cannot read is answered with an error and ends the connection.
func (c *codec) header(r *bufio.Reader) (int64, error) {
	length, seen := int64(-1), false
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) || len(line) > maxHeaderLine {
			return 0, c.refuse(CodeParseError, fmt.Sprintf("a header line is over %d bytes", maxHeaderLine))
		}
		if err != nil {
			if err == io.EOF && len(line) == 0 && !seen {
				return 0, io.EOF
			}
			return 0, io.ErrUnexpectedEOF
		}
		text := strings.TrimRight(string(line), "\r\n")
		if text == "" {
			if !seen {
				continue // a stray blank line between frames
			}
			break
		}
		seen = true
		name, value, _ := strings.Cut(text, ":")
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				return 0, c.refuse(CodeParseError, fmt.Sprintf("invalid Content-Length %q", truncate(strings.TrimSpace(value), 40)))
			}
			length = n
		}
	}
	switch {
	case length < 0:
		return 0, c.refuse(CodeParseError, "missing Content-Length header")
	case c.max > 0 && length > c.max:
		return 0, c.refuse(CodeInvalidRequest, fmt.Sprintf("message of %d bytes exceeds the limit of %d bytes; its body is not read", length, c.max))
	}
	return length, nil
}

// request checks a frame's body and returns the message to hand
// jsonrpc2, with its id and params kept aside; ok is false for a body
// answered with an error here.
func (c *codec) request(body []byte) (msg []byte, ok bool) {
	var m struct {
		ID, Method, Params, Result, Error json.RawMessage
	}
	// Unmarshal checks the whole body before it decodes any of it: a
	// syntax error is invalid JSON, any other error not a message. (A
	// separate json.Valid would scan a 20 MB initialize once more.)
	if err := json.Unmarshal(body, &m); err != nil {
		if _, syntax := err.(*json.SyntaxError); syntax {
			c.answer(nil, CodeParseError, "invalid JSON in message body")
			return nil, false
		}
		c.answer(nil, CodeInvalidRequest, "not a JSON-RPC 2.0 message: "+err.Error())
		return nil, false
	}
	id := m.ID
	if id != nil && !validID(id) {
		c.answer(nil, CodeInvalidRequest, fmt.Sprintf("id %s: a request id is an integer or a string", truncate(string(id), 40)))
		return nil, false
	}
	var method string
	if m.Method == nil || json.Unmarshal(m.Method, &method) != nil {
		if m.Method == nil && (m.Result != nil || m.Error != nil) {
			return nil, false // a response: the server sends no requests
		}
		c.answer(id, CodeInvalidRequest, "not a JSON-RPC 2.0 message: method: a string is required")
		return nil, false
	}
	c.mu.Lock()
	c.id, c.params = id, m.Params
	c.mu.Unlock()
	if id == nil {
		msg, _ = json.Marshal(map[string]string{"jsonrpc": "2.0", "method": method})
		return msg, true
	}
	msg, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "id": json.RawMessage(codecID)})
	return msg, true
}

// validID reports whether raw (JSON) is an integer in int64's range or a
// string, the ids accepted, as gopls' jsonrpc2 accepts them.
func validID(raw json.RawMessage) bool {
	if raw[0] == '"' {
		return true // json.Valid said it is a whole string
	}
	_, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil
}

// takeParams returns the params of the message just read, as written
// (nil without params).
func (c *codec) takeParams() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.params
	c.params = nil
	return p
}

// refuse answers a frame the codec could not read and ends the
// connection.
func (c *codec) refuse(code int, msg string) error {
	c.answer(nil, code, msg)
	return fmt.Errorf("%w: %s", errFrame, msg)
}

// answer writes an error response (id: the request's, or null).
func (c *codec) answer(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	_ = frame(c.w, data)
}

func (c *codec) WriteObject(w io.Writer, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	// A response: put the host's id back (jsonrpc2 writes it first).
	if rest, ok := bytes.CutPrefix(data, []byte(`{"id":`+codecID)); ok {
		c.mu.Lock()
		id := c.id
		c.mu.Unlock()
		data = append(append([]byte(`{"id":`), id...), rest...)
	}
	return frame(w, data)
}

// frame writes one message.
func frame(w io.Writer, data []byte) error {
	if _, err := fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
