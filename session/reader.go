package session

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
)

// DefaultMaxLine is the longest line the reader accepts (64 MiB, its line
// end not counted). A longer line is reported (CodeLineTooLong) and
// skipped; reading goes on.
const DefaultMaxLine = 64 << 20

// DefaultMaxDiagnostics is how many diagnostics a session keeps (the
// first ones met); the others are only counted (Session.DiagnosticCount).
const DefaultMaxDiagnostics = 10

// Options tune reading. The zero value is ready to use.
type Options struct {
	MaxLine int // 0 means DefaultMaxLine
	// MaxDiagnostics is how many diagnostics are kept; 0 means
	// DefaultMaxDiagnostics, a negative value keeps them all.
	MaxDiagnostics int
	// RequireHeader reads a file only when its first JSON line (blank and
	// unparsable lines before it are passed over, as Pi does) is a session
	// header, an object with type "session" and a string id: what Pi
	// requires of a session file. Otherwise reading stops there and
	// Session.NotSession says why.
	RequireHeader bool
}

// ReadFile reads one session file. The error is only for I/O failures and
// for a path that is not a regular file (a named pipe or a device is
// refused unopened, regfile.Open); problems in the content are Diagnostics
// of the returned session.
func ReadFile(path string, opts *Options) (*Session, error) {
	f, err := regfile.Open(path)
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
	if opts != nil {
		s.maxDiags = opts.MaxDiagnostics
	}
	requireHeader := opts != nil && opts.RequireHeader
	lr := lineReader{r: bufio.NewReaderSize(r, 256<<10), max: max}
	var jp jparser
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
		if len(strings.TrimSpace(line)) == 0 {
			if eof {
				break
			}
			continue
		}
		v, err := jp.parse(line)
		if requireHeader && !sawFirst && err == nil && v.kind != jObj {
			s.NotSession = fmt.Sprintf("line %d, its first JSON line, is not a session header: a JSON %s, not an object", lr.line, v.kind)
			return s, nil
		}
		if err != nil || v.kind != jObj {
			switch {
			case s.full():
				s.DiagnosticCount++ // counted, not worded
			case eof && lr.noNewline:
				msg := "last line is cut short, skipped"
				if err != nil {
					msg += ": " + err.Error()
				}
				s.diag(lr.line, CodeTruncated, msg)
			case err != nil:
				s.diag(lr.line, CodeBadJSON, "not valid JSON, line skipped: "+err.Error())
			default:
				s.diag(lr.line, CodeBadJSON, "not a JSON object, line skipped")
			}
			if eof {
				break
			}
			continue
		}
		f := fields{v: &v}
		typ := f.str("type")
		if requireHeader && !sawFirst {
			if id, ok := v.get("id"); typ != "session" || !ok || id.kind != jStr {
				s.NotSession = fmt.Sprintf("line %d, its first JSON line, is not a session header (an object with type \"session\" and a string id)", lr.line)
				return s, nil
			}
		}
		if _, ok := v.get("type"); !ok {
			// Every entry Pi writes has a type: an object without one
			// is not an entry, and costs a count, not an entry a line.
			s.diag(lr.line, CodeNoType, "a JSON object without a type is not an entry, line skipped")
			if eof {
				break
			}
			continue
		}
		if !sawFirst {
			sawFirst = true
			if typ == "session" {
				s.Header = headerFrom(&f, lr.line)
				s.noteBad(&f, lr.line)
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
		if typ == "session" {
			s.diag(lr.line, CodeUnknownType, "a second session header, ignored")
			if eof {
				break
			}
			continue
		}
		e := s.entryFrom(&f, typ, lr.line)
		v1Index = append(v1Index, e)
		if typ == TypeCompaction && e.FirstKeptEntryID == "" {
			if idx, ok := f.num("firstKeptEntryIndex"); ok {
				pendingIdx = append(pendingIdx, pendingCompaction{e, int(idx)})
			}
		}
		s.noteBad(&f, lr.line)
		s.Entries = append(s.Entries, e)
		if eof {
			break
		}
	}
	if requireHeader && !sawFirst {
		s.NotSession = "no line is a session header (an object with type \"session\" and a string id)"
		return s, nil
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

// lineReader returns lines of at most max bytes (the line end, LF or CRLF,
// not counted). A line that fits in the bufio buffer is copied once, into
// the string the parsed entry shares. A longer line is gathered in blocks
// that are never copied to grow (growing one buffer by appending allocated
// about five times the line in total, as each larger array is a new
// allocation), then copied once into an exactly sized string: a line of L
// bytes costs about 2×L. A line found to be over the limit costs at most
// about the limit, and its blocks are dropped at once.
type lineReader struct {
	r         *bufio.Reader
	max       int
	blocks    [][]byte // the pieces of the line being gathered
	line      int
	noNewline bool
}

// Block sizes for gathering a long line: each new block is a quarter of
// what is gathered so far, within these bounds, so that the last block's
// unused tail is at most a quarter of the line (or minBlock) and a line
// of the default limit needs a few dozen blocks.
const (
	minBlock = 256 << 10
	maxBlock = 4 << 20
)

func (lr *lineReader) next() (line string, tooLong, eof bool, err error) {
	chunk, rerr := lr.r.ReadSlice('\n')
	if rerr == nil { // the whole line is in the buffer
		lr.line++
		lr.noNewline = false
		b := trimEOL(chunk)
		if len(b) > lr.max {
			return "", true, false, nil
		}
		return string(b), false, false, nil
	}
	total := 0 // bytes gathered, line end included
	for {
		if !tooLong {
			// Up to two more bytes than the limit are gathered: the
			// line end is not counted against it.
			if total+len(chunk) > lr.max+2 {
				tooLong = true
				lr.drop()
			} else {
				lr.gather(chunk, total)
			}
		}
		total += len(chunk)
		switch rerr {
		case bufio.ErrBufferFull:
			chunk, rerr = lr.r.ReadSlice('\n')
			continue
		case nil:
			lr.noNewline = false
		case io.EOF:
			if total == 0 {
				return "", false, true, nil
			}
			lr.noNewline, eof = true, true
		default:
			lr.drop()
			return "", false, true, rerr
		}
		lr.line++
		if tooLong {
			return "", true, eof, nil
		}
		line = lr.join(total)
		if len(line) > lr.max {
			return "", true, eof, nil
		}
		return line, false, eof, nil
	}
}

// gather appends chunk to the blocks; total is how much they hold.
func (lr *lineReader) gather(chunk []byte, total int) {
	for len(chunk) > 0 {
		n := len(lr.blocks)
		if n == 0 || len(lr.blocks[n-1]) == cap(lr.blocks[n-1]) {
			size := min(max(total/4, minBlock), maxBlock)
			lr.blocks = append(lr.blocks, make([]byte, 0, size))
			n++
		}
		b := lr.blocks[n-1]
		k := min(cap(b)-len(b), len(chunk))
		lr.blocks[n-1] = append(b, chunk[:k]...)
		chunk = chunk[k:]
		total += k
	}
}

// join copies the gathered blocks (total bytes) into one string, without
// the line end, and drops the blocks.
func (lr *lineReader) join(total int) string {
	var sb strings.Builder
	sb.Grow(total)
	for _, b := range lr.blocks {
		sb.Write(b)
	}
	lr.drop()
	s := sb.String()
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

// drop lets the blocks be collected.
func (lr *lineReader) drop() {
	clear(lr.blocks)
	lr.blocks = lr.blocks[:0]
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

func (s *Session) noteBad(f *fields, line int) {
	if f.bad != "" {
		s.diag(line, CodeBadField, f.bad+"; ignored")
		f.bad = ""
	}
}

func headerFrom(f *fields, line int) Header {
	h := Header{Version: 1, Cwd: f.str("cwd"), ParentSession: f.str("parentSession"), Provider: f.str("provider"),
		ModelID: f.str("modelId"), ThinkingLevel: f.str("thinkingLevel"), Line: line, ID: f.str("id")}
	if v, ok := f.num("version"); ok {
		h.Version = int(v)
	}
	if x, ok := f.v.get("timestamp"); ok && x.kind == jStr {
		h.Timestamp = x.s
	}
	return h
}

// parseTimestamp reads an ISO string or a number of Unix milliseconds.
func parseTimestamp(x *jval) time.Time {
	switch x.kind {
	case jStr:
		if t, err := time.Parse(time.RFC3339Nano, x.s); err == nil {
			return t
		}
	case jNum:
		if f, err := strconv.ParseFloat(x.s, 64); err == nil {
			return time.UnixMilli(int64(f)).UTC()
		}
	}
	return time.Time{}
}

func (s *Session) entryFrom(f *fields, typ string, lineNo int) *Entry {
	e := &Entry{Type: typ, Line: lineNo, ID: f.str("id"), ParentID: f.str("parentId")}
	if x, ok := f.v.get("timestamp"); ok {
		e.Timestamp = parseTimestamp(x)
	}
	switch typ {
	case TypeMessage:
		mv := f.obj("message")
		if mv == nil {
			s.diag(lineNo, CodeBadField, "message entry without a message, ignored in context")
			break
		}
		mf := fields{v: mv}
		var err error
		e.Message, err = messageFrom(&mf)
		if err != nil {
			s.diag(lineNo, CodeBadField, "message content not understood ("+err.Error()+"); kept raw")
		}
		if mf.bad != "" {
			s.diag(lineNo, CodeBadField, "message: "+mf.bad+"; ignored")
		}
		if e.Timestamp.IsZero() && e.Message.Timestamp > 0 {
			e.Timestamp = time.UnixMilli(e.Message.Timestamp).UTC()
		}
	case TypeCompaction:
		e.Summary = f.str("summary")
		n, _ := f.num("tokensBefore")
		e.TokensBefore = int(n)
		e.FirstKeptEntryID = f.str("firstKeptEntryId")
	case TypeBranchSummary:
		e.Summary, e.FromID = f.str("summary"), f.str("fromId")
	case TypeCustomMessage, TypeCustom:
		e.CustomType, e.Display = f.str("customType"), f.boolean("display")
		if x, ok := f.v.get("content"); ok {
			e.Content = x.raw
		}
		if x, ok := f.v.get("data"); ok {
			e.Data = x.raw
		}
	case TypeModelChange:
		e.Provider, e.ModelID = f.str("provider"), f.str("modelId")
	case TypeThinkingLevelChange:
		e.ThinkingLevel = f.str("thinkingLevel")
	case TypeLabel:
		e.TargetID, e.Label = f.str("targetId"), f.str("label")
	case TypeSessionInfo:
		e.Name = f.str("name")
	default:
		e.Raw = f.v.raw
		if s.full() {
			s.DiagnosticCount++ // counted, not worded
		} else {
			s.diag(lineNo, CodeUnknownType, fmt.Sprintf("entry type %q kept but not used", typ))
		}
	}
	return e
}

func messageFrom(f *fields) (*Message, error) {
	m := &Message{Role: f.str("role"), ToolCallID: f.str("toolCallId"), ToolName: f.str("toolName"), IsError: f.boolean("isError"),
		API: f.str("api"), Provider: f.str("provider"), Model: f.str("model"), StopReason: f.str("stopReason"),
		ErrorMessage: f.str("errorMessage"), Command: f.str("command"), Output: f.str("output"),
		Cancelled: f.boolean("cancelled"), Truncated: f.boolean("truncated"), FullOutputPath: f.str("fullOutputPath"),
		ExcludeFromContext: f.boolean("excludeFromContext"), CustomType: f.str("customType"), Display: f.boolean("display")}
	if ts, ok := f.num("timestamp"); ok {
		m.Timestamp = int64(ts)
	}
	// details is the tool's own: only a string loadId in an object is read,
	// and nothing else in it is judged.
	if dv, ok := f.v.get("details"); ok && dv.kind == jObj {
		if id, ok := dv.get("loadId"); ok && id.kind == jStr {
			m.LoadID = id.s
		}
		if b, ok := dv.get("skillBody"); ok && b.kind == jObj {
			if sk, ok := b.get("skill"); ok && sk.kind == jStr {
				m.SkillBody = sk.s
			}
		}
	}
	if n, ok := f.num("exitCode"); ok {
		c := int(n)
		m.ExitCode = &c
	}
	if uv := f.obj("usage"); uv != nil {
		uf := fields{v: uv}
		num := func(k string) int { n, _ := uf.num(k); return int(n) }
		m.Usage = &Usage{Input: num("input"), Output: num("output"), CacheRead: num("cacheRead"),
			CacheWrite: num("cacheWrite"), TotalTokens: num("totalTokens")}
		if cv := uf.obj("cost"); cv != nil {
			cf := fields{v: cv}
			fl := func(k string) float64 { n, _ := cf.num(k); return n }
			m.Usage.HasCost = true
			m.Usage.Cost = Cost{Input: fl("input"), Output: fl("output"), CacheRead: fl("cacheRead"), CacheWrite: fl("cacheWrite"), Total: fl("total")}
		}
	}
	var err error
	if cv, ok := f.v.get("content"); ok {
		m.Content = cv.raw
		m.Blocks, err = blocksOf(cv)
	}
	return m, err
}

// blocksOf decodes content: a string is one text block; an array holds
// blocks; anything else is an error (the raw content is kept).
func blocksOf(v *jval) ([]Block, error) {
	switch v.kind {
	case jNull:
		return nil, nil
	case jStr:
		return []Block{{Type: "text", Text: v.s}}, nil
	case jArr:
	default:
		return nil, fmt.Errorf("content is a %s", v.kind)
	}
	out := make([]Block, 0, len(v.kids))
	for i := range v.kids {
		bv := &v.kids[i]
		if bv.kind != jObj {
			return out, fmt.Errorf("content block %d is a %s", i, bv.kind)
		}
		bf := fields{v: bv}
		b := Block{Type: bf.str("type"), Text: bf.str("text"), Thinking: bf.str("thinking"),
			ThinkingSignature: bf.str("thinkingSignature"), Redacted: bf.boolean("redacted"),
			ID: bf.str("id"), Name: bf.str("name"), Data: bf.str("data"), MimeType: bf.str("mimeType")}
		if a, ok := bv.get("arguments"); ok {
			b.Arguments = a.raw
		}
		out = append(out, b)
	}
	return out, nil
}

// decodeBlocks parses raw content (a custom message's).
func decodeBlocks(raw string) ([]Block, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, nil
	}
	v, err := parseJSON(raw)
	if err != nil {
		return nil, err
	}
	return blocksOf(&v)
}
