package skills

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// flat renders a node tree as the parts Parse reads: kind, value, the tag
// as ShortTag resolves it, and line.
func flat(n *yaml.Node) []string {
	if n == nil {
		return nil
	}
	out := []string{fmt.Sprintf("%d %q %s L%d", n.Kind, n.Value, n.ShortTag(), n.Line)}
	for _, c := range n.Content {
		out = append(out, flat(c)...)
	}
	return out
}

func checkFast(t *testing.T, fm string) bool {
	t.Helper()
	got, ok := fastYAML([]byte(fm))
	if !ok {
		return false
	}
	want, err := parseYAML([]byte(fm))
	if err != nil {
		t.Fatalf("fast path accepted %q, which yaml.v3 rejects: %v", fm, err)
	}
	if diff := cmp.Diff(flat(want), flat(got)); diff != "" {
		t.Fatalf("fast path differs from yaml.v3 on %q (-yaml +fast):\n%s", fm, diff)
	}
	return true
}

func TestFastYAML(t *testing.T) {
	tests := []struct {
		fm   string
		fast bool
	}{
		{"name: a\ndescription: b c d\n", true},
		{"name: a\r\ndescription: >\r\n  one\r\n  two\r\n", true},
		{"description: |\n  one\n  two\nlicense: MIT\n", true},
		{"metadata:\n  version: 1.0\n  role: entry\nname: x\n", true},
		{"disable-model-invocation: true\ndescription: null\nx: ~\ny:\n", true},
		{"a: 010\nb: 1e3\nc: .inf\nd: 2026-01-01\ne: yes\n", true},
		{"a: x,[y]{z}\n", true},
		{"\nname: a\n\n", true},
		{"name: 'quoted'\n", false},
		{"name: a # comment\n", false},
		{"name: a: b\n", false},
		{"description: >\n  one\n\n  two\n", false},
		{"description: >-\n  one\n", false},
		{"description: >\n  one\n    more\n", false},
		{"metadata:\n  deep:\n    x: 1\n", false},
		{"name: a\nname: b\n", false},
		{"name: café\n", true},
		{"description: >\n  Add a check — load x-y.\n  Ünïcode ✓ 😀\n", true},
		{"description: a\u00a0b\n", true},
		{"description: a\u0085b\n", false},
		{"description: a\u2028b\n", false},
		{"description: |\n  a\ufeffb\n", false},
		{"description: a\xffb\n", false},
		{"- a\n", false},
		{"a: &x 1\nb: *x\n", false},
		{"a: 1\n  b: 2\n", false},
		{"a:\tb\n", false},
		{"", false},
		{"# comment\n", false},
	}
	for _, tt := range tests {
		if got := checkFast(t, tt.fm); got != tt.fast {
			t.Errorf("fastYAML(%q) accepted = %v, want %v", tt.fm, got, tt.fast)
		}
	}
}

// FuzzFastYAML checks that whatever the fast path accepts, yaml.v3 parses
// to the same tree.
func FuzzFastYAML(f *testing.F) {
	for _, s := range []string{"name: a\ndescription: b\n", "description: >\n  a\n  b\nmetadata:\n  role: entry\n",
		"a: true\nb: null\nc: |\n  x\n", "k: v,w\n",
		"description: >\n  Add — é\n  ✓ b\n", "d: x\u00a0y\u2029\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, fm string) {
		if strings.Count(fm, "\n") > 200 {
			return
		}
		checkFast(t, fm)
	})
}
