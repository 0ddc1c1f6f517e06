package conf

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLinesAndRaw(t *testing.T) {
	src := "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [true,\n      null]\n  },\n  \"a\": \"x\"\n}"
	n, err := Parse([]byte(src), 10)
	if err != nil {
		t.Fatal(err)
	}
	if n.Kind != Object || n.Line != 10 || len(n.Members) != 3 {
		t.Fatalf("root %+v", n)
	}
	var got []string
	for _, m := range n.Members {
		got = append(got, fmt.Sprintf("%s@%d", m.Name, m.Line))
	}
	if d := cmp.Diff([]string{"a@11", "b@12", "a@16"}, got); d != "" {
		t.Errorf("members (-want +got):\n%s", d)
	}
	if a := n.Get("a"); a.Kind != String || a.Text != "x" {
		t.Errorf("Get returns %+v, want the last value", a)
	}
	b := n.Get("b")
	if want := "{\n    \"c\": [true,\n      null]\n  }"; string(b.Raw()) != want {
		t.Errorf("raw %q, want %q", b.Raw(), want)
	}
	c := b.Get("c")
	if c.Line != 13 || c.Items[0].Line != 13 || c.Items[1].Line != 14 || c.Items[1].Kind != Null {
		t.Errorf("list lines: %d, items %+v %+v", c.Line, c.Items[0], c.Items[1])
	}
	if n, _ := Parse([]byte(src), 0); n.Line != 0 || n.Members[2].Line != 0 {
		t.Errorf("parsed without lines, got lines")
	}
}

func TestParseSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		src  string
		line int
		msg  string
	}{
		{"{\n  \"a\": 1,\n  \"b\" 2\n}", 3, "after object key"},
		{"{\n  // no\n}", 2, "JSON has no comments"},
		{"{\n  \"a\": [1,", 2, "ends before the object is closed"},
		{"[1,", 1, "ends before the list is closed"},
		{`{"a": 1} x`, 1, "trailing text"},
		{strings.Repeat("[", 20000) + strings.Repeat("]", 20000), 1, "nested more than 10000 deep"},
		{"\x00", 1, "invalid character"},
	} {
		_, err := Parse([]byte(tc.src), 1)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != tc.line || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("Parse(%.30q) = %v (line %d), want line %d and %q", tc.src, err, se.lineOr(), tc.line, tc.msg)
		}
	}
}

func (e *SyntaxError) lineOr() int {
	if e == nil {
		return -1
	}
	return e.Line
}

type item struct {
	Name   string   `json:"name" conf:",required,trim,nonempty"`
	Weight float64  `json:"weight" conf:",min=0,max=10"`
	Tags   []string `json:"tags"`
}

func (it *item) DefaultConf() { it.Weight = 1 }

type inner struct {
	On    bool `json:"on"`
	Count int  `json:"count" conf:",min=1,max=5"`
}

func (in *inner) CheckConf(d *Decoder, key string) {
	if in.On && in.Count == 5 {
		d.Warn(key+".count", "5 is a lot")
	}
}

type shape struct {
	Mode  string            `json:"mode" conf:",trim,lower,oneof=fast|slow"`
	Items []item            `json:"items" conf:",item=thing"`
	Names []string          `json:"names" conf:",trim,nonempty,minitems=1,item=name"`
	By    map[string]int    `json:"by" conf:",min=0,max=3"`
	In    inner             `json:"in"`
	Ptr   *inner            `json:"ptr"`
	Raw   json.RawMessage   `json:"raw"`
	Skip  string            `json:"-"`
	Free  map[string]string `conf:"free"`
}

func decode(t *testing.T, src string) (shape, []string) {
	t.Helper()
	n, err := Parse([]byte(src), 1)
	if err != nil {
		t.Fatal(err)
	}
	d := Decoder{File: "f"}
	v := shape{In: inner{Count: 2}}
	d.Decode(n, "", &v)
	var ds []string
	for _, x := range d.Diags {
		ds = append(ds, x.String())
	}
	if d.Failed() != strings.Contains(strings.Join(ds, "\n"), ": error: ") {
		t.Errorf("Failed() = %v with %q", d.Failed(), ds)
	}
	return v, ds
}

func TestDecodeValues(t *testing.T) {
	v, ds := decode(t, `{"mode": " FAST ", "items": [{"name": " a "}, {"name": "b", "weight": 2.5, "tags": ["x"]}],
		"names": [" n "], "by": {"z": 1, "a": 0}, "in": {"on": true}, "ptr": {"count": 1}, "raw": {"k": [1]}, "free": {"x": "y"}}`)
	if len(ds) != 0 {
		t.Fatalf("diagnostics: %q", ds)
	}
	want := shape{Mode: "fast", Items: []item{{Name: "a", Weight: 1}, {Name: "b", Weight: 2.5, Tags: []string{"x"}}},
		Names: []string{"n"}, By: map[string]int{"a": 0, "z": 1}, In: inner{On: true, Count: 2},
		Ptr: &inner{Count: 1}, Raw: json.RawMessage(`{"k": [1]}`), Free: map[string]string{"x": "y"}}
	if d := cmp.Diff(want, v); d != "" {
		t.Errorf("decoded (-want +got):\n%s", d)
	}
	if v, _ := decode(t, `{"ptr": null, "raw": null}`); v.Ptr != nil || string(v.Raw) != "null" {
		t.Errorf("null: ptr %v, raw %q", v.Ptr, v.Raw)
	}
}

func TestDecodeProblems(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{`{"mode": "medium"}`, []string{`f:1: error: mode: must be "fast" or "slow", got "medium"`}},
		{`{"mode": 1}`, []string{`f:1: error: mode: must be a string, got the number 1`}},
		{"{\n\"items\": [\n{\"weight\": 11},\n 3]}", []string{
			"f:3: error: items[0].weight: 11 is too large: it must be from 0 to 10",
			`f:3: error: items[0]: missing "name"`,
			"f:4: error: items[1]: must be an object {name, weight?, tags?}, got the number 3"}},
		{`{"items": {}}`, []string{"f:1: error: items: must be a list of things {name, weight?, tags?}, got an object"}},
		{`{"items": [{"name": "a", "wieght": 1}]}`, []string{`f:1: warning: items[0].wieght: unknown key in a thing, ignored (did you mean "weight"?)`}},
		{`{"names": []}`, []string{"f:1: error: names: must hold at least one name"}},
		{`{"names": ["a", " "]}`, []string{"f:1: error: names[1]: is an empty name"}},
		{`{"by": {"a": -1, "b": 1.5, "c": 1e999}}`, []string{
			"f:1: error: by.a: -1 is negative: it must be from 0 to 3",
			"f:1: error: by.b: must be a whole number, got 1.5",
			"f:1: error: by.c: the number 1e999 is out of range (0 to 3)"}},
		{`{"in": {"on": "yes", "count": 5, "size": 1}}`, []string{
			"f:1: error: in.on: must be true or false, got the string \"yes\"",
			"f:1: warning: in.size: unknown key in in, ignored (known: on, count)"}},
		{`{"in": {"on": true, "count": 5}}`, []string{"f:1: warning: in.count: 5 is a lot"}},
		{`{"raw": 3}`, []string{"f:1: error: raw: must be an object or null, got the number 3"}},
		{`{"mdoe": 1, "Skip": 2}`, []string{
			`f:1: warning: mdoe: unknown key, ignored (did you mean "mode"?)`,
			"f:1: warning: Skip: unknown key, ignored"}},
		{"{\"mode\": \"fast\",\n\"mode\": \"slow\"}", []string{"f:2: warning: mode: the key appears more than once; the last value is used"}},
	} {
		_, ds := decode(t, tc.src)
		if d := cmp.Diff(tc.want, ds); d != "" {
			t.Errorf("%s: diagnostics (-want +got):\n%s", tc.src, d)
		}
	}
}

// TestDecodeBoundsDiagnostics: a file of many problems keeps the first
// MaxDiagnostics and counts the others in one last diagnostic.
func TestDecodeBoundsDiagnostics(t *testing.T) {
	_, ds := decode(t, `{"names": [`+strings.Repeat(`1, `, 500)+`1]}`)
	if len(ds) != MaxDiagnostics+1 || !strings.Contains(ds[MaxDiagnostics], "401 more problems") {
		t.Errorf("%d diagnostics, the last %q", len(ds), ds[len(ds)-1])
	}
}

func TestKeysAndCopy(t *testing.T) {
	if d := cmp.Diff([]string{"mode", "items", "names", "by", "in", "ptr", "raw", "free"}, Keys(&shape{})); d != "" {
		t.Errorf("keys (-want +got):\n%s", d)
	}
	dst, src := shape{Mode: "fast"}, shape{Mode: "slow", Names: []string{"a"}}
	if !Copy(&dst, &src, "names") || Copy(&dst, &src, "nope") || dst.Mode != "fast" || len(dst.Names) != 1 {
		t.Errorf("Copy: %+v", dst)
	}
}
