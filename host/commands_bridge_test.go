package host

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBridgeCommandsMatch: the bridge (extension/commands.ts) registers its
// slash commands when Pi loads it, before any sidecar answers, so it keeps
// its own copy of the list that initialize sends to other hosts. The two
// must not drift.
func TestBridgeCommandsMatch(t *testing.T) {
	path := filepath.Join("..", "extension", "commands.ts")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the bridge: %v", err)
	}
	block := regexp.MustCompile(`(?s)const COMMANDS[^=]*=\s*\[(.*?)\n\];`).FindSubmatch(src)
	if block == nil {
		t.Fatalf("%s: no `const COMMANDS = [ ... ];` block", path)
	}
	entry := regexp.MustCompile(`\{\s*name:\s*("(?:[^"\\]|\\.)*"),\s*description:\s*("(?:[^"\\]|\\.)*")\s*\}`)
	var got []CommandSpec
	for _, m := range entry.FindAllSubmatch(block[1], -1) {
		name, err1 := strconv.Unquote(string(m[1]))
		desc, err2 := strconv.Unquote(string(m[2]))
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: unreadable command entry %s", path, m[0])
		}
		got = append(got, CommandSpec{Name: name, Description: desc})
	}
	if diff := cmp.Diff(commandSpecs(), got); diff != "" {
		t.Errorf("extension/commands.ts COMMANDS differ from host.commandSpecs (-sidecar +bridge):\n%s", diff)
	}
}
