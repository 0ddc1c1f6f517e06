//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Usage is the token estimate the provider reports for one request (see the
// package comment for the rule).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	CachedTokens     int `json:"cached_tokens"`
}

// canonicalJSON re-serialises one JSON value the way Python's
// json.dumps(v, ensure_ascii=False, separators=(",", ":")) does after
// json.loads: no whitespace, object keys in their original order, strings
// re-escaped (only '"', '\\' and control characters; non-ASCII kept as is),
// numbers as written.
func canonicalJSON(raw []byte) (string, error) {
	var out bytes.Buffer
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := canonValue(dec, &out); err != nil {
		return "", err
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", fmt.Errorf("trailing data after JSON value")
	}
	return out.String(), nil
}

func canonValue(dec *json.Decoder, out *bytes.Buffer) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			out.WriteByte('{')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out.WriteByte(',')
				}
				k, err := dec.Token()
				if err != nil {
					return err
				}
				ks, ok := k.(string)
				if !ok {
					return fmt.Errorf("object key is %T", k)
				}
				writePyString(out, ks)
				out.WriteByte(':')
				if err := canonValue(dec, out); err != nil {
					return err
				}
			}
			out.WriteByte('}')
		case '[':
			out.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					out.WriteByte(',')
				}
				if err := canonValue(dec, out); err != nil {
					return err
				}
			}
			out.WriteByte(']')
		default:
			return fmt.Errorf("unexpected delimiter %q", v)
		}
		_, err := dec.Token() // closing delimiter
		return err
	case string:
		writePyString(out, v)
	case json.Number:
		out.WriteString(pyNumber(v.String()))
	case bool:
		out.WriteString(strconv.FormatBool(v))
	case nil:
		out.WriteString("null")
	default:
		return fmt.Errorf("unexpected token %T", tok)
	}
	return nil
}

// pyNumber writes a JSON number as Python re-serialises it: integers as
// written, other numbers as repr(float) (shortest round trip, ".0" added,
// exponent form below 1e-4 and from 1e16).
func pyNumber(lit string) string {
	if !strings.ContainsAny(lit, ".eE") {
		return lit
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return lit
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	if a := math.Abs(f); a >= 1e-4 && a < 1e16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	return strconv.FormatFloat(f, 'e', -1, 64)
}

// writePyString writes s as Python's json encoder does with ensure_ascii=False.
func writePyString(out *bytes.Buffer, s string) {
	out.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			out.WriteString(`\"`)
		case '\\':
			out.WriteString(`\\`)
		case '\n':
			out.WriteString(`\n`)
		case '\r':
			out.WriteString(`\r`)
		case '\t':
			out.WriteString(`\t`)
		case '\b':
			out.WriteString(`\b`)
		case '\f':
			out.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(out, `\u%04x`, r)
			} else {
				out.WriteRune(r)
			}
		}
	}
	out.WriteByte('"')
}

// usageString builds S for a request body: canonical tools then canonical
// messages (a missing field counts as the empty string).
func usageString(tools, messages json.RawMessage) (string, error) {
	var s string
	for _, part := range []json.RawMessage{tools, messages} {
		if len(bytes.TrimSpace(part)) == 0 {
			continue
		}
		c, err := canonicalJSON(part)
		if err != nil {
			return "", err
		}
		s += c
	}
	return s, nil
}

// commonPrefixRunes returns the number of code points two strings share at
// their start.
func commonPrefixRunes(a, b string) int {
	n := 0
	for len(a) > 0 && len(b) > 0 {
		ra, sa := utf8.DecodeRuneInString(a)
		rb, sb := utf8.DecodeRuneInString(b)
		if ra != rb || sa != sb {
			break
		}
		a, b = a[sa:], b[sb:]
		n++
	}
	return n
}

func ceilDiv4(n int) int { return (n + 3) / 4 }

// estimateUsage applies the scenario-sessions rule to one request, given the
// previous request's S ("" for the first) and the reply's output text O.
func estimateUsage(s, prev, output string) Usage {
	return Usage{
		PromptTokens:     ceilDiv4(utf8.RuneCountInString(s)),
		CachedTokens:     commonPrefixRunes(s, prev) / 4,
		CompletionTokens: ceilDiv4(utf8.RuneCountInString(output)),
	}
}
