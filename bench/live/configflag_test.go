//go:build e2e

package live

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
)

// configFlags is -live.config NAME=FILE, repeatable: one more bridge mode
// per flag, named NAME, with FILE as its skill-lifecycle.json. A NAME that
// ends in "-5m" runs against a provider whose cache expires after
// CacheTTL (Mode.CacheTTL), as defaults-5m does.
type configFlags []Mode

func init() {
	flag.Var(&flagConfs, "live.config", "NAME=FILE: also run the bridge with FILE as skill-lifecycle.json, as mode NAME (repeatable; a NAME ending in -5m runs against a provider whose cache expires after 5 minutes)")
}

func (c *configFlags) String() string {
	var names []string
	for _, m := range *c {
		names = append(names, m.Name)
	}
	return strings.Join(names, ",")
}

func (c *configFlags) Set(v string) error {
	name, file, ok := strings.Cut(v, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || file == "" {
		return fmt.Errorf("want NAME=FILE, got %q", v)
	}
	for _, m := range append(append(Modes(), OptionalModes()...), *c...) {
		if m.Name == name {
			return fmt.Errorf("mode %q already exists", name)
		}
	}
	if strings.ContainsAny(name, "/\\ ,") {
		return fmt.Errorf("mode name %q: no slash, comma or space", name)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if !json.Valid(b) {
		return fmt.Errorf("%s: not valid JSON", file)
	}
	m := Mode{Name: name, Bridge: true, Config: string(b)}
	if strings.HasSuffix(name, "-5m") {
		// Against a provider whose cache expires, as defaults-5m.
		m.CacheTTL = CacheTTL
	}
	*c = append(*c, m)
	return nil
}
