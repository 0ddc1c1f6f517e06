package protocol

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sourcegraph/jsonrpc2"
)

// CommandParams is one /skills-* command as the user typed it: Name
// without the slash, Args the rest of the line.
type CommandParams struct {
	Name string `json:"name"`
	Args string `json:"args"`
}

// CommandResult is the text to show the user.
type CommandResult struct {
	Text string `json:"text"`
	// Level is "info", "warning" or "error".
	Level string `json:"level"`
}

// commandFuncs maps command names to their implementation.
var commandFuncs map[string]func(*call, string) (CommandResult, *jsonrpc2.Error)

func init() {
	commandFuncs = map[string]func(*call, string) (CommandResult, *jsonrpc2.Error){
		"skills-list": (*call).cmdList,
	}
}

func (c *call) command() (any, *jsonrpc2.Error) {
	var p CommandParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	name := strings.TrimPrefix(strings.TrimSpace(p.Name), "/")
	if name == "" {
		return nil, required(c.method, "name")
	}
	f, ok := commandFuncs[name]
	if !ok {
		names := make([]string, 0, len(commandFuncs))
		for n := range commandFuncs {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, rpcError(CodeInvalidParams, "%s: name: unknown command %q (known: %s)", c.method, name, strings.Join(names, ", "))
	}
	return f(c, strings.TrimSpace(p.Args))
}

// cmdList answers /skills-list.
func (c *call) cmdList(string) (CommandResult, *jsonrpc2.Error) {
	cat := c.catalog()
	if len(cat.skills) == 0 {
		return CommandResult{Text: "No skills found.", Level: "info"}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d skills:\n", len(cat.skills))
	for _, s := range cat.skills {
		note := ""
		if s.DisableModelInvocation {
			note = " (only through /skill:" + s.Name + ")"
		}
		fmt.Fprintf(&b, "- %s%s: %s\n", s.Name, note, truncate(oneLine(s.Description), 100))
	}
	return CommandResult{Text: strings.TrimRight(b.String(), "\n"), Level: "info"}, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
