package session

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON parser for session lines. encoding/json validates a line and
// then decodes it by reflection, twice for nested raw fields; session files
// are large and read whole, so lines are parsed once into a light tree whose
// unescaped strings and raw sub-values share the line's memory
// (docs/replay.md, "Speed and memory", has the figures against
// encoding/json).

type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNum
	jStr
	jArr
	jObj
)

func (k jkind) String() string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// jval is one parsed value. For objects, keys and kids are parallel.
type jval struct {
	kind jkind
	s    string // string value, or number literal
	b    bool
	raw  string // the value's text as written
	keys []string
	kids []jval
}

// get returns the value of key in an object (the last one if repeated, as
// encoding/json does).
func (v *jval) get(key string) (*jval, bool) {
	if v.kind != jObj {
		return nil, false
	}
	for i := len(v.keys) - 1; i >= 0; i-- {
		if v.keys[i] == key {
			return &v.kids[i], true
		}
	}
	return nil, false
}

const maxDepth = 512

type jparser struct {
	s   string
	i   int
	err error
	// perr is the parser's own error value, worded only when asked: a
	// file of junk lines costs no message a line (issue 27).
	perr parseError
	// scratch stacks: members are gathered here and copied into one
	// exactly sized slice per object or array.
	keys []string
	vals []jval
}

var errDepth = errors.New("nesting too deep")

// parseJSON parses one complete JSON value from s.
func parseJSON(s string) (jval, error) {
	var p jparser
	return p.parse(s)
}

// parse parses one complete JSON value from s, reusing the parser's
// scratch space.
func (p *jparser) parse(s string) (jval, error) {
	p.s, p.i, p.err = s, 0, nil
	v := p.value(0)
	if p.err == nil {
		p.ws()
		if p.i < len(p.s) {
			p.fail("unexpected data after the value")
		}
	}
	return v, p.err
}

func (p *jparser) fail(msg string) {
	if p.err == nil {
		p.perr = parseError{msg: msg, at: p.i + 1}
		p.err = &p.perr
	}
}

// failChar reports an unexpected character at the current position.
func (p *jparser) failChar() {
	if p.err == nil {
		p.perr = parseError{char: true, c: p.s[p.i], at: p.i + 1}
		p.err = &p.perr
	}
}

// parseError is where and why parsing failed. The parser reuses it: its
// text is valid until the next parse.
type parseError struct {
	msg  string
	char bool // an unexpected character c
	c    byte
	at   int
}

func (e *parseError) Error() string {
	msg := e.msg
	if e.char {
		msg = fmt.Sprintf("unexpected character %q", e.c)
	}
	return fmt.Sprintf("%s at byte %d", msg, e.at)
}

func (p *jparser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) value(depth int) jval {
	p.ws()
	start := p.i
	v := p.value1(depth)
	if p.err == nil {
		v.raw = p.s[start:p.i]
	}
	return v
}

func (p *jparser) value1(depth int) jval {
	if depth > maxDepth {
		p.err = errDepth
		return jval{}
	}
	if p.i >= len(p.s) {
		p.fail("unexpected end of line")
		return jval{}
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return jval{kind: jStr, s: p.str()}
	case c == 't':
		return p.lit("true", jval{kind: jBool, b: true})
	case c == 'f':
		return p.lit("false", jval{kind: jBool})
	case c == 'n':
		return p.lit("null", jval{kind: jNull})
	case c == '-' || (c >= '0' && c <= '9'):
		return p.num()
	}
	p.failChar()
	return jval{}
}

func (p *jparser) lit(word string, v jval) jval {
	if strings.HasPrefix(p.s[p.i:], word) {
		p.i += len(word)
		return v
	}
	p.fail("invalid literal")
	return jval{}
}

func (p *jparser) num() jval {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	first := p.i
	if digits() == 0 || (p.s[first] == '0' && p.i-first > 1) {
		p.fail("invalid number")
		return jval{}
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			p.fail("invalid number")
			return jval{}
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			p.fail("invalid number")
			return jval{}
		}
	}
	return jval{kind: jNum, s: p.s[start:p.i]}
}

// str parses a string starting at the opening quote.
func (p *jparser) str() string {
	p.i++ // opening quote
	start := p.i
	high := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '"' {
			out := p.s[start:p.i]
			p.i++
			if high && !utf8.ValidString(out) {
				out = fixUTF8(out)
			}
			return out
		}
		if c >= 0x80 {
			high = true
		}
		if c == '\\' {
			return p.strSlow(start)
		}
		if c < 0x20 {
			p.fail("control character in string")
			return ""
		}
		p.i++
	}
	p.fail("unterminated string")
	return ""
}

func (p *jparser) strSlow(start int) string {
	// The unescaped string is no longer than its raw text: size the
	// builder once.
	end := p.i
	for end < len(p.s) && p.s[end] != '"' {
		if p.s[end] == '\\' {
			end++
		}
		end++
	}
	var b strings.Builder
	b.Grow(end - start)
	if seg := p.s[start:p.i]; utf8.ValidString(seg) {
		b.WriteString(seg)
	} else {
		b.WriteString(fixUTF8(seg))
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String()
		case c < 0x20:
			p.fail("control character in string")
			return ""
		case c != '\\':
			j := p.i
			for j < len(p.s) && p.s[j] != '"' && p.s[j] != '\\' && p.s[j] >= 0x20 {
				j++
			}
			if seg := p.s[p.i:j]; utf8.ValidString(seg) {
				b.WriteString(seg)
			} else {
				b.WriteString(fixUTF8(seg))
			}
			p.i = j
			continue
		}
		if p.i+1 >= len(p.s) {
			break
		}
		e := p.s[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				p.fail("invalid \\u escape")
				return ""
			}
			if utf16.IsSurrogate(r) {
				// A pair if a low surrogate follows; a lone one becomes
				// U+FFFD, as encoding/json does.
				if p.i+6 <= len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if r2, ok := p.hex4(); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							b.WriteRune(d)
							continue
						}
					}
					p.i = save
				}
				r = utf8.RuneError
			}
			b.WriteRune(r)
		default:
			p.i--
			p.fail("invalid escape")
			return ""
		}
	}
	p.fail("unterminated string")
	return ""
}

// fixUTF8 replaces each byte of an invalid UTF-8 sequence with U+FFFD, as
// encoding/json (and a JavaScript reader of the file) does.
func fixUTF8(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func (p *jparser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

func (p *jparser) array(depth int) jval {
	p.i++
	v := jval{kind: jArr}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return v
	}
	mark := len(p.vals)
	defer func() { clear(p.vals[mark:]); p.vals = p.vals[:mark] }()
	for p.err == nil {
		x := p.value(depth + 1)
		p.vals = append(p.vals, x)
		p.ws()
		if p.i >= len(p.s) {
			p.fail("unterminated array")
			break
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.s[p.i] == ']' {
			p.i++
			v.kids = append([]jval(nil), p.vals[mark:]...)
			return v
		}
		p.fail("expected , or ] in array")
	}
	return v
}

func (p *jparser) object(depth int) jval {
	p.i++
	v := jval{kind: jObj}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return v
	}
	mark, kmark := len(p.vals), len(p.keys)
	defer func() {
		clear(p.vals[mark:])
		p.vals, p.keys = p.vals[:mark], p.keys[:kmark]
	}()
	for p.err == nil {
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			p.fail("expected a key string in object")
			break
		}
		k := p.str()
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			p.fail("expected : after object key")
			break
		}
		p.i++
		val := p.value(depth + 1)
		p.keys = append(p.keys, k)
		p.vals = append(p.vals, val)
		p.ws()
		if p.i >= len(p.s) {
			p.fail("unterminated object")
			break
		}
		if p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.s[p.i] == '}' {
			p.i++
			v.keys = append([]string(nil), p.keys[kmark:]...)
			v.kids = append([]jval(nil), p.vals[mark:]...)
			return v
		}
		p.fail("expected , or } in object")
	}
	return v
}

// fields reads typed fields out of an object, noting the first field of a
// wrong type.
type fields struct {
	v   *jval
	bad string // "field: want X, got Y"
}

func (f *fields) note(key string, want jkind, got jkind) {
	if f.bad == "" {
		f.bad = fmt.Sprintf("field %q should be a %s, not a %s", key, want, got)
	}
}

func (f *fields) str(key string) string {
	x, ok := f.v.get(key)
	if !ok || x.kind == jNull {
		return ""
	}
	if x.kind != jStr {
		f.note(key, jStr, x.kind)
		return ""
	}
	return x.s
}

func (f *fields) boolean(key string) bool {
	x, ok := f.v.get(key)
	if !ok || x.kind == jNull {
		return false
	}
	if x.kind != jBool {
		f.note(key, jBool, x.kind)
		return false
	}
	return x.b
}

func (f *fields) num(key string) (float64, bool) {
	x, ok := f.v.get(key)
	if !ok || x.kind == jNull {
		return 0, false
	}
	if x.kind != jNum {
		f.note(key, jNum, x.kind)
		return 0, false
	}
	n, err := strconv.ParseFloat(x.s, 64)
	if err != nil {
		f.note(key, jNum, x.kind)
		return 0, false
	}
	return n, true
}

func (f *fields) obj(key string) *jval {
	x, ok := f.v.get(key)
	if !ok || x.kind == jNull {
		return nil
	}
	if x.kind != jObj {
		f.note(key, jObj, x.kind)
		return nil
	}
	return x
}
