package replay

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/skill-lifecycle/skill-lifecycle/session"
)

// The request text is rebuilt as Pi's openai-completions provider sends it
// and as the end-to-end tests' scripted provider measures it: each context
// message converted to a chat-completions message, serialised compactly
// with non-ASCII characters kept (Python's json.dumps with
// ensure_ascii=False and separators (",", ":")); lengths are in Unicode
// code points. A request is then
//
//	H + "," + json(m1) + "," + json(m2) + ... + "]"
//
// where H (tools, "[" and the system message) is not in the session and is
// calibrated from the recorded usage (see calibrate).

// appendPyString appends s as a JSON string the way Python's json.dumps
// (ensure_ascii=False) writes it.
func appendPyString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			const hex = "0123456789abcdef"
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// compactJSON returns raw JSON without insignificant white space, as
// JSON.stringify writes it ("{}" for empty input).
func compactJSON(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return "{}"
	}
	if !hasSpaceOutsideStrings(raw) {
		return raw
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(raw)); err != nil {
		return raw
	}
	return b.String()
}

// hasSpaceOutsideStrings reports whether raw JSON has white space
// between tokens (Pi writes none).
func hasSpaceOutsideStrings(raw string) bool {
	in := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if in {
			if c == '\\' {
				i++
			} else if c == '"' {
				in = false
			}
			continue
		}
		switch c {
		case '"':
			in = true
		case ' ', '\t', '\n', '\r':
			return true
		}
	}
	return false
}

// llmMessage is a context message after the provider's transformation
// (aborted and failed assistant messages dropped, missing tool results
// filled in).
type llmMessage struct {
	cm *session.ContextMessage // nil for a synthetic message
	// synthetic tool result (missing result) or synthetic reload pair
	synth *session.Message
	key   any // cache key of the serialised form
}

// message is the message lm sends.
func (lm llmMessage) message() *session.Message {
	if lm.cm != nil {
		return lm.cm.Message
	}
	return lm.synth
}

// providerView applies Pi's transformMessages to a context, message by
// message (so that a growing context is converted incrementally):
// assistant messages that failed or were aborted are skipped, and a tool
// call left without result gets a "No result provided" error result
// before the next assistant or user message.
type providerView struct {
	pending []session.Block
	have    map[string]bool
	synth   map[string]*session.Message // shared cache of synthetic results
}

func (v *providerView) reset() {
	v.pending = v.pending[:0]
	clear(v.have)
}

// add appends the provider messages cm contributes to out.
func (v *providerView) add(cm *session.ContextMessage, out []llmMessage) []llmMessage {
	m := cm.Message
	switch m.Role {
	case session.RoleAssistant:
		out = v.flush(out)
		if m.StopReason == "error" || m.StopReason == "aborted" {
			return out
		}
		for _, b := range m.Blocks {
			if b.Type == "toolCall" {
				v.pending = append(v.pending, b)
			}
		}
	case session.RoleToolResult:
		if v.have == nil {
			v.have = map[string]bool{}
		}
		v.have[m.ToolCallID] = true
	case session.RoleUser:
		out = v.flush(out)
	}
	return append(out, llmMessage{cm: cm, key: cm.Entry})
}

func (v *providerView) flush(out []llmMessage) []llmMessage {
	for _, tc := range v.pending {
		if v.have[tc.ID] {
			continue
		}
		m := v.synth[tc.ID]
		if m == nil {
			m = &session.Message{Role: session.RoleToolResult, ToolCallID: tc.ID, ToolName: tc.Name, IsError: true,
				Blocks: []session.Block{{Type: "text", Text: "No result provided"}}}
			v.synth[tc.ID] = m
		}
		out = append(out, llmMessage{synth: m, key: m})
	}
	v.reset()
	return out
}

// serialise returns "," + the chat-completions JSON of m. replace, when
// not nil, rewrites the text of a tool result or a user message (archiving).
func serialise(buf []byte, m *session.Message, replace func(string) string) []byte {
	buf = append(buf, ',')
	switch m.Role {
	case session.RoleUser:
		buf = append(buf, `{"role":"user","content":`...)
		if len(m.Content) > 0 && m.Content[0] == '"' && len(m.Blocks) == 1 {
			t := m.Blocks[0].Text
			if replace != nil {
				t = replace(t)
			}
			buf = appendPyString(buf, t)
		} else {
			buf = append(buf, '[')
			n := 0
			for _, b := range m.Blocks {
				if b.Type != "text" { // images are dropped, as for a text-only model
					continue
				}
				if n > 0 {
					buf = append(buf, ',')
				}
				n++
				t := b.Text
				if replace != nil {
					t = replace(t)
				}
				buf = append(buf, `{"type":"text","text":`...)
				buf = appendPyString(buf, t)
				buf = append(buf, '}')
			}
			buf = append(buf, ']')
		}
		return append(buf, '}')
	case session.RoleAssistant:
		buf = append(buf, `{"role":"assistant","content":`...)
		var text, thinking []string
		for _, b := range m.Blocks {
			switch b.Type {
			case "text":
				text = append(text, b.Text)
			case "thinking":
				if strings.TrimSpace(b.Thinking) != "" {
					thinking = append(thinking, b.Thinking)
				}
			}
		}
		if len(text) == 0 {
			buf = append(buf, "null"...)
		} else {
			buf = appendPyString(buf, strings.Join(text, ""))
		}
		if len(thinking) > 0 {
			buf = append(buf, `,"reasoning":`...)
			buf = appendPyString(buf, strings.Join(thinking, "\n"))
		}
		n := 0
		for _, b := range m.Blocks {
			if b.Type != "toolCall" {
				continue
			}
			if n == 0 {
				buf = append(buf, `,"tool_calls":[`...)
			} else {
				buf = append(buf, ',')
			}
			n++
			buf = append(buf, `{"id":`...)
			buf = appendPyString(buf, b.ID)
			buf = append(buf, `,"type":"function","function":{"name":`...)
			buf = appendPyString(buf, b.Name)
			buf = append(buf, `,"arguments":`...)
			buf = appendPyString(buf, compactJSON(b.Arguments))
			buf = append(buf, "}}"...)
		}
		if n > 0 {
			buf = append(buf, ']')
		}
		return append(buf, '}')
	case session.RoleToolResult:
		buf = append(buf, `{"role":"tool","content":`...)
		t := toolResultText(m)
		if replace != nil {
			t = replace(t)
		}
		buf = appendPyString(buf, t)
		buf = append(buf, `,"tool_call_id":`...)
		buf = appendPyString(buf, m.ToolCallID)
		return append(buf, '}')
	}
	return buf[:len(buf)-1]
}

// toolResultText is the text Pi sends for a tool result: its text blocks
// joined by newlines, or a placeholder when it has none.
func toolResultText(m *session.Message) string {
	var parts []string
	for _, b := range m.Blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	if len(parts) == 0 {
		return "(no text output)"
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts, "\n")
}

// outputChars estimates a response's length as the scripted provider
// counts completion tokens: text plus each tool call's name and JSON
// arguments.
func outputChars(m *session.Message) int {
	n := 0
	for _, b := range m.Blocks {
		switch b.Type {
		case "text":
			n += utf8.RuneCountInString(b.Text)
		case "thinking":
			n += utf8.RuneCountInString(b.Thinking)
		case "toolCall":
			n += utf8.RuneCountInString(b.Name) + utf8.RuneCountInString(compactJSON(b.Arguments))
		}
	}
	return n
}
