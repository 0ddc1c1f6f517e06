package hostile

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/skill-lifecycle/skill-lifecycle/internal/testio"
	"github.com/skill-lifecycle/skill-lifecycle/session"
)

const sessHeader = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n"

func sessMsg(id, parent, text string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":%q,"timestamp":1}}`+"\n", id, parent, text)
}

func diagCodes(s *session.Session) []string {
	var out []string
	for _, d := range s.Diagnostics {
		out = append(out, fmt.Sprintf("%s@%d", d.Code, d.Line))
	}
	return out
}

// walkAll builds the branch and the model context of every leaf: none of
// it may loop or panic, whatever the tree.
func walkAll(t *testing.T, s *session.Session) {
	t.Helper()
	for _, leaf := range s.Leaves() {
		br := s.Branch(leaf)
		if len(br) > len(s.Entries) {
			t.Fatalf("branch of %q longer than the file", leaf.ID)
		}
		session.BuildContext(br)
	}
}

// TestHostileSessions: damaged session files are read to the end; each
// problem is a diagnostic naming the file and line; every good entry
// around it is kept.
func TestHostileSessions(t *testing.T) {
	garbage := make([]byte, 2000)
	for i := range garbage {
		garbage[i] = byte(i*31 + 7)
		if garbage[i] == '\n' {
			garbage[i] = 0
		}
	}
	for _, tc := range []struct {
		name  string
		in    string
		want  []string // code@line
		ids   []string
		check func(t *testing.T, s *session.Session)
	}{
		{
			name: "truncated-last-line",
			in:   sessHeader + sessMsg("a", "", "one") + sessMsg("b", "a", "two") + `{"type":"message","id":"c","parentId":"b","message":{"role":"us`,
			want: []string{"truncated@4"},
			ids:  []string{"a", "b"},
		},
		{
			name: "unknown-entry-types",
			in:   sessHeader + sessMsg("a", "", "one") + `{"type":"hologram","id":"h","parentId":"a","payload":[1,2]}` + "\n" + `{"type":42,"id":"n","parentId":"h"}` + "\n" + sessMsg("b", "n", "two"),
			want: []string{"unknown-type@3", "unknown-type@4", "bad-field@4"},
			ids:  []string{"a", "h", "n", "b"},
			check: func(t *testing.T, s *session.Session) {
				if br := s.Branch(s.Leaf()); len(br) != 4 {
					t.Errorf("unknown entries must stay in the tree: branch %d long", len(br))
				}
			},
		},
		{
			name: "parent-id-cycle",
			in:   sessHeader + sessMsg("a", "c", "one") + sessMsg("b", "a", "two") + sessMsg("c", "b", "three"),
			want: []string{"cycle@4"},
			ids:  []string{"a", "b", "c"},
			check: func(t *testing.T, s *session.Session) {
				if br := s.Branch(s.Leaf()); len(br) != 3 {
					t.Errorf("the cycle must be cut once: branch %d long", len(br))
				}
			},
		},
		{
			name: "self-parent",
			in:   sessHeader + sessMsg("a", "a", "one"),
			want: []string{"cycle@2"},
			ids:  []string{"a"},
		},
		{
			name: "id-appears-twice",
			in:   sessHeader + sessMsg("a", "", "first") + sessMsg("b", "a", "two") + sessMsg("a", "", "again"),
			want: []string{"duplicate-id@4"},
			ids:  []string{"a", "b", "a"},
			check: func(t *testing.T, s *session.Session) {
				if s.Entry("a").Line != 4 {
					t.Errorf("the later duplicate must win, as in Pi")
				}
			},
		},
		{
			name: "missing-header",
			in:   sessMsg("a", "", "one") + sessMsg("b", "a", "two"),
			want: []string{"no-header@1"},
			ids:  []string{"a", "b"},
		},
		{
			name: "mixed-versions-second-header",
			in:   sessHeader + sessMsg("a", "", "one") + `{"type":"session","version":1,"cwd":"/elsewhere"}` + "\n" + sessMsg("b", "a", "two"),
			want: []string{"unknown-type@3"},
			ids:  []string{"a", "b"},
			check: func(t *testing.T, s *session.Session) {
				if s.Header.Version != 3 || s.Header.Cwd != "/p" {
					t.Errorf("the second header replaced the first: %+v", s.Header)
				}
			},
		},
		{
			name: "mixed-versions-v3-header-v1-entries",
			in:   sessHeader + sessMsg("a", "", "one") + `{"type":"message","message":{"role":"user","content":"old style"}}` + "\n" + sessMsg("b", "a", "two"),
			want: []string{"missing-id@3"},
			ids:  []string{"a", "L3", "b"},
		},
		{
			name: "binary-garbage-line",
			in:   sessHeader + sessMsg("a", "", "one") + string(garbage) + "\n" + sessMsg("b", "a", "two"),
			want: []string{"bad-json@3"},
			ids:  []string{"a", "b"},
		},
		{
			name: "json-but-not-an-object",
			in:   sessHeader + "[1,2,3]\n\"text\"\nnull\n" + sessMsg("a", "", "one"),
			want: []string{"bad-json@2", "bad-json@3", "bad-json@4"},
			ids:  []string{"a"},
		},
		{
			name: "known-fields-of-wrong-types",
			in:   sessHeader + `{"type":"message","id":"a","parentId":"","message":{"role":7,"content":{"x":1}}}` + "\n" + sessMsg("b", "a", "two"),
			want: []string{"bad-field@2", "bad-field@2"},
			ids:  []string{"a", "b"},
		},
		{
			name: "empty-file",
			in:   "",
			want: nil,
			ids:  nil,
		},
		{
			name: "crlf-and-blank-lines",
			in:   strings.ReplaceAll(sessHeader+"\n\n"+sessMsg("a", "", "one")+sessMsg("b", "a", "two"), "\n", "\r\n"),
			want: nil,
			ids:  []string{"a", "b"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := session.Read(strings.NewReader(tc.in), "bad.jsonl", nil)
			if err != nil {
				t.Fatal(err)
			}
			walkAll(t, s)
			var ids []string
			for _, e := range s.Entries {
				ids = append(ids, e.ID)
			}
			if d := cmp.Diff(tc.ids, ids, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("entries kept (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.want, diagCodes(s), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%v", d, s.Diagnostics)
			}
			for _, d := range s.Diagnostics {
				if d.File != "bad.jsonl" || !strings.HasPrefix(d.String(), fmt.Sprintf("bad.jsonl:%d: ", d.Line)) || d.Message == "" {
					t.Errorf("diagnostic %q does not name the file and line", d.String())
				}
			}
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}

// hugeLineSession is a session whose second entry is a user message of
// about size bytes, followed by a normal entry. It streams: nothing of
// that size is held by the writer.
func hugeLineSession(size int) io.Reader {
	head := sessHeader + sessMsg("a", "", "before") + `{"type":"message","id":"big","parentId":"a","message":{"role":"user","content":"`
	tail := `"}}` + "\n" + sessMsg("b", "big", "after")
	return io.MultiReader(strings.NewReader(head), testio.Repeat('z', size), strings.NewReader(tail))
}

// TestHostileSessionHugeLine: a 50 MB line is either read (it fits the
// default 64 MiB line limit) or, under a smaller limit, skipped with a
// diagnostic without being held in memory; the entries around it are kept
// either way.
func TestHostileSessionHugeLine(t *testing.T) {
	const size = 50 << 20
	t.Run("under-a-1MiB-limit", func(t *testing.T) {
		var s *session.Session
		grew := testio.Allocated(func() {
			var err error
			s, err = session.Read(hugeLineSession(size), "big.jsonl", &session.Options{MaxLine: mib})
			if err != nil {
				t.Fatal(err)
			}
		})
		if d := cmp.Diff([]string{"line-too-long@3", "missing-parent@4"}, diagCodes(s)); d != "" {
			t.Errorf("diagnostics (-want +got):\n%s", d)
		}
		if len(s.Entries) != 2 || s.Entries[1].ParentID != "big" {
			t.Errorf("entries around the long line: %d", len(s.Entries))
		}
		if grew > 8*mib {
			t.Errorf("skipping a 50 MiB line allocated %d MiB", grew/mib)
		}
		t.Logf("50 MiB line skipped under a 1 MiB limit: %.1f MiB allocated", float64(grew)/mib)
	})
	t.Run("under-the-default-limit", func(t *testing.T) {
		var s *session.Session
		grew := testio.Allocated(func() {
			var err error
			s, err = session.Read(hugeLineSession(size), "big.jsonl", nil)
			if err != nil {
				t.Fatal(err)
			}
		})
		if len(s.Diagnostics) != 0 || len(s.Entries) != 3 || len(s.Entries[1].Message.Blocks[0].Text) != size {
			t.Fatalf("diagnostics %v, %d entries", s.Diagnostics, len(s.Entries))
		}
		// The line is gathered in blocks and copied once into the string
		// the entries share: about twice its size, never more than three
		// times (growing one buffer used to cost 319 MiB, 6.4×).
		if grew > 3*size {
			t.Errorf("reading a 50 MiB line allocated %d MiB", grew/mib)
		}
		t.Logf("50 MiB line read under the default limit: %.0f MiB allocated", float64(grew)/mib)
	})
	t.Run("over-the-default-limit", func(t *testing.T) {
		var s *session.Session
		grew := testio.Allocated(func() {
			var err error
			s, err = session.Read(hugeLineSession(session.DefaultMaxLine+mib), "big.jsonl", nil)
			if err != nil {
				t.Fatal(err)
			}
		})
		if d := cmp.Diff([]string{"line-too-long@3", "missing-parent@4"}, diagCodes(s)); d != "" {
			t.Errorf("diagnostics (-want +got):\n%s", d)
		}
		// At most about the limit is gathered before the line is known
		// to be too long (it used to cost 337 MiB, 5×).
		if grew > session.DefaultMaxLine*3/2 {
			t.Errorf("a line over the limit allocated %d MiB", grew/mib)
		}
		t.Logf("65 MiB line over the default limit: %.0f MiB allocated", float64(grew)/mib)
	})
}

// TestHostileReplayBadSession: the replay command reads a damaged session
// to the end and names the file and line of each problem.
func TestHostileReplayBadSession(t *testing.T) {
	dir := t.TempDir()
	file := write(t, dir+"/bad.jsonl", []byte(sessHeader+sessMsg("a", "", "one")+"{broken\n"+sessMsg("b", "a", "two")+`{"type":"message","id":"c",`))
	code, out, errOut := runCLI(t, "replay", "--json", file)
	all := out + errOut
	for _, want := range []string{file + ":3", file + ":5"} {
		if !strings.Contains(all, want) {
			t.Errorf("replay output does not name %s (exit %d):\n%s", want, code, truncateName(all))
		}
	}
	if code != 0 {
		t.Errorf("replay exit %d on a damaged but readable session:\n%s", code, all)
	}
	if bytes.Contains([]byte(all), []byte("panic")) {
		t.Errorf("panic:\n%s", all)
	}
}
