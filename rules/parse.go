package rules

import (
	"bytes"
	"errors"
	"slices"

	"github.com/skill-lifecycle/skill-lifecycle/internal/conf"
)

// Fragment is what one configuration file sets. Parse produces one; Merge
// lays fragments over the defaults.
type Fragment struct {
	// Set lists the keys the file sets, in the order written.
	Set []string
	// Config holds the values of those keys (an object key such as
	// cacheAware whole, its missing keys at their defaults); its other
	// fields are the defaults.
	Config Config
}

// Sets reports whether the file sets key.
func (f Fragment) Sets(key string) bool { return slices.Contains(f.Set, key) }

// Diagnostic is one problem found in a configuration file: its file,
// line and key. An Error means the whole file is ignored.
type Diagnostic = conf.Diagnostic

// Severity orders diagnostics (the module's one severity).
type Severity = conf.Severity

// Severities.
const (
	Warning = conf.Warning
	Error   = conf.Error
)

// Keys returns every option key, in documentation order.
func Keys() []string { return conf.Keys(&Config{}) }

// apply lays the keys f sets over c, but skip.
func (f Fragment) apply(c *Config, skip string) {
	for _, k := range f.Set {
		if k == skip {
			continue
		}
		conf.Copy(c, &f.Config, k)
		if k == "models" {
			c.ModelsFile, c.ModelsLine = f.Config.ModelsFile, f.Config.ModelsLine
		}
	}
}

// Parse reads one configuration file's bytes; file names it in
// diagnostics. When any diagnostic is an Error the file is ignored as a
// whole and the returned Fragment is empty; warnings (an unknown key, an
// empty file) leave the rest of the file in force. Parse never panics.
func Parse(data []byte, file string) (Fragment, []Diagnostic) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	fail := func(line int, msg string) (Fragment, []Diagnostic) {
		return Fragment{}, []Diagnostic{{File: file, Line: line, Severity: Error, Message: msg + "; the file is ignored"}}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Fragment{}, []Diagnostic{{File: file, Severity: Warning, Message: "the file is empty; nothing is configured by it"}}
	}
	root, err := conf.Parse(data, 1)
	if err != nil {
		var se *conf.SyntaxError
		if !errors.As(err, &se) {
			return fail(0, "not valid JSON: "+err.Error())
		}
		return fail(se.Line, "not valid JSON: "+se.Msg)
	}
	if root.Kind != conf.Object {
		return fail(root.Line, "the file must hold one JSON object ({...}), got "+conf.Describe(root))
	}
	// "$schema" names the file's JSON schema for editors.
	top := *root
	top.Members = slices.DeleteFunc(slices.Clone(root.Members), func(m conf.Member) bool { return m.Name == "$schema" })
	d := conf.Decoder{File: file}
	f := Fragment{Config: Default()}
	d.Decode(&top, "", &f.Config)
	if d.Failed() {
		return Fragment{}, append(d.Diags, Diagnostic{File: file, Severity: Error,
			Message: "the file is ignored as a whole because of the errors above; the other configuration files still apply"})
	}
	known := Keys()
	for _, m := range top.Members {
		if slices.Contains(known, m.Name) && !f.Sets(m.Name) {
			f.Set = append(f.Set, m.Name)
		}
	}
	if m := top.Get("models"); m != nil {
		f.Config.ModelsFile, f.Config.ModelsLine = file, m.Line
	}
	return f, d.Diags
}
