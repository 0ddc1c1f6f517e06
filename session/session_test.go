package session

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func read(t *testing.T, text string, opts *Options) *Session {
	t.Helper()
	s, err := Read(strings.NewReader(text), "t.jsonl", opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func codes(s *Session) []string {
	var out []string
	for _, d := range s.Diagnostics {
		out = append(out, d.Code+"@"+strconv.Itoa(d.Line))
	}
	return out
}

// texts renders a context as role:text lines for comparison.
func texts(msgs []ContextMessage) []string {
	var out []string
	for _, m := range msgs {
		var parts []string
		for _, b := range m.Message.Blocks {
			switch b.Type {
			case "text":
				parts = append(parts, b.Text)
			case "toolCall":
				parts = append(parts, "call:"+b.Name)
			}
		}
		out = append(out, m.Message.Role+":"+strings.Join(parts, "|"))
	}
	return out
}

const hdr3 = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}` + "\n"

func msg(id, parent, role, text string) string {
	p := `null`
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"` + role + `","content":[{"type":"text","text":"` + text + `"}],"timestamp":1}}` + "\n"
}

func TestTreeBranchesAndLeaves(t *testing.T) {
	// a -> b -> c, and b -> d (a second branch, last in the file).
	s := read(t, hdr3+msg("a", "", "user", "hi")+msg("b", "a", "assistant", "yo")+msg("c", "b", "user", "left")+msg("d", "b", "user", "right"), nil)
	if len(s.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", s.Diagnostics)
	}
	var leaves []string
	for _, e := range s.Leaves() {
		leaves = append(leaves, e.ID)
	}
	if d := cmp.Diff([]string{"c", "d"}, leaves); d != "" {
		t.Errorf("leaves (-want +got):\n%s", d)
	}
	tests := []struct {
		leaf string
		want []string
	}{
		{"d", []string{"user:hi", "assistant:yo", "user:right"}},
		{"c", []string{"user:hi", "assistant:yo", "user:left"}},
		{"b", []string{"user:hi", "assistant:yo"}},
	}
	for _, tc := range tests {
		got := texts(BuildContext(s.Branch(s.Entry(tc.leaf))))
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("leaf %s (-want +got):\n%s", tc.leaf, d)
		}
	}
	if s.Leaf().ID != "d" {
		t.Errorf("default leaf %s, want d", s.Leaf().ID)
	}
}

func TestV1MigrationAndCompaction(t *testing.T) {
	// v1: no ids; firstKeptEntryIndex counts parsed lines, header = 0.
	in := `{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p","provider":"anthropic","modelId":"m","thinkingLevel":"off"}
{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"one"}],"timestamp":1}}
{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"two"}],"provider":"anthropic","model":"m","usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"cost":{"input":0.1,"output":0.2,"cacheRead":0.3,"cacheWrite":0.4,"total":1}},"stopReason":"stop","timestamp":2}}
{"type":"message","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"three"}}
{"type":"compaction","timestamp":"2025-01-01T00:00:04.000Z","summary":"S","firstKeptEntryIndex":3,"tokensBefore":10}
{"type":"message","timestamp":"2025-01-01T00:00:05.000Z","message":{"role":"bashExecution","command":"ls","output":"x","exitCode":2,"cancelled":false,"truncated":false,"timestamp":5}}
{"type":"message","timestamp":"2025-01-01T00:00:06.000Z","message":{"role":"bashExecution","command":"secret","output":"y","exitCode":0,"cancelled":false,"truncated":false,"excludeFromContext":true,"timestamp":6}}
`
	s := read(t, in, nil)
	if len(s.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", s.Diagnostics)
	}
	if s.Header.Version != 1 || s.Header.ModelID != "m" {
		t.Errorf("header %+v", s.Header)
	}
	var ids, parents []string
	for _, e := range s.Entries {
		ids = append(ids, e.ID)
		parents = append(parents, e.ParentID)
	}
	if d := cmp.Diff([]string{"L2", "L3", "L4", "L5", "L6", "L7"}, ids); d != "" {
		t.Errorf("ids:\n%s", d)
	}
	if d := cmp.Diff([]string{"", "L2", "L3", "L4", "L5", "L6"}, parents); d != "" {
		t.Errorf("parents:\n%s", d)
	}
	if got := s.Entries[3].FirstKeptEntryID; got != "L4" {
		t.Errorf("firstKeptEntryId %q, want L4 (third parsed line)", got)
	}
	u := s.Entries[1].Message.Usage
	if u == nil || u.CacheWrite != 4 || !u.HasCost || u.Cost.Total != 1 {
		t.Errorf("usage %+v", u)
	}
	want := []string{
		"user:" + CompactionSummaryPrefix + "S" + CompactionSummarySuffix,
		"user:three",
		"user:Ran `ls`\n```\nx\n```\n\nCommand exited with code 2",
	}
	if d := cmp.Diff(want, texts(BuildContext(s.Branch(s.Leaf())))); d != "" {
		t.Errorf("context (-want +got):\n%s", d)
	}
	// Before the compaction the context is the plain history.
	b := NewContextBuilder(s.Branch(s.Leaf()))
	for b.Pos() < 3 {
		b.Step()
	}
	if d := cmp.Diff([]string{"user:one", "assistant:two", "user:three"}, texts(b.Messages())); d != "" {
		t.Errorf("before compaction:\n%s", d)
	}
}

func TestBranchSummaryCustomAndHookMessage(t *testing.T) {
	in := `{"type":"session","version":2,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}
{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"q"}],"timestamp":1}}
{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"hookMessage","customType":"x","content":"hook","display":true,"timestamp":2}}
{"type":"custom","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03.000Z","customType":"state","data":{"k":1}}
{"type":"custom_message","id":"d","parentId":"c","timestamp":"2026-01-01T00:00:04.000Z","customType":"note","content":"injected","display":false}
{"type":"branch_summary","id":"e","parentId":"a","timestamp":"2026-01-01T00:00:05.000Z","fromId":"a","summary":"went elsewhere"}
{"type":"label","id":"f","parentId":"e","timestamp":"2026-01-01T00:00:06.000Z","targetId":"a","label":"x"}
`
	s := read(t, in, nil)
	if len(s.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %v", s.Diagnostics)
	}
	if r := s.Entry("b").Message.Role; r != RoleCustom {
		t.Errorf("hookMessage migrated to %q", r)
	}
	got := texts(BuildContext(s.Branch(s.Entry("d"))))
	if d := cmp.Diff([]string{"user:q", "user:hook", "user:injected"}, got); d != "" {
		t.Errorf("custom branch:\n%s", d)
	}
	got = texts(BuildContext(s.Branch(s.Leaf())))
	want := []string{"user:q", "user:" + BranchSummaryPrefix + "went elsewhere" + BranchSummarySuffix}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("summary branch:\n%s", d)
	}
}

func TestBadInputIsReportedNotFatal(t *testing.T) {
	long := `{"type":"message","id":"x","parentId":"a","message":{"role":"user","content":"` + strings.Repeat("z", 300) + `"}}` + "\n"
	tests := []struct {
		name  string
		in    string
		opts  *Options
		want  []string
		ids   []string
		check func(t *testing.T, s *Session)
	}{
		{
			name: "corrupt, unknown, wrong type, truncated",
			in: hdr3 + msg("a", "", "user", "1") + "{not json\n" +
				`{"type":"future_thing","id":"u","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","x":1}` + "\n" +
				`{"type":"compaction","id":"k","parentId":"u","summary":5,"firstKeptEntryId":"a"}` + "\n" +
				`{"type":"message","id":"t","parentId":"k","message":{"ro`,
			want: []string{"bad-json@3", "unknown-type@4", "bad-field@5", "truncated@6"},
			ids:  []string{"a", "u", "k"},
			check: func(t *testing.T, s *Session) {
				if s.Entry("u").Raw == "" {
					t.Error("unknown entry not kept raw")
				}
			},
		},
		{
			name: "line too long is skipped",
			in:   hdr3 + msg("a", "", "user", "1") + long + msg("b", "a", "user", "2"),
			opts: &Options{MaxLine: 200},
			want: []string{"line-too-long@3"},
			ids:  []string{"a", "b"},
		},
		{
			name: "duplicate id, missing parent, cycle",
			in: hdr3 + msg("a", "", "user", "1") + msg("a", "", "user", "again") + msg("b", "zz", "user", "2") +
				msg("c", "d", "user", "3") + msg("d", "c", "user", "4"),
			want: []string{"duplicate-id@3", "missing-parent@4", "cycle@6"},
			ids:  []string{"a", "a", "b", "c", "d"},
			check: func(t *testing.T, s *Session) {
				br := s.Branch(s.Leaf())
				if len(br) != 2 || br[0].ID != "c" || br[1].ID != "d" {
					t.Errorf("cycle branch %v", br)
				}
				if s.Entry("a").Line != 3 {
					t.Error("a later duplicate should win")
				}
			},
		},
		{
			name: "no header, v3 entry without id",
			in:   msg("a", "", "user", "1") + `{"type":"message","message":{"role":"user","content":"2"}}` + "\n",
			want: []string{"no-header@1", "missing-id@2"},
			ids:  []string{"a", "L2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := read(t, tc.in, tc.opts)
			var ids []string
			for _, e := range s.Entries {
				ids = append(ids, e.ID)
			}
			if d := cmp.Diff(tc.ids, ids); d != "" {
				t.Errorf("ids (-want +got):\n%s", d)
			}
			if tc.check != nil {
				tc.check(t, s)
			}
			got := codes(s)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%v", d, s.Diagnostics)
			}
		})
	}
}
