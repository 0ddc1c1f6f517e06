//go:build e2e

package e2e

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Expected values were produced with Python 3:
// json.dumps(json.loads(in), ensure_ascii=False, separators=(",", ":")).
func TestCanonicalJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"b":"é\u00e9<&>\u2028/\/","a":[1, 2.50, {"x":null, "y":true}],"c":"\u0001\ttab\"q\\"}`,
			"{\"b\":\"éé<&>\u2028//\",\"a\":[1,2.5,{\"x\":null,\"y\":true}],\"c\":\"\\u0001\\ttab\\\"q\\\\\"}"},
		{`[ ]`, `[]`},
		{`{"k":"\ud83d\ude00 emoji"}`, `{"k":"😀 emoji"}`},
		{`[1e16, 1.5e-5, 0.0001, 123456789012345.6, -0.0, 1E2, -7]`, `[1e+16,1.5e-05,0.0001,123456789012345.6,-0.0,100.0,-7]`},
		{"{\"z\":1,\n \"a\":\"line\\nbreak\\r\\b\\f\"}", `{"z":1,"a":"line\nbreak\r\b\f"}`},
	}
	for _, c := range cases {
		got, err := canonicalJSON([]byte(c.in))
		if err != nil {
			t.Errorf("canonicalJSON(%s): %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("canonicalJSON(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	for _, bad := range []string{`{"a":}`, `[1,2`, `{"a":1} x`} {
		if _, err := canonicalJSON([]byte(bad)); err == nil {
			t.Errorf("canonicalJSON(%s) accepted bad JSON", bad)
		}
	}
}

func TestEstimateUsage(t *testing.T) {
	tools := json.RawMessage(`[{"type":"function","function":{"name":"read"}}]`)
	msgs1 := json.RawMessage(`[{"role":"user","content":"héllo"}]`)
	msgs2 := json.RawMessage(`[{"role":"user","content":"héllo"},{"role":"assistant","content":"ok"}]`)
	s1, err := usageString(tools, msgs1)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := usageString(tools, msgs2)
	if err != nil {
		t.Fatal(err)
	}
	// Checked with Python: s1 = tools (48 code points) + msgs1 (35) = 83,
	// s2 = 119 code points, their common prefix 82 (s1 without its "]").
	cases := []struct {
		s, prev, out string
		want         Usage
	}{
		{s1, "", "", Usage{PromptTokens: 21, CachedTokens: 0, CompletionTokens: 0}},
		{s1, s1, "abcde", Usage{PromptTokens: 21, CachedTokens: 20, CompletionTokens: 2}},
		{s2, s1, "read{\"path\":\"é\"}", Usage{PromptTokens: 30, CachedTokens: 20, CompletionTokens: 4}},
	}
	for i, c := range cases {
		if got := estimateUsage(c.s, c.prev, c.out); got != c.want {
			t.Errorf("case %d: %s", i, cmp.Diff(c.want, got))
		}
	}
	if n := commonPrefixRunes("aé", "aè"); n != 1 {
		t.Errorf("commonPrefixRunes splits a rune: %d", n)
	}
}
