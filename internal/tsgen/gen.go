package main

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
)

// constant is a Go constant written as a TypeScript one.
type constant struct {
	name  string
	value any
}

// method is a request: its params and result (nil for JSON null).
type method struct {
	name           string
	params, result any
}

// notification is a notification and its params (nil for none).
type notification struct {
	name   string
	params any
}

// spec is everything generate writes.
type spec struct {
	consts              []constant
	requests            []method
	hostNotifications   []notification
	serverNotifications []notification
	enums               []any
	// root and module locate the module's source, where the enums'
	// values are read (reflection does not see constants).
	root, module string
}

// theWire is the protocol's spec (wire.go).
func theWire(root, module string) spec {
	return spec{consts, requests, hostNotifications, serverNotifications, enums, root, module}
}

// moduleRoot finds the go.mod above the working directory: the folder and
// the module path.
func moduleRoot() (dir, module string, err error) {
	dir, err = os.Getwd()
	if err != nil {
		return "", "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(b)
			if m == nil {
				return "", "", fmt.Errorf("%s: no module line", filepath.Join(dir, "go.mod"))
			}
			return dir, string(m[1]), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

var (
	rawMessage = reflect.TypeFor[json.RawMessage]()
	marshaler  = reflect.TypeFor[json.Marshaler]()
	textMarsh  = reflect.TypeFor[encoding.TextMarshaler]()
	identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)
)

// decl is one named Go type that gets a TypeScript declaration.
type decl struct {
	t reflect.Type
	// received: the sidecar sends it (in a result or a notification), so a
	// nil slice or map in it arrives as null.
	received bool
}

type generator struct {
	s      spec
	order  []*decl
	decls  map[reflect.Type]*decl
	names  map[string]reflect.Type
	values map[reflect.Type][]string // the enums' values
}

// generate writes the TypeScript file for s.
func generate(s spec) ([]byte, error) {
	g := &generator{s: s, decls: map[reflect.Type]*decl{}, names: map[string]reflect.Type{}, values: map[reflect.Type][]string{}}
	for _, e := range s.enums {
		t := reflect.TypeOf(e)
		if t.Kind() != reflect.String || t.Name() == "" {
			return nil, fmt.Errorf("enum %v: not a named string type", t)
		}
		vals, err := g.enumValues(t)
		if err != nil {
			return nil, err
		}
		g.values[t] = vals
	}
	// Reach every type from the roots, the sent ones first, so a type both
	// sides send is marked received when any path reaches it so.
	for _, m := range s.requests {
		if err := g.reach(m.params, false); err != nil {
			return nil, fmt.Errorf("%s params: %w", m.name, err)
		}
		if err := g.reach(m.result, true); err != nil {
			return nil, fmt.Errorf("%s result: %w", m.name, err)
		}
	}
	for _, n := range s.hostNotifications {
		if err := g.reach(n.params, false); err != nil {
			return nil, fmt.Errorf("%s: %w", n.name, err)
		}
	}
	for _, n := range s.serverNotifications {
		if err := g.reach(n.params, true); err != nil {
			return nil, fmt.Errorf("%s: %w", n.name, err)
		}
	}

	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("\n")
	for _, c := range s.consts {
		v, err := json.Marshal(c.value)
		if err != nil || !identifier.MatchString(c.name) {
			return nil, fmt.Errorf("constant %s: cannot write %v", c.name, c.value)
		}
		fmt.Fprintf(&b, "export const %s = %s;\n", c.name, v)
	}
	b.WriteString("\n/** The methods the host calls, with their params and results. */\nexport interface Requests {\n")
	for _, m := range s.requests {
		fmt.Fprintf(&b, "\t%s: { params: %s; result: %s };\n", quote(m.name), g.root(m.params), g.root(m.result))
	}
	b.WriteString("}\n\n/** The notifications the host sends, with their params. */\nexport interface HostNotifications {\n")
	for _, n := range s.hostNotifications {
		fmt.Fprintf(&b, "\t%s: %s;\n", quote(n.name), g.root(n.params))
	}
	b.WriteString("}\n\n/** The notifications the sidecar sends the host, with their params. */\nexport interface ServerNotifications {\n")
	for _, n := range s.serverNotifications {
		fmt.Fprintf(&b, "\t%s: %s;\n", quote(n.name), g.root(n.params))
	}
	b.WriteString("}\n")
	for _, d := range g.order {
		b.WriteString("\n")
		fmt.Fprintf(&b, "// %s\n", goName(d.t))
		if vals, ok := g.values[d.t]; ok {
			quoted := make([]string, len(vals))
			for i, v := range vals {
				quoted[i] = quote(v)
			}
			fmt.Fprintf(&b, "export type %s = %s;\n", d.t.Name(), strings.Join(quoted, " | "))
			continue
		}
		fmt.Fprintf(&b, "export interface %s {\n", d.t.Name())
		fs, err := fields(d.t)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			fmt.Fprintf(&b, "\t%s;\n", g.field(f, d.received))
		}
		b.WriteString("}\n")
	}
	return b.Bytes(), nil
}

const header = `// Code generated by internal/tsgen from the Go types of package protocol; DO NOT EDIT.
//
// The sidecar protocol (docs/protocol.md) as the bridge sees it: the
// params and results of every method, the notifications both ways, the
// types they use and the constants. internal/tsgen/wire.go lists the
// roots; change the Go types, then run ` + "`go generate ./...`" + `.
`

func goName(t reflect.Type) string {
	return path.Base(t.PkgPath()) + "." + t.Name()
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// reach records the named types v's type refers to.
func (g *generator) reach(v any, received bool) error {
	if v == nil {
		return nil
	}
	return g.visit(reflect.TypeOf(v), received)
}

func (g *generator) visit(t reflect.Type, received bool) error {
	if err := supported(t); err != nil {
		return err
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return g.visit(t.Elem(), received)
	case reflect.String:
		if _, ok := g.values[t]; ok {
			_, err := g.declare(t, received)
			return err
		}
		return nil
	case reflect.Struct:
		if t.Name() == "" {
			return g.visitFields(t, received)
		}
		again, err := g.declare(t, received)
		if err != nil || !again {
			return err
		}
		return g.visitFields(t, received)
	}
	return nil
}

func (g *generator) visitFields(t reflect.Type, received bool) error {
	fs, err := fields(t)
	if err != nil {
		return err
	}
	for _, f := range fs {
		if err := g.visit(f.t, received); err != nil {
			return fmt.Errorf("%s.%s: %w", goName(t), f.goName, err)
		}
	}
	return nil
}

// declare adds t's declaration; it reports whether t's fields need a
// (new) visit: t is new, or now known to be received.
func (g *generator) declare(t reflect.Type, received bool) (bool, error) {
	if d, ok := g.decls[t]; ok {
		if received && !d.received {
			d.received = true
			return true, nil
		}
		return false, nil
	}
	if other, ok := g.names[t.Name()]; ok {
		return false, fmt.Errorf("two types named %s: %s and %s (TypeScript has one namespace)", t.Name(), goName(other), goName(t))
	}
	g.names[t.Name()] = t
	d := &decl{t: t, received: received}
	g.decls[t] = d
	g.order = append(g.order, d)
	return true, nil
}

// supported refuses the types whose JSON form reflection cannot tell.
func supported(t reflect.Type) error {
	if t == rawMessage {
		return nil
	}
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) ||
		t.Implements(textMarsh) || reflect.PointerTo(t).Implements(textMarsh) {
		return fmt.Errorf("%v marshals itself: its JSON form is not known here (teach internal/tsgen)", t)
	}
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer, reflect.Uintptr:
		return fmt.Errorf("%v has no JSON form", t)
	}
	return nil
}

// root is the TypeScript type of a params or result value.
func (g *generator) root(v any) string {
	if v == nil {
		return "null"
	}
	return g.expr(reflect.TypeOf(v), true)
}

// expr is t in TypeScript; received says whether the value comes from the
// sidecar (where nil slices and maps arrive as null).
func (g *generator) expr(t reflect.Type, received bool) string {
	if t == rawMessage {
		return "unknown" // any JSON value
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		if _, ok := g.values[t]; ok {
			return t.Name()
		}
		return "string"
	case reflect.Interface:
		return "unknown"
	case reflect.Pointer:
		s := g.expr(t.Elem(), received)
		if !strings.HasSuffix(s, " | null") {
			s += " | null"
		}
		return s
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // base64
		}
		s := g.elem(t.Elem(), received) + "[]"
		if t.Kind() == reflect.Slice && received {
			s += " | null"
		}
		return s
	case reflect.Map:
		s := "Record<string, " + g.expr(t.Elem(), received) + ">"
		if received {
			s += " | null"
		}
		return s
	case reflect.Struct:
		if t.Name() != "" {
			return t.Name()
		}
		fs, _ := fields(t)
		if len(fs) == 0 {
			return "Record<string, never>"
		}
		parts := make([]string, len(fs))
		for i, f := range fs {
			parts[i] = g.field(f, received)
		}
		return "{ " + strings.Join(parts, "; ") + " }"
	}
	return "unknown"
}

// elem is an element type, parenthesised when it is a union.
func (g *generator) elem(t reflect.Type, received bool) string {
	s := g.expr(t, received)
	if strings.Contains(s, " | ") {
		return "(" + s + ")"
	}
	return s
}

// field is one property: an omitempty (omitzero) field may be left out,
// and is then never null; otherwise a nil pointer, slice or map is null.
func (g *generator) field(f field, received bool) string {
	name := f.name
	if !identifier.MatchString(name) {
		name = quote(name)
	}
	if f.asString {
		return name + optional(f.omit) + ": string"
	}
	t := f.t
	if !f.omit {
		return name + ": " + g.expr(t, received)
	}
	if t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		// Left out when nil or empty: present, it is not null.
		return name + "?: " + strings.TrimSuffix(g.expr(t, received), " | null")
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem() // left out when nil
	}
	return name + "?: " + g.expr(t, received)
}

func optional(omit bool) string {
	if omit {
		return "?"
	}
	return ""
}

// field is one JSON property of a struct.
type field struct {
	name, goName string
	t            reflect.Type
	omit         bool // omitempty or omitzero
	asString     bool // the ",string" option
}

// fields lists t's JSON properties as encoding/json writes them:
// exported fields by their tag's name, "-" left out, the fields of an
// embedded struct without a name of its own in line.
func fields(t reflect.Type) ([]field, error) {
	var out []field
	seen := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			et := sf.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				inner, err := fields(et)
				if err != nil {
					return nil, err
				}
				for _, f := range inner {
					if seen[f.name] {
						return nil, fmt.Errorf("%s: two fields named %q (write the type out)", goName(t), f.name)
					}
					seen[f.name] = true
					out = append(out, f)
				}
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if seen[name] {
			return nil, fmt.Errorf("%s: two fields named %q (write the type out)", goName(t), name)
		}
		seen[name] = true
		f := field{name: name, goName: sf.Name, t: sf.Type}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty", "omitzero":
				f.omit = true
			case "string":
				f.asString = true
			}
		}
		out = append(out, f)
	}
	return out, nil
}
