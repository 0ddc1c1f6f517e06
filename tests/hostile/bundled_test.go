package hostile

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// TestHostileBundledFileLinks: a read of a skill's bundled file that Pi's
// read tool would follow out of the skill's folder (a link in the pack to
// a file of the user's, a linked folder, a chain of links) is blocked
// with a reason naming both paths; the skill's own files, a link that
// stays inside, and files outside every skill folder are served (issue
// 31; docs/protocol.md, tool_call).
func TestHostileBundledFileLinks(t *testing.T) {
	p := newPack(t)
	dir := filepath.Dir(p.skills[1].Path) // go-tests
	secret := write(t, filepath.Join(p.cwd, "..", "home", ".ssh", "id_rsa"), []byte("SECRET KEY\n"))
	write(t, filepath.Join(dir, "references", "flaky.md"), []byte("# flaky\n"))
	symlink(t, secret, filepath.Join(dir, "references", "key.md"))
	symlink(t, filepath.Dir(secret), filepath.Join(dir, "ssh"))
	symlink(t, filepath.Join(dir, "references", "key.md"), filepath.Join(dir, "chain.md"))
	symlink(t, filepath.Join(dir, "references", "flaky.md"), filepath.Join(dir, "inside.md"))
	symlink(t, write(t, filepath.Join(filepath.Dir(p.skills[0].Path), "notes.md"), []byte("# notes\n")), filepath.Join(dir, "sibling.md"))
	s := startInProcess(t, protocol.Options{ServerVersion: "hostile"})
	s.initialize(p)
	for _, tc := range []struct {
		name, path string
		block      bool
	}{
		{"link-to-a-user-file", filepath.Join(dir, "references", "key.md"), true},
		{"linked-folder", filepath.Join(dir, "ssh", "id_rsa"), true},
		{"chain-of-links", filepath.Join(dir, "chain.md"), true},
		{"relative-path", "../skills/go-tests/references/key.md", true},
		{"link-to-another-skill", filepath.Join(dir, "sibling.md"), true},
		{"own-file", filepath.Join(dir, "references", "flaky.md"), false},
		{"link-staying-inside", filepath.Join(dir, "inside.md"), false},
		{"outside-every-skill", secret, false},
		{"missing-file", filepath.Join(dir, "nope.md"), false},
	} {
		in, _ := json.Marshal(map[string]any{"path": tc.path})
		var r protocol.ToolCallResult
		s.ok(s.call(protocol.MethodToolCall, protocol.ToolCallParams{ToolName: "read", Input: in, Cwd: p.cwd}), &r)
		if r.Block != tc.block {
			t.Errorf("%s: block = %v, want %v (%+v)", tc.name, r.Block, tc.block, r)
			continue
		}
		if r.Block && (r.Skill != "go-tests" || !strings.Contains(r.Reason, "resolves outside it")) {
			t.Errorf("%s: reason %q skill %q", tc.name, r.Reason, r.Skill)
		}
	}
}
