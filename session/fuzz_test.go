package session

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// toAny converts a parsed value to what encoding/json decodes into any.
func toAny(v *jval) any {
	switch v.kind {
	case jBool:
		return v.b
	case jNum:
		f, _ := strconv.ParseFloat(v.s, 64)
		return f
	case jStr:
		return v.s
	case jArr:
		out := make([]any, len(v.kids))
		for i := range v.kids {
			out[i] = toAny(&v.kids[i])
		}
		return out
	case jObj:
		out := map[string]any{}
		for i, k := range v.keys {
			out[k] = toAny(&v.kids[i])
		}
		return out
	}
	return nil
}

// FuzzParseJSON checks the line parser against encoding/json: the same
// inputs are valid, and they decode to the same values.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `[1,2.5e3,-0,"x\n\u00e9\ud83d\ude00"]`, `"\ud800"`, `{"a":{"b":[true,false,null]}}`, `01`, `{"a" 1}`, `"\x01"`, `[1,]`, ` {} `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseJSON(s)
		valid := json.Valid([]byte(s))
		if (err == nil) != valid {
			t.Fatalf("%q: parser error %v, encoding/json valid %v", s, err, valid)
		}
		if !valid {
			return
		}
		var want any
		if json.Unmarshal([]byte(s), &want) != nil {
			return // valid syntax that encoding/json cannot hold (a number out of float64 range)
		}
		if d := cmp.Diff(want, toAny(&v)); d != "" {
			t.Fatalf("%q (-encoding/json +parser):\n%s", s, d)
		}
		if v.raw != strings.Trim(s, " \t\r\n") {
			t.Fatalf("%q: raw %q", s, v.raw)
		}
	})
}

// FuzzRead feeds arbitrary session files to the reader and walks every
// branch: nothing panics, and every line is either an entry or reported:
// with its line, or, past the first DefaultMaxDiagnostics, counted.
func FuzzRead(f *testing.F) {
	f.Add([]byte(hdr3 + msg("a", "", "user", "1") + msg("b", "a", "assistant", "2") + "{bad\n" + msg("c", "zz", "user", "3")))
	f.Add([]byte(`{"type":"session","id":"x"}` + "\n" + `{"type":"compaction","firstKeptEntryIndex":1,"summary":"s"}` + "\n" + `{"type":"message","message":{"role":"bashExecution","command":"ls","exitCode":"x"}}`))
	f.Add([]byte(msg("a", "b", "user", "1") + msg("b", "a", "user", "2")))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data), "f.jsonl", &Options{MaxLine: 1 << 16})
		if err != nil {
			t.Fatal(err)
		}
		for _, leaf := range s.Leaves() {
			BuildContext(s.Branch(leaf))
		}
		lines := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		seen := map[int]bool{}
		for _, e := range s.Entries {
			seen[e.Line] = true
		}
		if s.Header.Line > 0 {
			seen[s.Header.Line] = true
		}
		for _, d := range s.Diagnostics {
			if d.Line > 0 {
				seen[d.Line] = true
			}
		}
		counted := s.DiagnosticCount - len(s.Diagnostics) // not worded
		if len(seen)+counted < lines {
			t.Fatalf("%d non-empty lines, %d accounted for (%d counted only)", lines, len(seen)+counted, counted)
		}
	})
}
