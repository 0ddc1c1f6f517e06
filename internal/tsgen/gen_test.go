package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
)

// TestWireUpToDate: extension/wire.ts is what the generator writes from
// the Go types today, so a change to the wire cannot leave the bridge's
// types behind unnoticed (tsc, in scripts/test.sh, then checks the bridge
// against them).
func TestWireUpToDate(t *testing.T) {
	root, module, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	want, err := generate(theWire(root, module))
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	path := filepath.Join(root, "extension", "wire.ts")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the committed file: %v", err)
	}
	if diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n")); diff != "" {
		t.Errorf("extension/wire.ts is out of date with the Go types of the protocol: run `go generate ./...` (-generated +committed):\n%s", diff)
	}
}

type inner struct {
	Deep string `json:"deep"`
}

type embedded struct {
	Flat int `json:"flat"`
}

type shapes struct {
	embedded
	Plain    string          `json:"plain"`
	Opt      string          `json:"opt,omitempty"`
	Zero     int             `json:"zero,omitzero"`
	Ptr      *inner          `json:"ptr"`
	OptPtr   *bool           `json:"optPtr,omitempty"`
	List     []inner         `json:"list"`
	OptList  []string        `json:"optList,omitempty"`
	PtrList  []*inner        `json:"ptrList"`
	Map      map[string]int  `json:"map"`
	Raw      json.RawMessage `json:"raw"`
	Any      any             `json:"any"`
	Bytes    []byte          `json:"bytes"`
	Quoted   int64           `json:"quoted,string"`
	Skipped  string          `json:"-"`
	Untagged float64
	Anon     struct{ A bool }  `json:"anon"`
	Empty    struct{}          `json:"empty"`
	Named    map[string][]bool `json:"named,omitempty"`
	PtrSlice *[]int            `json:"ptrSlice"`
}

func shapesSpec(received bool) spec {
	s := spec{}
	if received {
		s.requests = []method{{"get", nil, shapes{}}}
	} else {
		s.requests = []method{{"put", shapes{}, nil}}
	}
	return s
}

// TestShapes: each Go field shape has the TypeScript form encoding/json
// gives it; a nil slice or map is null only where the sidecar sends it.
func TestShapes(t *testing.T) {
	common := []string{
		"export interface shapes {",
		"\tflat: number;",
		"\tplain: string;",
		"\topt?: string;",
		"\tzero?: number;",
		"\tptr: inner | null;",
		"\toptPtr?: boolean;",
		"\toptList?: string[];",
		"\traw: unknown;",
		"\tany: unknown;",
		"\tbytes: string;",
		"\tquoted: string;",
		"\tUntagged: number;",
		"\tanon: { A: boolean };",
		"\tempty: Record<string, never>;",
		"export interface inner {\n\tdeep: string;\n}",
	}
	sent := []string{
		`"put": { params: shapes; result: null };`,
		"\tlist: inner[];",
		"\tptrList: (inner | null)[];",
		"\tmap: Record<string, number>;",
		"\tnamed?: Record<string, boolean[]>;",
		"\tptrSlice: number[] | null;",
	}
	received := []string{
		`"get": { params: null; result: shapes };`,
		"\tlist: inner[] | null;",
		"\tptrList: (inner | null)[] | null;",
		"\tmap: Record<string, number> | null;",
		"\tnamed?: Record<string, boolean[] | null>;",
		"\tptrSlice: number[] | null;",
	}
	for _, c := range []struct {
		received bool
		want     []string
	}{{false, sent}, {true, received}} {
		out, err := generate(shapesSpec(c.received))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range append(append([]string{}, common...), c.want...) {
			if !strings.Contains(string(out), w) {
				t.Errorf("received=%v: output lacks %q:\n%s", c.received, w, out)
			}
		}
		for _, no := range []string{"Skipped", "embedded"} {
			if strings.Contains(string(out), no) {
				t.Errorf("received=%v: output has %q:\n%s", c.received, no, out)
			}
		}
	}
}

type withTime struct {
	At time.Time `json:"at"`
}

type dup struct {
	embedded
	Flat string `json:"flat"`
}

// TestRefuses: a type whose JSON form reflection cannot tell, and two
// properties or types with one name, stop the generator with a message.
func TestRefuses(t *testing.T) {
	for name, c := range map[string]struct {
		s    spec
		want string
	}{
		"marshaler": {spec{requests: []method{{"m", withTime{}, nil}}}, "time.Time marshals itself"},
		"property":  {spec{requests: []method{{"m", dup{}, nil}}}, `two fields named "flat"`},
		"func":      {spec{serverNotifications: []notification{{"n", struct{ F func() }{}}}}, "has no JSON form"},
		"constant":  {spec{consts: []constant{{"not a name", 1}}}, "constant not a name"},
		"enum":      {spec{enums: []any{0}}, "not a named string type"},
	} {
		_, err := generate(c.s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got error %v, want one containing %q", name, err, c.want)
		}
	}
}

// TestEnumValues: an enum's values come from the source, from its own
// package (lifecycle's load kinds) and from the roots' (protocol's
// "resource").
func TestEnumValues(t *testing.T) {
	root, module, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	g := &generator{s: theWire(root, module)}
	vals, err := g.enumValues(reflect.TypeFor[lifecycle.LoadKind]())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"command", "read", "reattach", "resource", "tool"}, vals); diff != "" {
		t.Errorf("load kinds (-want +got):\n%s", diff)
	}
}
