package session

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
)

const boundHeader = `{"type":"session","version":3,"id":"s","cwd":"/p"}` + "\n"

// TestReadBoundsDiagnostics: a file keeps its first diagnostics and counts
// the rest; junk lines allocate no message each, and objects without a
// type are no entries.
func TestReadBoundsDiagnostics(t *testing.T) {
	junk := strings.Repeat("junk\n", 100_000) + strings.Repeat("{}\n", 100_000)
	var s *Session
	grew := testio.Allocated(func() {
		var err error
		s, err = Read(strings.NewReader(boundHeader+junk), "j.jsonl", nil)
		if err != nil {
			t.Fatal(err)
		}
	})
	if len(s.Diagnostics) != DefaultMaxDiagnostics || s.DiagnosticCount != 200_000 || len(s.Entries) != 0 {
		t.Fatalf("%d diagnostics kept, %d counted, %d entries", len(s.Diagnostics), s.DiagnosticCount, len(s.Entries))
	}
	if d := s.Diagnostics[0]; d.Line != 2 || d.Code != CodeBadJSON || d.Message != "not valid JSON, line skipped: unexpected character 'j' at byte 1" {
		t.Errorf("first diagnostic %+v", d)
	}
	if grew > uint64(4*len(junk)) { // a string a line, the read buffer
		t.Errorf("%d bytes of junk allocated %d", len(junk), grew)
	}
	all, err := Read(strings.NewReader(boundHeader+"x\n{}\n"), "j.jsonl", &Options{MaxDiagnostics: -1})
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, d := range all.Diagnostics {
		codes = append(codes, d.Code)
	}
	if d := cmp.Diff([]string{CodeBadJSON, CodeNoType}, codes); d != "" {
		t.Errorf("codes (-want +got):\n%s", d)
	}
}

// TestReadRequireHeader: with RequireHeader a file is read only when its
// first JSON line is a session header with a string id, blank and
// unparsable lines before it passed over as Pi does; otherwise reading
// stops at that line and NotSession says why.
func TestReadRequireHeader(t *testing.T) {
	msg := `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}` + "\n"
	for _, tc := range []struct {
		name, text, not string
	}{
		{"header", boundHeader + msg, ""},
		{"blank-line-first", "\n" + boundHeader + msg, ""},
		{"junk-line-first", "garbage\n" + boundHeader + msg, ""},
		{"request-log", `{"body":{"model":"m"}}` + "\n" + msg, "line 1, its first JSON line, is not a session header"},
		{"numeric-id", `{"type":"session","id":7}` + "\n" + msg, "line 1, its first JSON line, is not a session header"},
		{"array-first", "[1]\n" + boundHeader, "line 1, its first JSON line, is not a session header: a JSON array"},
		{"empty", "", "no line is a session header"},
		{"only-junk", "a\nb\n", "no line is a session header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Read(strings.NewReader(tc.text), "f.jsonl", &Options{RequireHeader: true})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(s.NotSession, tc.not) || (tc.not == "") != (s.NotSession == "") {
				t.Fatalf("NotSession %q, want %q", s.NotSession, tc.not)
			}
			if tc.not == "" && (s.Header.ID != "s" || len(s.Entries) != 1) {
				t.Errorf("header %+v, %d entries", s.Header, len(s.Entries))
			}
			if tc.not != "" && len(s.Entries) != 0 {
				t.Errorf("%d entries read from a file that is not a session", len(s.Entries))
			}
		})
	}
}
