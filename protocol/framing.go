package protocol

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DefaultMaxMessage is the largest message body the server reads (bytes).
const DefaultMaxMessage = 64 << 20

// malformedMethod is the notification the codec hands to the server in
// place of a message it could not read, so that the connection survives bad
// input and the server can answer with a JSON-RPC error.
const malformedMethod = "$/malformed"

// malformedParams describes the unreadable message.
type malformedParams struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	ID      json.RawMessage `json:"id,omitempty"` // the request's id when it could be recovered
}

// frameCodec reads and writes LSP-style frames (Content-Length header, blank
// line, JSON body), like jsonrpc2.VSCodeObjectCodec, but does not give up on
// the stream when one message is bad: an invalid header, an oversized body,
// invalid JSON or a JSON value that is not a JSON-RPC message becomes a
// malformedMethod notification.
//
// It also echoes request ids as the host wrote them (rpcid.go): on reading,
// the id of each request is replaced by one of ids, and on writing the
// host's id is put back into the response. A codec without ids (the zero
// value) leaves ids to jsonrpc2.
type frameCodec struct {
	max int64
	ids *idTable
}

// newFrameCodec returns the server's codec: messages up to max bytes
// (none when max is 0), request ids echoed as written.
func newFrameCodec(max int64) frameCodec {
	return frameCodec{max: max, ids: newIDTable()}
}

func (c frameCodec) WriteObject(stream io.Writer, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	data = c.ids.restore(data)
	if _, err := fmt.Fprintf(stream, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = stream.Write(data)
	return err
}

func (c frameCodec) ReadObject(stream *bufio.Reader, v any) error {
	length := int64(-1)
	var headerErr string
	sawHeader := false
	for {
		line, err := readHeaderLine(stream)
		if err != nil {
			if err == io.EOF && (line != "" || sawHeader) {
				return io.ErrUnexpectedEOF
			}
			return err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if !sawHeader {
				continue // stray blank line between frames
			}
			break
		}
		sawHeader = true
		// Resynchronise after a bad frame: the rest of an unread or
		// partly read body runs, without a line end, into the next
		// frame's header, so a Content-Length header is looked for
		// anywhere in the line, not only at its start; the last one is
		// the next frame's (the body may quote the header's text).
		if i := lastIndexFold(line, "content-length:"); i > 0 {
			line = line[i:]
			headerErr = ""
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			headerErr = fmt.Sprintf("invalid header line %q", truncate(line, 80))
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				headerErr = fmt.Sprintf("invalid Content-Length %q", truncate(strings.TrimSpace(value), 40))
				continue
			}
			length = n
		}
	}
	if length < 0 {
		if headerErr == "" {
			headerErr = "missing Content-Length header"
		}
		return malformed(v, CodeParseError, headerErr, nil)
	}
	if c.max > 0 && length > c.max {
		// Refused at once, its body unread: skipping it by the declared
		// length would wait for that many bytes (2 GiB for a lying
		// header) and ignore every message sent meanwhile. The next read
		// resynchronises on the next Content-Length header instead, as
		// after any bad frame, which costs no memory however long the
		// body is (readHeaderLine keeps the last 4 KiB of a line).
		return malformed(v, CodeInvalidRequest, fmt.Sprintf("message of %d bytes exceeds the limit of %d bytes; its body is not read", length, c.max), nil)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(stream, body); err != nil {
		return io.ErrUnexpectedEOF
	}
	if !json.Valid(body) {
		return malformed(v, CodeParseError, "invalid JSON in message body", nil)
	}
	body, sub, raw := c.ids.substitute(body)
	if err := json.Unmarshal(body, v); err != nil {
		id := sub
		if id == nil {
			id = c.ids.errorID(raw)
		}
		return malformed(v, CodeInvalidRequest, "not a JSON-RPC 2.0 message: "+err.Error(), id)
	}
	return nil
}

// maxHeaderLine is how much of one header line is kept. A longer line (a
// header without a line end, or the tail of a bad body running into the next
// header) is read to its end but only its last maxHeaderLine bytes are
// kept, where a Content-Length header to resynchronise on would be.
const maxHeaderLine = 4096

// readHeaderLine reads one line, line end included, keeping at most its
// last maxHeaderLine bytes, so that a huge line costs no memory.
func readHeaderLine(r *bufio.Reader) (string, error) {
	var kept []byte
	for {
		chunk, err := r.ReadSlice('\n')
		kept = append(kept, chunk...)
		if len(kept) > maxHeaderLine {
			kept = append(kept[:0], kept[len(kept)-maxHeaderLine:]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return string(kept), err
	}
}

// lastIndexFold is strings.LastIndex for an ASCII lower-case needle,
// ignoring case.
func lastIndexFold(s, lower string) int {
	n := len(lower)
	for i := len(s) - n; i >= 0; i-- {
		if strings.EqualFold(s[i:i+n], lower) {
			return i
		}
	}
	return -1
}

// malformed fills v with a malformedMethod notification.
func malformed(v any, code int, msg string, id json.RawMessage) error {
	p, _ := json.Marshal(malformedParams{Code: code, Message: msg, ID: id})
	note := fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, malformedMethod, p)
	return json.Unmarshal([]byte(note), v)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
