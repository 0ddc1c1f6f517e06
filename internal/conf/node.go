package conf

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strings"
)

// Kind is the JSON type of a Node.
type Kind uint8

// Kinds of nodes.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Node is one JSON value as written, with the line it starts on.
type Node struct {
	Kind Kind
	// Line is the 1-based line of the value's first character; 0 when the
	// text was parsed without lines.
	Line int
	// Text is a String's value, a Number's literal as written, or "true"
	// or "false".
	Text string
	// Items are an Array's values.
	Items []*Node
	// Members are an Object's keys and values in the order written, a
	// repeated key included.
	Members []Member
	raw     []byte // an Array's or Object's text as written
}

// Member is one key of an object and its value.
type Member struct {
	Name  string
	Line  int // the line of the key
	Value *Node
}

// Raw is an Array's or an Object's text as written (whitespace kept), nil
// for other kinds.
func (n *Node) Raw() []byte { return n.raw }

// Get returns the value of the last member called name, or nil.
func (n *Node) Get(name string) *Node {
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Name == name {
			return n.Members[i].Value
		}
	}
	return nil
}

// SyntaxError is text that is not one JSON value.
type SyntaxError struct {
	Line int    // where the problem is, 0 when parsed without lines
	Msg  string // what it is
}

func (e *SyntaxError) Error() string { return e.Msg }

// Parse reads data, which must hold exactly one JSON value, into a tree.
// firstLine is the line data starts on in its file (1 for a whole file);
// 0 or less parses without lines. Values nested more than 10000 deep are
// refused, as encoding/json refuses them.
func Parse(data []byte, firstLine int) (*Node, error) {
	lines := lineIndex{firstLine: firstLine, starts: []int64{0}}
	if firstLine > 0 {
		for i, b := range data {
			if b == '\n' {
				lines.starts = append(lines.starts, int64(i+1))
			}
		}
	}
	if !json.Valid(data) {
		return nil, syntaxError(data, lines)
	}
	p := parser{dec: json.NewDecoder(bytes.NewReader(data)), data: data, lines: lines}
	p.dec.UseNumber()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, &SyntaxError{Msg: err.Error()}
	}
	n, err := p.value(tok)
	if err != nil {
		return nil, &SyntaxError{Msg: err.Error()}
	}
	return n, nil
}

// syntaxError words why data, which json.Valid refused, is not JSON.
func syntaxError(data []byte, lines lineIndex) error {
	err := json.Unmarshal(data, new(any)) // refused before anything is decoded
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &SyntaxError{Line: lines.line(int64(len(data)) - 1), Msg: "not one JSON value"}
	}
	msg := se.Error()
	switch {
	case strings.HasPrefix(msg, "invalid character '/'"):
		msg += " (JSON has no comments)"
	case strings.HasSuffix(msg, "after top-level value"):
		msg = "trailing text after the JSON value (" + msg + ")"
	case msg == "unexpected end of JSON input":
		switch t := bytes.TrimSpace(data); {
		case len(t) > 0 && t[0] == '{':
			msg = "it ends before the object is closed"
		case len(t) > 0 && t[0] == '[':
			msg = "it ends before the list is closed"
		default:
			msg = "it ends before the value is complete"
		}
	case strings.Contains(msg, "exceeded max depth"):
		msg = "values are nested more than 10000 deep"
	}
	return &SyntaxError{Line: lines.line(max(se.Offset-1, 0)), Msg: msg}
}

type parser struct {
	dec   *json.Decoder
	data  []byte
	lines lineIndex
}

// value builds the node whose first token is tok.
func (p *parser) value(tok json.Token) (*Node, error) {
	end := p.dec.InputOffset() // just after tok
	switch t := tok.(type) {
	case json.Delim:
		start := end - 1
		n := &Node{Kind: Array, Line: p.lines.line(start)}
		if t == '{' {
			n.Kind = Object
		}
		for p.dec.More() {
			tok, err := p.dec.Token()
			if err != nil {
				return nil, err
			}
			if n.Kind == Object {
				name, _ := tok.(string)
				line := p.lines.line(p.dec.InputOffset() - 1) // the key's closing quote
				if tok, err = p.dec.Token(); err != nil {
					return nil, err
				}
				v, err := p.value(tok)
				if err != nil {
					return nil, err
				}
				n.Members = append(n.Members, Member{Name: name, Line: line, Value: v})
				continue
			}
			v, err := p.value(tok)
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, v)
		}
		if _, err := p.dec.Token(); err != nil { // the closing delimiter
			return nil, err
		}
		n.raw = p.data[start:p.dec.InputOffset()]
		return n, nil
	case string:
		return &Node{Kind: String, Line: p.lines.line(end - 1), Text: t}, nil
	case json.Number:
		return &Node{Kind: Number, Line: p.lines.line(end - 1), Text: t.String()}, nil
	case bool:
		text := "false"
		if t {
			text = "true"
		}
		return &Node{Kind: Bool, Line: p.lines.line(end - 1), Text: text}, nil
	case nil:
		return &Node{Kind: Null, Line: p.lines.line(end - 1)}, nil
	}
	return nil, io.ErrUnexpectedEOF
}

// lineIndex maps byte offsets to lines.
type lineIndex struct {
	firstLine int
	starts    []int64 // offsets of line starts
}

func (li lineIndex) line(off int64) int {
	if li.firstLine <= 0 || off < 0 {
		return 0
	}
	return li.firstLine - 1 + sort.Search(len(li.starts), func(i int) bool { return li.starts[i] > off })
}
