package session

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
)

// longLineSession is a header, a message, a user message whose text is
// size bytes of 'z' (unescaped) and a last message; eol ends each line.
func longLineSession(size int, eol string) io.Reader {
	head := `{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/w"}` + eol +
		`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"before"}}` + eol +
		`{"type":"message","id":"big","parentId":"a","message":{"role":"user","content":"`
	tail := `"}}` + eol + `{"type":"message","id":"b","parentId":"big","message":{"role":"user","content":"after"}}` + eol
	return io.MultiReader(strings.NewReader(head), testio.Repeat('z', size), strings.NewReader(tail))
}

// TestReadLongLinesWhole: lines of every length around the read buffer's
// size (256 KiB) and its multiples, with LF or CRLF ends, escaped or not,
// are read whole and parse as they are written.
func TestReadLongLinesWhole(t *testing.T) {
	const buf = 256 << 10
	for _, size := range []int{0, 1, buf - 200, buf - 140, buf - 139, buf - 138, buf - 100, buf, buf + 1, 2*buf - 139, 3*buf + 7, 5<<20 + 3} {
		for _, eol := range []string{"\n", "\r\n"} {
			t.Run(fmt.Sprintf("%d-bytes-%q", size, eol), func(t *testing.T) {
				s, err := Read(longLineSession(size, eol), "long.jsonl", nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(s.Diagnostics) != 0 {
					t.Fatalf("diagnostics: %v", s.Diagnostics)
				}
				got := []string{}
				for _, e := range s.Entries {
					got = append(got, fmt.Sprintf("%s@%d:%d", e.ID, e.Line, len(e.Message.Blocks[0].Text)))
				}
				if d := cmp.Diff([]string{"a@2:6", fmt.Sprintf("big@3:%d", size), "b@4:5"}, got); d != "" {
					t.Errorf("entries (-want +got):\n%s", d)
				}
				if text := s.Entries[1].Message.Blocks[0].Text; strings.Trim(text, "z") != "" {
					t.Errorf("the long text holds other bytes than the line's")
				}
			})
		}
	}
	t.Run("escaped", func(t *testing.T) {
		text := strings.Repeat("line \"one\"\n\ttab \u00e9 \U0001F600 ", 40_000) // about 1.2 MB
		esc := strings.NewReplacer(`"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(text)
		in := `{"type":"session","version":3,"id":"s","cwd":"/w"}` + "\n" +
			`{"type":"message","id":"big","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"` + esc + `"}]}}`
		s := read(t, in, nil) // the last line has no line end but is complete
		if len(s.Diagnostics) != 0 {
			t.Fatalf("diagnostics: %v", s.Diagnostics)
		}
		if len(s.Entries) != 1 || s.Entries[0].Message.Blocks[0].Text != text {
			t.Fatalf("the escaped text was not read back as written")
		}
	})
}

// TestReadLineLimitEdges: a line of exactly the limit is read, one byte
// more is skipped with a diagnostic; the same when the line is the last one
// and has no line end, and when the limit is larger than the read buffer.
func TestReadLineLimitEdges(t *testing.T) {
	entry := func(id, parent string, pad int) string {
		return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"message":{"role":"user","content":"%s"}}`, id, parent, strings.Repeat("p", pad))
	}
	hdr := `{"type":"session","version":3,"id":"s","cwd":"/w"}`
	for _, limit := range []int{200, 300 << 10, 1 << 20} {
		pad := limit - len(entry("x", "null", 0))
		exact, over := entry("x", "null", pad), entry("y", `"x"`, pad+2) // `"x"` is a byte shorter than null
		if len(exact) != limit || len(over) != limit+1 {
			t.Fatalf("setup: %d %d", len(exact), len(over))
		}
		for _, tc := range []struct {
			name  string
			in    string
			codes []string
			ids   []string
		}{
			{"exact-then-over", hdr + "\n" + exact + "\n" + over + "\n" + entry("z", `"x"`, 1) + "\n", []string{"line-too-long@3"}, []string{"x", "z"}},
			{"over-last-without-eol", hdr + "\n" + exact + "\n" + over, []string{"line-too-long@3"}, []string{"x"}},
			{"exact-last-without-eol", hdr + "\n" + exact, nil, []string{"x"}},
			{"exact-with-crlf", hdr + "\r\n" + exact + "\r\n", nil, []string{"x"}},
		} {
			t.Run(fmt.Sprintf("limit-%d/%s", limit, tc.name), func(t *testing.T) {
				s := read(t, tc.in, &Options{MaxLine: limit})
				var ids []string
				for _, e := range s.Entries {
					ids = append(ids, e.ID)
				}
				if d := cmp.Diff(tc.codes, codes(s)); d != "" {
					t.Errorf("diagnostics (-want +got):\n%s", d)
				}
				if d := cmp.Diff(tc.ids, ids); d != "" {
					t.Errorf("entries (-want +got):\n%s", d)
				}
				if len(s.Entries) > 0 && len(s.Entries[0].Message.Blocks[0].Text) != pad {
					t.Errorf("the line at the limit was not read whole")
				}
			})
		}
	}
}

// TestReadLongLineAllocation: reading a line of L bytes allocates at most
// about 2×L (the line gathered in blocks, then copied once into the string
// the entries share), not the buffer's repeated growth; a line over the
// limit costs at most about the limit.
func TestReadLongLineAllocation(t *testing.T) {
	const size = 16 << 20
	for _, tc := range []struct {
		name  string
		limit int
		max   float64 // allowed allocation in multiples of size
	}{
		{"under-the-default-limit", 0, 2.5},
		{"over-a-smaller-limit", 8 << 20, 0.75}, // the 8 MiB limit: at most about 1.5× of it
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s *Session
			grew := testio.Allocated(func() {
				var err error
				s, err = Read(longLineSession(size, "\n"), "long.jsonl", &Options{MaxLine: tc.limit})
				if err != nil {
					t.Fatal(err)
				}
			})
			if len(s.Entries) < 2 {
				t.Fatalf("entries around the line lost: %d", len(s.Entries))
			}
			ratio := float64(grew) / size
			t.Logf("%d MiB line: %.1f MiB allocated (%.2f× the line)", size>>20, float64(grew)/(1<<20), ratio)
			if ratio > tc.max {
				t.Errorf("reading a %d MiB line allocated %.2f× its size, want at most %.2f×", size>>20, ratio, tc.max)
			}
		})
	}
}

// BenchmarkReadLongLine reads a session whose third line is one long text
// (B/op is the allocation for the whole file, about the line's size plus a
// few KiB).
func BenchmarkReadLongLine(b *testing.B) {
	for _, size := range []int{1 << 20, 50 << 20} {
		b.Run(fmt.Sprintf("%dMiB", size>>20), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				s, err := Read(longLineSession(size, "\n"), "long.jsonl", nil)
				if err != nil || len(s.Entries) != 3 {
					b.Fatalf("%v, %d entries", err, len(s.Entries))
				}
			}
		})
	}
}
