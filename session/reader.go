package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// DefaultMaxLine is the longest line the reader accepts (64 MiB). A longer
// line is reported (CodeLineTooLong) and skipped; reading goes on.
const DefaultMaxLine = 64 << 20

// Options tune reading. The zero value is ready to use.
type Options struct {
	MaxLine int // 0 means DefaultMaxLine
}

// ReadFile reads one session file. The error is only for I/O failures;
// problems in the content are Diagnostics of the returned session.
func ReadFile(path string, opts *Options) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, opts)
}

// Read reads a session from r, streaming it line by line; name is used in
// diagnostics. Entries are migrated to version 3 and indexed as a tree.
func Read(r io.Reader, name string, opts *Options) (*Session, error) {
	max := DefaultMaxLine
	if opts != nil && opts.MaxLine > 0 {
		max = opts.MaxLine
	}
	s := &Session{Path: name}
	lr := lineReader{r: bufio.NewReaderSize(r, 256<<10), max: max}
	var (
		sawFirst   bool
		v1Index    []*Entry // v1/v2 migration: parsed entry index -> entry (index 0 = header)
		pendingIdx []pendingCompaction
	)
	for {
		line, tooLong, eof, err := lr.next()
		if err != nil {
			return s, fmt.Errorf("%s:%d: %w", name, lr.line, err)
		}
		if tooLong {
			s.diag(lr.line, CodeLineTooLong, fmt.Sprintf("line longer than %d bytes skipped", max))
			if eof {
				break
			}
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if eof {
				break
			}
			continue
		}
		var w wireEntry
		if err := json.Unmarshal(line, &w); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				code, msg := CodeBadJSON, "not valid JSON, line skipped: "+err.Error()
				if eof && lr.noNewline {
					code, msg = CodeTruncated, "last line is cut short, skipped: "+err.Error()
				}
				s.diag(lr.line, code, msg)
				if eof {
					break
				}
				continue
			}
			s.diag(lr.line, CodeBadField, fmt.Sprintf("field %q has the wrong type (%s), ignored", te.Field, te.Value))
		}
		if !sawFirst {
			sawFirst = true
			if w.Type == "session" {
				s.Header = headerFrom(&w, lr.line)
				v1Index = append(v1Index, nil)
				if eof {
					break
				}
				continue
			}
			s.diag(lr.line, CodeNoHeader, "first line is not a session header; reading the entries anyway")
			s.Header.Version = 0
			v1Index = append(v1Index, nil) // keep indexes aligned as if a header were there
		}
		if w.Type == "session" {
			s.diag(lr.line, CodeUnknownType, "a second session header, ignored")
			if eof {
				break
			}
			continue
		}
		e := s.entryFrom(&w, line, lr.line)
		v1Index = append(v1Index, e)
		if w.FirstKeptEntryIndex != nil && w.FirstKeptEntryID == nil {
			pendingIdx = append(pendingIdx, pendingCompaction{e, *w.FirstKeptEntryIndex})
		}
		s.Entries = append(s.Entries, e)
		if eof {
			break
		}
	}
	if s.Header.Line == 0 { // no header: infer the format from the entries
		s.Header.Version = 1
		for _, e := range s.Entries {
			if e.ID != "" {
				s.Header.Version = CurrentVersion
				break
			}
		}
	}
	s.migrate(v1Index, pendingIdx)
	s.index()
	return s, nil
}

type pendingCompaction struct {
	e   *Entry
	idx int
}

// lineReader returns lines of at most max bytes without allocating a copy
// when a line fits in the bufio buffer.
type lineReader struct {
	r         *bufio.Reader
	max       int
	buf       []byte
	line      int
	noNewline bool
}

func (lr *lineReader) next() (line []byte, tooLong, eof bool, err error) {
	lr.buf = lr.buf[:0]
	first := true
	for {
		chunk, rerr := lr.r.ReadSlice('\n')
		if rerr == nil && first {
			lr.line++
			lr.noNewline = false
			return trimEOL(chunk), len(chunk) > lr.max, false, nil
		}
		first = false
		if !tooLong {
			if len(lr.buf)+len(chunk) > lr.max {
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch {
		case rerr == bufio.ErrBufferFull:
			continue
		case rerr == nil:
			lr.line++
			lr.noNewline = false
			return trimEOL(lr.buf), tooLong, false, nil
		case rerr == io.EOF:
			if len(lr.buf) == 0 && !tooLong {
				return nil, false, true, nil
			}
			lr.line++
			lr.noNewline = true
			return trimEOL(lr.buf), tooLong, true, nil
		default:
			return nil, false, true, rerr
		}
	}
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// wireEntry is a line as written; fields of every entry type share it.
type wireEntry struct {
	Type      string          `json:"type"`
	Version   *float64        `json:"version"`
	ID        *string         `json:"id"`
	ParentID  *string         `json:"parentId"`
	Timestamp json.RawMessage `json:"timestamp"`

	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession"`
	Provider      string `json:"provider"`
	ModelID       string `json:"modelId"`
	ThinkingLevel string `json:"thinkingLevel"`

	Message *wireMessage `json:"message"`

	Summary             string   `json:"summary"`
	FirstKeptEntryID    *string  `json:"firstKeptEntryId"`
	FirstKeptEntryIndex *int     `json:"firstKeptEntryIndex"`
	TokensBefore        float64  `json:"tokensBefore"`
	FromID              string   `json:"fromId"`
	CustomType          string   `json:"customType"`
	Content             rawBytes `json:"content"`
	Display             bool     `json:"display"`
	TargetID            string   `json:"targetId"`
	Label               string   `json:"label"`
	Name                string   `json:"name"`
}

type wireMessage struct {
	Role               string       `json:"role"`
	Content            wireContent  `json:"content"`
	ToolCallID         string       `json:"toolCallId"`
	ToolName           string       `json:"toolName"`
	IsError            bool         `json:"isError"`
	API                string       `json:"api"`
	Provider           string       `json:"provider"`
	Model              string       `json:"model"`
	Usage              *wireUsage   `json:"usage"`
	StopReason         string       `json:"stopReason"`
	ErrorMessage       string       `json:"errorMessage"`
	Command            string       `json:"command"`
	Output             string       `json:"output"`
	ExitCode           *json.Number `json:"exitCode"`
	Cancelled          bool         `json:"cancelled"`
	Truncated          bool         `json:"truncated"`
	FullOutputPath     string       `json:"fullOutputPath"`
	ExcludeFromContext bool         `json:"excludeFromContext"`
	CustomType         string       `json:"customType"`
	Display            bool         `json:"display"`
	Timestamp          float64      `json:"timestamp"`
}

type wireUsage struct {
	Input       float64   `json:"input"`
	Output      float64   `json:"output"`
	CacheRead   float64   `json:"cacheRead"`
	CacheWrite  float64   `json:"cacheWrite"`
	TotalTokens float64   `json:"totalTokens"`
	Cost        *wireCost `json:"cost"`
}

type wireCost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

type wireBlock struct {
	Type              string          `json:"type"`
	Text              string          `json:"text"`
	Thinking          string          `json:"thinking"`
	ThinkingSignature string          `json:"thinkingSignature"`
	Redacted          bool            `json:"redacted"`
	ID                string          `json:"id"`
	Name              string          `json:"name"`
	Arguments         json.RawMessage `json:"arguments"`
	Data              string          `json:"data"`
	MimeType          string          `json:"mimeType"`
}

// rawBytes keeps a field's JSON as written (a copy).
type rawBytes []byte

func (r *rawBytes) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}

// wireContent keeps the raw content and decodes its blocks in one go.
type wireContent struct {
	raw    json.RawMessage
	blocks []Block
	err    error
}

func (c *wireContent) UnmarshalJSON(b []byte) error {
	c.raw = append(json.RawMessage(nil), b...)
	c.blocks, c.err = decodeBlocks(b)
	return nil
}

func decodeBlocks(b []byte) ([]Block, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, err
		}
		return []Block{{Type: "text", Text: s}}, nil
	}
	var ws []wireBlock
	if err := json.Unmarshal(b, &ws); err != nil {
		return nil, err
	}
	out := make([]Block, len(ws))
	for i := range ws {
		w := &ws[i]
		out[i] = Block{Type: w.Type, Text: w.Text, Thinking: w.Thinking, ThinkingSignature: w.ThinkingSignature,
			Redacted: w.Redacted, ID: w.ID, Name: w.Name, Arguments: w.Arguments, Data: w.Data, MimeType: w.MimeType}
	}
	return out, nil
}

func headerFrom(w *wireEntry, line int) Header {
	h := Header{Version: 1, Cwd: w.Cwd, ParentSession: w.ParentSession, Provider: w.Provider,
		ModelID: w.ModelID, ThinkingLevel: w.ThinkingLevel, Line: line}
	if w.Version != nil {
		h.Version = int(*w.Version)
	}
	if w.ID != nil {
		h.ID = *w.ID
	}
	if ts, ok := stringTimestamp(w.Timestamp); ok {
		h.Timestamp = ts
	}
	return h
}

func stringTimestamp(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// parseTimestamp reads an ISO string or a number of Unix milliseconds.
func parseTimestamp(raw json.RawMessage) time.Time {
	if len(raw) == 0 {
		return time.Time{}
	}
	if s, ok := stringTimestamp(raw); ok {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t
		}
		return time.Time{}
	}
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
		return time.UnixMilli(int64(f)).UTC()
	}
	return time.Time{}
}

func (s *Session) entryFrom(w *wireEntry, line []byte, lineNo int) *Entry {
	e := &Entry{Type: w.Type, Line: lineNo, Timestamp: parseTimestamp(w.Timestamp)}
	if w.ID != nil {
		e.ID = *w.ID
	}
	if w.ParentID != nil {
		e.ParentID = *w.ParentID
	}
	switch w.Type {
	case TypeMessage:
		if w.Message == nil {
			s.diag(lineNo, CodeBadField, "message entry without a message, ignored in context")
			break
		}
		e.Message = messageFrom(w.Message)
		if w.Message.Content.err != nil {
			s.diag(lineNo, CodeBadField, "message content not understood ("+w.Message.Content.err.Error()+"); kept raw")
		}
		if e.Timestamp.IsZero() && e.Message.Timestamp > 0 {
			e.Timestamp = time.UnixMilli(e.Message.Timestamp).UTC()
		}
	case TypeCompaction:
		e.Summary, e.TokensBefore = w.Summary, int(w.TokensBefore)
		if w.FirstKeptEntryID != nil {
			e.FirstKeptEntryID = *w.FirstKeptEntryID
		}
	case TypeBranchSummary:
		e.Summary, e.FromID = w.Summary, w.FromID
	case TypeCustomMessage, TypeCustom:
		e.CustomType, e.Content, e.Display = w.CustomType, json.RawMessage(w.Content), w.Display
	case TypeModelChange:
		e.Provider, e.ModelID = w.Provider, w.ModelID
	case TypeThinkingLevelChange:
		e.ThinkingLevel = w.ThinkingLevel
	case TypeLabel:
		e.TargetID, e.Label = w.TargetID, w.Label
	case TypeSessionInfo:
		e.Name = w.Name
	default:
		e.Raw = append(json.RawMessage(nil), line...)
		s.diag(lineNo, CodeUnknownType, fmt.Sprintf("entry type %q kept but not used", w.Type))
	}
	return e
}

func messageFrom(w *wireMessage) *Message {
	m := &Message{Role: w.Role, Content: w.Content.raw, Blocks: w.Content.blocks,
		ToolCallID: w.ToolCallID, ToolName: w.ToolName, IsError: w.IsError,
		API: w.API, Provider: w.Provider, Model: w.Model, StopReason: w.StopReason, ErrorMessage: w.ErrorMessage,
		Command: w.Command, Output: w.Output, Cancelled: w.Cancelled, Truncated: w.Truncated,
		FullOutputPath: w.FullOutputPath, ExcludeFromContext: w.ExcludeFromContext,
		CustomType: w.CustomType, Display: w.Display, Timestamp: int64(w.Timestamp)}
	if w.ExitCode != nil {
		if n, err := strconv.Atoi(string(*w.ExitCode)); err == nil {
			m.ExitCode = &n
		}
	}
	if u := w.Usage; u != nil {
		m.Usage = &Usage{Input: int(u.Input), Output: int(u.Output), CacheRead: int(u.CacheRead),
			CacheWrite: int(u.CacheWrite), TotalTokens: int(u.TotalTokens)}
		if c := u.Cost; c != nil {
			m.Usage.HasCost = true
			m.Usage.Cost = Cost{Input: c.Input, Output: c.Output, CacheRead: c.CacheRead, CacheWrite: c.CacheWrite, Total: c.Total}
		}
	}
	return m
}
