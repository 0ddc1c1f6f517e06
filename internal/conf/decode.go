package conf

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Decoder decodes nodes into Go values, field by field by their tags, and
// collects the diagnostics, each with its key and line.
//
// A struct field is the key named by its `conf` tag, else by its `json`
// tag; a field without a name, or named "-", is not decoded. After the
// name, the tag's comma-separated options are:
//
//	min=N, max=N  the range of a number (default ±1e15); an int field
//	              takes whole numbers only
//	trim          a string's surrounding spaces are removed
//	lower         a string is lower-cased (so oneof ignores case)
//	nonempty      a string may not be empty (after trim)
//	oneof=a|b|c   a string must be one of these
//	minitems=N    a list holds at least N items
//	item=what     names a list's items in messages ("skill name")
//	required      the key must be there
//	inline        a struct field whose keys are the enclosing object's
//
// For a list or a map, the string options apply to its items. Values of
// other types: bool; a list ([]T); an object with free keys
// (map[string]T, decoded in key order); an object with the struct's keys;
// a pointer (null leaves it nil); json.RawMessage, an object or null kept
// as written, for a key that another package decodes. A list item or a
// map value with an error is left out. A type may decode itself
// (Unmarshaler), set its defaults (Defaulter) and check its values
// together (Checker).
//
// Keys not in the struct are warnings, with the closest known key; a key
// written twice is a warning, and the last value is used. Every other
// problem is an error. Objects are read in the order written.
type Decoder struct {
	File  string       // names the file in the diagnostics
	Diags []Diagnostic // what was found, in order (at most MaxDiagnostics)
	at    map[string]place
	// errs counts the errors found; more counts the diagnostics beyond
	// MaxDiagnostics; depth is the nesting of Decode calls.
	errs, more, depth int
}

// MaxDiagnostics is how many diagnostics a Decoder keeps; the others are
// counted in one last diagnostic.
const MaxDiagnostics = 100

// place is where a key was found: the line of its name, and its value.
type place struct {
	line int
	node *Node
}

// Unmarshaler is a type that decodes itself from n, reporting problems
// through d at key.
type Unmarshaler interface {
	UnmarshalConf(d *Decoder, n *Node, key string)
}

// Defaulter is a type with defaults: a list item, map value or pointer
// target of the type is set by DefaultConf before it is decoded. (A value
// decoded in place, such as a struct field, keeps what it held: its
// defaults are the enclosing value's.)
type Defaulter interface {
	DefaultConf()
}

// Checker is a struct type that checks its values together once decoded,
// reporting through d at key (the struct's key: key+".field" names a
// field).
type Checker interface {
	CheckConf(d *Decoder, key string)
}

// Decode decodes n, the value of key, into v, a non-nil pointer.
func (d *Decoder) Decode(n *Node, key string, v any) {
	d.note(key, n.Line, n)
	d.depth++
	d.value(n, key, reflect.ValueOf(v).Elem(), options{})
	d.depth--
	if d.depth == 0 && d.more > 0 {
		d.Diags = append(d.Diags, Diagnostic{File: d.File, Line: d.Line(key), Key: key, Severity: Warning,
			Message: fmt.Sprintf("%d more problems are not listed", d.more)})
		d.more = 0
	}
}

// Warn reports a warning at key.
func (d *Decoder) Warn(key, format string, a ...any) {
	d.add(Warning, d.Line(key), key, fmt.Sprintf(format, a...))
}

// Fail reports an error at key.
func (d *Decoder) Fail(key, format string, a ...any) {
	d.add(Error, d.Line(key), key, fmt.Sprintf(format, a...))
}

// Failed reports whether an error was reported.
func (d *Decoder) Failed() bool { return d.errs > 0 }

// Line is the line of key: where its name is written, or the closest
// enclosing key's when it is not written (a missing key, a list); 0 when
// unknown.
func (d *Decoder) Line(key string) int {
	for {
		if p, ok := d.at[key]; ok {
			return p.line
		}
		i := max(strings.LastIndexByte(key, '.'), strings.LastIndexByte(key, '['))
		if i < 0 {
			if key == "" {
				return 0
			}
			key = ""
			continue
		}
		key = key[:i]
	}
}

func (d *Decoder) add(sev Severity, line int, key, msg string) {
	if sev == Error {
		d.errs++
	}
	if len(d.Diags) >= MaxDiagnostics {
		d.more++
		return
	}
	d.Diags = append(d.Diags, Diagnostic{File: d.File, Line: line, Key: key, Severity: sev, Message: msg})
}

// Node is the value decoded at key (the last one, for a key written
// twice), or nil: a Checker finds there what the file says as written.
func (d *Decoder) Node(key string) *Node { return d.at[key].node }

func (d *Decoder) note(key string, line int, n *Node) {
	if d.at == nil {
		d.at = map[string]place{}
	}
	d.at[key] = place{line, n}
}

var rawType = reflect.TypeFor[json.RawMessage]()

func (d *Decoder) value(n *Node, key string, v reflect.Value, o options) {
	if v.CanAddr() {
		if u, ok := v.Addr().Interface().(Unmarshaler); ok {
			u.UnmarshalConf(d, n, key)
			return
		}
	}
	if v.Type() == rawType {
		if n.Kind != Object && n.Kind != Null {
			d.Fail(key, "must be an object or null, got %s", Describe(n))
			return
		}
		raw := []byte("null")
		if n.Kind == Object {
			raw = slices.Clone(n.Raw())
		}
		v.SetBytes(raw)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if n.Kind == Null {
			v.SetZero()
			return
		}
		p := fresh(v.Type().Elem())
		d.value(n, key, p.Elem(), o)
		v.Set(p)
	case reflect.Bool:
		if n.Kind != Bool {
			d.Fail(key, "must be true or false, got %s", Describe(n))
			return
		}
		v.SetBool(n.Text == "true")
	case reflect.Int, reflect.Int64, reflect.Int32:
		if x, ok := d.number(n, key, o, true); ok {
			v.SetInt(int64(x))
		}
	case reflect.Float64:
		if x, ok := d.number(n, key, o, false); ok {
			v.SetFloat(x)
		}
	case reflect.String:
		if s, ok := d.str(n, key, o); ok {
			v.SetString(s)
		}
	case reflect.Slice:
		d.list(n, key, v, o)
	case reflect.Map:
		d.mapping(n, key, v, o)
	case reflect.Struct:
		d.object(n, key, v, o)
	default:
		panic("conf: cannot decode into " + v.Type().String())
	}
}

// ok runs decode and reports whether it found no error.
func (d *Decoder) ok(decode func()) bool {
	before := d.errs
	decode()
	return d.errs == before
}

// fresh returns a pointer to a new value of type t with its defaults.
func fresh(t reflect.Type) reflect.Value {
	p := reflect.New(t)
	if df, ok := p.Interface().(Defaulter); ok {
		df.DefaultConf()
	}
	return p
}

func (d *Decoder) number(n *Node, key string, o options, whole bool) (float64, bool) {
	lo, hi := -1e15, 1e15
	if o.hasMin {
		lo = o.min
	}
	if o.hasMax {
		hi = o.max
	}
	what := "a number"
	if whole {
		what = "a whole number"
	}
	if n.Kind != Number {
		d.Fail(key, "must be %s from %s to %s, got %s", what, fmtNum(lo), fmtNum(hi), Describe(n))
		return 0, false
	}
	x, err := strconv.ParseFloat(n.Text, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) {
		d.Fail(key, "the number %s is out of range (%s to %s)", n.Text, fmtNum(lo), fmtNum(hi))
		return 0, false
	}
	if x < lo || x > hi {
		how := "too large"
		if x < lo {
			how = "too small"
			if x < 0 && lo == 0 {
				how = "negative"
			}
		}
		d.Fail(key, "%s is %s: it must be from %s to %s", n.Text, how, fmtNum(lo), fmtNum(hi))
		return 0, false
	}
	if whole && x != math.Trunc(x) {
		d.Fail(key, "must be a whole number, got %s", fmtNum(x))
		return 0, false
	}
	return x, true
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func (d *Decoder) str(n *Node, key string, o options) (string, bool) {
	if n.Kind != String {
		d.Fail(key, "must be a string, got %s", Describe(n))
		return "", false
	}
	s := n.Text
	if o.trim {
		s = strings.TrimSpace(s)
	}
	if o.lower {
		s = strings.ToLower(s)
	}
	if o.nonempty && s == "" {
		if o.item != "" {
			d.Fail(key, "is an empty %s", o.item)
		} else {
			d.Fail(key, "cannot be empty")
		}
		return "", false
	}
	if len(o.oneof) > 0 && !slices.Contains(o.oneof, s) {
		d.Fail(key, "must be %s, got %q", OneOf(o.oneof), n.Text)
		return "", false
	}
	return s, true
}

func (d *Decoder) list(n *Node, key string, v reflect.Value, o options) {
	t := v.Type()
	if n.Kind != Array {
		what := plural(t.Elem())
		if o.item != "" {
			what = o.item + "s"
			if t.Elem().Kind() == reflect.Struct {
				what += " " + fieldsOf(t.Elem()).shape()
			}
		}
		d.Fail(key, "must be a list of %s, got %s", what, Describe(n))
		return
	}
	out := reflect.MakeSlice(t, 0, len(n.Items))
	for i, it := range n.Items {
		k := fmt.Sprintf("%s[%d]", key, i)
		d.note(k, it.Line, it)
		p := fresh(t.Elem())
		if d.ok(func() { d.value(it, k, p.Elem(), o) }) {
			out = reflect.Append(out, p.Elem())
		}
	}
	if len(n.Items) < o.minItems {
		what := o.item
		if what == "" {
			what = "item"
		}
		if o.minItems == 1 {
			d.Fail(key, "must hold at least one %s", what)
		} else {
			d.Fail(key, "must hold at least %d %ss", o.minItems, what)
		}
	}
	v.Set(out)
}

func (d *Decoder) mapping(n *Node, key string, v reflect.Value, o options) {
	t := v.Type()
	if n.Kind != Object {
		d.Fail(key, "must be an object, got %s", Describe(n))
		return
	}
	members := d.distinct(n, key)
	sort.SliceStable(members, func(i, j int) bool { return members[i].Name < members[j].Name })
	m := reflect.MakeMapWithSize(t, len(members))
	for _, mem := range members {
		k := key + "." + mem.Name
		d.note(k, mem.Line, mem.Value)
		p := fresh(t.Elem())
		if d.ok(func() { d.value(mem.Value, k, p.Elem(), o) }) {
			m.SetMapIndex(reflect.ValueOf(mem.Name).Convert(t.Key()), p.Elem())
		}
	}
	v.Set(m)
}

// distinct warns of the keys of n written more than once, and returns its
// members with the last value of each key, in the order of those values.
func (d *Decoder) distinct(n *Node, key string) []Member {
	last := make(map[string]int, len(n.Members))
	for i, mem := range n.Members {
		if _, dup := last[mem.Name]; dup {
			k := join(key, mem.Name)
			d.add(Warning, mem.Line, k, "the key appears more than once; the last value is used")
		}
		last[mem.Name] = i
	}
	out := make([]Member, 0, len(last))
	for i, mem := range n.Members {
		if last[mem.Name] == i {
			out = append(out, mem)
		}
	}
	return out
}

func join(key, name string) string {
	if key == "" {
		return name
	}
	return key + "." + name
}

func (d *Decoder) object(n *Node, key string, v reflect.Value, o options) {
	fs := fieldsOf(v.Type())
	if n.Kind != Object {
		d.Fail(key, "must be an object %s, got %s", fs.shape(), Describe(n))
		return
	}
	for _, mem := range d.distinct(n, key) {
		k := join(key, mem.Name)
		d.note(k, mem.Line, mem.Value)
		f, ok := fs.byName[mem.Name]
		if !ok {
			d.unknown(k, key, o.item, mem.Name, fs)
			continue
		}
		d.value(mem.Value, k, v.FieldByIndex(f.index), f.opts)
	}
	for _, f := range fs.list {
		if f.opts.required && n.Get(f.name) == nil {
			d.Fail(key, "missing %q", f.name)
		}
	}
	if c, ok := v.Addr().Interface().(Checker); ok {
		c.CheckConf(d, key)
	}
}

func (d *Decoder) unknown(k, key, item, name string, fs *fields) {
	msg := "unknown key"
	switch {
	case item != "":
		msg += " in " + article(item) + " " + item
	case key != "":
		msg += " in " + key
	}
	msg += ", ignored"
	if s := suggest(name, fs.names()); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	} else if key != "" {
		msg += " (known: " + strings.Join(fs.names(), ", ") + ")"
	}
	d.Warn(k, "%s", msg)
}

func article(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "an"
	}
	return "a"
}

// Describe names n's type for messages, with its value when short.
func Describe(n *Node) string {
	short := func(s string) string {
		if len(s) > 40 {
			return s[:37] + "..."
		}
		return s
	}
	switch n.Kind {
	case String:
		return "the string " + short(strconv.Quote(n.Text))
	case Number:
		return "the number " + short(n.Text)
	case Bool:
		return n.Text
	case Object:
		return "an object"
	case Array:
		return "a list"
	}
	return "null"
}

// OneOf writes choices for a message: "a", "b" or "c".
func OneOf(choices []string) string {
	q := make([]string, len(choices))
	for i, c := range choices {
		q[i] = strconv.Quote(c)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func plural(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "strings"
	case reflect.Bool:
		return "booleans"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64:
		return "numbers"
	case reflect.Struct:
		return "objects " + fieldsOf(t).shape()
	}
	return "values"
}

// Keys returns the keys of the struct v points to, in the order of its
// fields.
func Keys(v any) []string {
	return fieldsOf(reflect.TypeOf(v).Elem()).names()
}

// Copy sets the field of key in the struct dst points to from the same
// field of src, which points to a struct of the same type. It reports
// whether key is a key of the struct.
func Copy(dst, src any, key string) bool {
	dv, sv := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	f, ok := fieldsOf(dv.Type()).byName[key]
	if ok {
		dv.FieldByIndex(f.index).Set(sv.FieldByIndex(f.index))
	}
	return ok
}

// suggest returns the key of names closest to an unknown one (equal but
// for case, or at most two edits away), or "".
func suggest(name string, names []string) string {
	best, bestD := "", 3
	for _, k := range names {
		if strings.EqualFold(k, name) {
			return k
		}
		if d := editDistance(strings.ToLower(k), strings.ToLower(name)); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

type options struct {
	min, max              float64
	hasMin, hasMax        bool
	trim, lower, nonempty bool
	required              bool
	inline                bool
	oneof                 []string
	minItems              int
	item                  string
}

type field struct {
	name  string
	index []int
	opts  options
}

type fields struct {
	list   []field
	byName map[string]field
}

func (fs *fields) names() []string {
	out := make([]string, len(fs.list))
	for i, f := range fs.list {
		out[i] = f.name
	}
	return out
}

// shape writes the keys for messages: {a, b, c?}, the optional ones marked
// when some are required.
func (fs *fields) shape() string {
	anyRequired := slices.ContainsFunc(fs.list, func(f field) bool { return f.opts.required })
	parts := make([]string, len(fs.list))
	for i, f := range fs.list {
		parts[i] = f.name
		if anyRequired && !f.opts.required {
			parts[i] += "?"
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

var fieldCache sync.Map // reflect.Type -> *fields

func fieldsOf(t reflect.Type) *fields {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*fields)
	}
	fs := &fields{byName: map[string]field{}}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() {
				continue
			}
			name, opts := parseTag(sf)
			idx := append(slices.Clone(index), i)
			if opts.inline {
				walk(sf.Type, idx)
				continue
			}
			if name == "" || name == "-" {
				continue
			}
			f := field{name: name, index: idx, opts: opts}
			fs.list = append(fs.list, f)
			fs.byName[name] = f
		}
	}
	walk(t, nil)
	actual, _ := fieldCache.LoadOrStore(t, fs)
	return actual.(*fields)
}

func parseTag(sf reflect.StructField) (string, options) {
	var o options
	tag, ok := sf.Tag.Lookup("conf")
	name, rest, _ := strings.Cut(tag, ",")
	if !ok || name == "" {
		jn, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" {
			name = jn
		}
	}
	for _, opt := range strings.Split(rest, ",") {
		k, val, _ := strings.Cut(opt, "=")
		num := func() float64 {
			x, err := strconv.ParseFloat(val, 64)
			if err != nil {
				panic(fmt.Sprintf("conf: field %s: bad %s=%q", sf.Name, k, val))
			}
			return x
		}
		switch k {
		case "":
		case "min":
			o.min, o.hasMin = num(), true
		case "max":
			o.max, o.hasMax = num(), true
		case "trim":
			o.trim = true
		case "lower":
			o.lower = true
		case "nonempty":
			o.nonempty = true
		case "required":
			o.required = true
		case "inline":
			o.inline = true
		case "oneof":
			o.oneof = strings.Split(val, "|")
		case "minitems":
			o.minItems = int(num())
		case "item":
			o.item = val
		default:
			panic(fmt.Sprintf("conf: field %s: unknown option %q", sf.Name, k))
		}
	}
	return name, o
}
