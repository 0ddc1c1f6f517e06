package protocol

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Request ids are echoed as the host wrote them. JSON-RPC 2.0 lets an id be
// any string or number (or null) and requires the response to carry the
// same id; jsonrpc2.ID holds only a uint64 or a string, so -1 came back as
// 18446744073709551615 and 1.5, 1e3, -0 or 123456789012345678901234567890
// were refused or rewritten. The codec therefore replaces the id of every
// request it reads by an id of its own, a string, before jsonrpc2 sees the
// message, keeps the id's JSON text as written, and puts that text back
// into the response when it writes it. Every request id is replaced, string
// ids included, so a host's id can never be taken for one of the codec's.
//
// The params of a request are kept aside in the same way: jsonrpc2 decodes
// params into interface values and encodes them again, which cost about
// ten times a message of 10 MB (issue 27, a huge user prompt). The codec
// hands jsonrpc2 the request with "params": null and keeps the params as
// written; the server takes them back by the request's id (takeParams).

// idPrefix begins the ids the codec hands to jsonrpc2.
const idPrefix = "skill-lifecycle/request/"

// maxPendingIDs bounds the ids kept for requests not yet answered. The
// server answers one request before reading the next, so one is pending at
// a time; only responses that could not be written leave entries behind,
// and beyond this bound the oldest are forgotten.
const maxPendingIDs = 1024

// idTable maps the codec's ids to the JSON text of the host's ids. A nil
// table leaves messages as they are.
type idTable struct {
	mu     sync.Mutex
	next   uint64                     // the number of the next id handed out
	low    uint64                     // no entry below this number is kept
	raw    map[uint64]json.RawMessage // pending requests: number -> id as written
	params map[uint64]json.RawMessage // their params as written, until the server takes them
}

func newIDTable() *idTable {
	return &idTable{raw: map[uint64]json.RawMessage{}, params: map[uint64]json.RawMessage{}}
}

// add keeps raw (a copy) and params (as it is; nil for none) and returns
// the string id, as JSON, that stands for them.
func (t *idTable) add(raw, params []byte) json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	for len(t.raw) >= maxPendingIDs {
		delete(t.raw, t.low)
		delete(t.params, t.low)
		t.low++
	}
	n := t.next
	t.next++
	t.raw[n] = bytes.Clone(raw)
	if params != nil {
		t.params[n] = params
	}
	return json.RawMessage(strconv.Quote(idPrefix + strconv.FormatUint(n, 10)))
}

// number returns the number of the table's id s (without quotes).
func number(s string) (uint64, bool) {
	rest, found := strings.CutPrefix(s, idPrefix)
	if !found {
		return 0, false
	}
	n, err := strconv.ParseUint(rest, 10, 64)
	return n, err == nil
}

// take returns the host's id for sub (a JSON value), forgetting it; ok is
// false when sub is not a pending id of the table.
func (t *idTable) take(sub []byte) (raw json.RawMessage, ok bool) {
	if len(sub) < 2 || sub[0] != '"' || sub[len(sub)-1] != '"' {
		return nil, false
	}
	n, ok := number(string(sub[1 : len(sub)-1]))
	if !ok {
		return nil, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	raw, ok = t.raw[n]
	delete(t.raw, n)
	delete(t.params, n)
	return raw, ok
}

// takeParams returns the params kept for the request whose id (the
// table's, as jsonrpc2 decoded it) is id, forgetting them; ok is false
// when none were kept: the request had no params, or did not come through
// the table.
func (t *idTable) takeParams(id string) (params json.RawMessage, ok bool) {
	if t == nil {
		return nil, false
	}
	n, ok := number(id)
	if !ok {
		return nil, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	params, ok = t.params[n]
	delete(t.params, n)
	return params, ok
}

// pending reports how many ids are kept (for tests).
func (t *idTable) pending() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.raw)
}

// substitute replaces the id of the request in body, a valid JSON text, by
// a new id of the table, and its params by null, keeping them (a slice of
// body) for takeParams. It returns the body to decode, the new id (nil
// when none was made) and the id member as the host wrote it (nil when
// body is not an object with an id). Only a request (an object with a
// "method" member) whose id is a string, a number or null has its id
// replaced; the id of a response, or an id that is an object, an array or
// a boolean, is left for jsonrpc2 to handle or refuse. A notification has
// no id and is returned as it is.
func (t *idTable) substitute(body []byte) (out []byte, sub, raw json.RawMessage) {
	var ids, params []span
	method := false
	if !topMembers(body, func(key string, v span) bool {
		switch key {
		case "id":
			ids = append(ids, v)
		case "method":
			method = true
		case "params":
			params = append(params, v)
		}
		return true
	}) || len(ids) == 0 {
		return body, nil, nil
	}
	last := ids[len(ids)-1] // the member encoding/json would use
	raw = body[last.start:last.end]
	if t == nil || !method || !idTypeAllowed(raw) {
		return body, nil, raw
	}
	var kept []byte
	if len(params) > 0 {
		p := params[len(params)-1] // the member jsonrpc2 would use
		kept = body[p.start:p.end]
	}
	sub = t.add(raw, kept)
	// Every id member is replaced, so that jsonrpc2 sees only the new id,
	// and every params member, so that it decodes none.
	type edit struct {
		at   span
		with []byte
	}
	var edits []edit
	for _, v := range ids {
		edits = append(edits, edit{v, sub})
	}
	for _, v := range params {
		edits = append(edits, edit{v, []byte("null")})
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.at.start - b.at.start })
	size := len(body) + len(ids)*len(sub)
	for _, v := range params {
		size -= v.end - v.start
	}
	out = make([]byte, 0, size+len(params)*4)
	at := 0
	for _, e := range edits {
		out = append(append(out, body[at:e.at.start]...), e.with...)
		at = e.at.end
	}
	return append(out, body[at:]...), sub, raw
}

// errorID returns the id to answer an unreadable message with, whose id
// member was raw: an id of the table standing for it.
func (t *idTable) errorID(raw json.RawMessage) json.RawMessage {
	if t == nil || raw == nil {
		return raw
	}
	return t.add(raw, nil)
}

// restore puts the host's id back into data, a message the server writes,
// in place of the table's id that stands for it.
func (t *idTable) restore(data []byte) []byte {
	if t == nil {
		return data
	}
	var id span
	found := false
	topMembers(data, func(key string, v span) bool {
		if key == "id" {
			id, found = v, true
			return false
		}
		return true
	})
	if !found {
		return data
	}
	raw, ok := t.take(data[id.start:id.end])
	if !ok {
		return data
	}
	out := make([]byte, 0, len(data)-(id.end-id.start)+len(raw))
	out = append(append(append(out, data[:id.start]...), raw...), data[id.end:]...)
	return out
}

// idTypeAllowed reports whether raw, a JSON value, is a string, a number
// or null: the ids JSON-RPC 2.0 allows.
func idTypeAllowed(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return true
	case c == 'n':
		return string(raw) == "null"
	}
	return false
}

// span is the place of a value in a JSON text.
type span struct{ start, end int }

// topMembers calls fn with the key and the place of each member of the
// top-level object of data, a valid JSON text, until fn returns false. It
// returns false when data is not an object. Keys are unescaped.
func topMembers(data []byte, fn func(key string, v span) bool) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(data, i)
		if i >= len(data) || data[i] == '}' {
			return true
		}
		if data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		kend := skipString(data, i)
		key := data[i+1 : kend-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			if json.Unmarshal(data[i:kend], &k) != nil {
				return true
			}
			key = []byte(k)
		}
		i = skipSpace(data, kend)
		i = skipSpace(data, i+1) // the colon
		end := skipValue(data, i)
		if !fn(string(key), span{i, end}) {
			return true
		}
		i = end
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at i.
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// skipValue returns the index after the value that starts at i.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}
