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
// per flag, named NAME, with FILE as its skill-lifecycle.json.
type configFlags []Mode

func init() {
	flag.Var(&flagConfs, "live.config", "NAME=FILE: also run the bridge with FILE as skill-lifecycle.json, as mode NAME (repeatable)")
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
	for _, m := range append(Modes(), *c...) {
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
	*c = append(*c, Mode{Name: name, Bridge: true, Config: string(b)})
	return nil
}
