package pricing

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCommonPrefix(t *testing.T) {
	tests := []struct {
		name string
		a, b []Segment
		want int
	}{
		{"identical", Segments("abcd", "ef"), Segments("abcd", "ef"), 6},
		{"appended", Segments("abcd", "ef"), Segments("abcd", "ef", "gh"), 6},
		{"second differs mid-way", Segments("abcd", "efgh"), Segments("abcd", "efXh"), 6},
		{"first differs", Segments("abcd"), Segments("xbcd"), 0},
		{"code points, not bytes", Segments("héllo"), Segments("hélp"), 3},
		{"multibyte first difference", Segments("aé"), Segments("aè"), 1},
		{"hash only: no text, no partial", []Segment{{Hash: 1, Len: 4}, {Hash: 2, Len: 9}}, []Segment{{Hash: 1, Len: 4}, {Hash: 3, Len: 9}}, 4},
		{"empty", nil, Segments("abc"), 0},
	}
	for _, tc := range tests {
		if got := CommonPrefix(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestMeterHandComputed(t *testing.T) {
	// Prices per million tokens: input 10 -> read 1 (0.1x), write 12.5
	// (1.25x); output 100. Characters per token 4.
	tab := NewTable()
	tab.Set("p", "m", Prices{Input: 10, Output: 100})
	tab.Set("p", "other", Prices{Input: 20, Output: 100, CacheRead: 1, CacheWrite: 30})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, b, c := "aaaaaaaa", "bbbbbbbb", "cccccccccccc" // 8, 8, 12 chars
	type want struct {
		prompt, read, write int
		cold                string
		usd                 float64
	}
	reqs := []struct {
		r Request
		w want
	}{
		// 16 chars = 4 tokens, all written: 4*12.5 + 10 out*100 (per M).
		{Request{Time: t0, Provider: "p", Model: "m", Segments: Segments(a, b), OutputTokens: 10},
			want{4, 0, 4, ColdFirst, (4*12.5 + 10*100) / 1e6}},
		// 28 chars = 7 tokens; 16 shared = 4 read, 3 written.
		{Request{Time: t0.Add(time.Minute), Provider: "p", Model: "m", Segments: Segments(a, b, c), OutputTokens: 1},
			want{7, 4, 3, Warm, (4*1 + 3*12.5 + 100) / 1e6}},
		// 6 minutes later: past the 5-minute lifetime, all written again.
		{Request{Time: t0.Add(7 * time.Minute), Provider: "p", Model: "m", Segments: Segments(a, b, c), OutputTokens: 0},
			want{7, 0, 7, ColdExpiry, 7 * 12.5 / 1e6}},
		// Middle segment changed at its 3rd character: prefix 8+2 = 10
		// chars -> floor(10/4) = 2 read, 5 written.
		{Request{Time: t0.Add(8 * time.Minute), Provider: "p", Model: "m", Segments: Segments(a, "bbXbbbbb", c)},
			want{7, 2, 5, Warm, (2*1 + 5*12.5) / 1e6}},
		// Model switch: cold whatever the text, priced at the other model's
		// explicit cache prices.
		{Request{Time: t0.Add(9 * time.Minute), Provider: "p", Model: "other", Segments: Segments(a, "bbXbbbbb", c)},
			want{7, 0, 7, ColdModel, 7 * 30 / 1e6}},
	}
	m := NewMeter(Options{TTL: 5 * time.Minute, Prices: tab})
	var total float64
	for i, tc := range reqs {
		got := m.Price(tc.r)
		g := want{got.PromptTokens, got.CacheReadTokens, got.CacheWriteTokens, got.Cold, got.Total}
		if d := cmp.Diff(tc.w, g, cmp.AllowUnexported(want{}), cmp.Comparer(approx)); d != "" {
			t.Errorf("request %d (-want +got):\n%s", i, d)
		}
		total += tc.w.usd
	}
	if !approx(m.Totals.Total, total) || m.Totals.Requests != 5 || m.Totals.ColdRequests != 3 || m.Totals.PeakPromptTokens != 7 {
		t.Errorf("totals %+v, want total %v", m.Totals, total)
	}
	// One warm break: request 4 lost 28-10 = 18 characters (> 16).
	if m.Totals.PrefixBreaks != 1 || m.Totals.BrokenPrefixChars != 18 {
		t.Errorf("breaks %d (%d chars), want 1 (18)", m.Totals.PrefixBreaks, m.Totals.BrokenPrefixChars)
	}
}

func TestNoTTLNeverExpires(t *testing.T) {
	m := NewMeter(Options{})
	t0 := time.Now()
	m.Price(Request{Time: t0, Segments: Segments("abcdefgh")})
	c := m.Price(Request{Time: t0.Add(24 * time.Hour), Segments: Segments("abcdefgh", "ij")})
	if c.Cold != Warm || c.CacheReadTokens != 2 || c.PromptTokens != 3 {
		t.Errorf("got %+v", c)
	}
	m.Reset()
	if c := m.Price(Request{Segments: Segments("abcdefgh")}); c.Cold != ColdFirst {
		t.Errorf("after reset: %+v", c)
	}
}

func TestParseTable(t *testing.T) {
	tab, err := ParseTable([]byte(`{"default":{"input":1,"output":2},"readMultiplier":0.025,
		"models":{"a/b":{"input":4,"output":8,"cacheWrite":5}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := []Prices{tab.For("a", "b"), tab.For("x", "y")}
	want := []Prices{{Input: 4, Output: 8, CacheRead: 0.1, CacheWrite: 5}, {Input: 1, Output: 2, CacheRead: 0.025, CacheWrite: 1.25}}
	if d := cmp.Diff(want, got, cmp.Comparer(approx)); d != "" {
		t.Errorf("prices (-want +got):\n%s", d)
	}
	for _, bad := range []string{`{"defaults":{}}`, `{"models":{"m":{"input":-1}}}`, `[`, `{"default":{"input":"x"}}`} {
		if _, err := ParseTable([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}
