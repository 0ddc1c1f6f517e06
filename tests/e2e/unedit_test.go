//go:build e2e

package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestUneditLooksOnlyAtNewMessages: the bridge's unedit, which looks
// again only at the messages appended since the last list of the same
// branch and edits, gives what a walk over the whole list gives, over
// 200 random sessions that grow, gain edits (placeholders, reverts,
// omissions), repeat keys, compact and lose a message to another
// extension's hook (testdata/unedit_check.ts, run by Pi 1.6's Node).
func TestUneditLooksOnlyAtNewMessages(t *testing.T) {
	t.Parallel()
	pi := Pi16(t)
	script := filepath.Join(RepoRoot(t), "tests", "e2e", "testdata", "unedit_check.ts")
	out, err := exec.Command(pi.Node, "--no-warnings", script).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	if !strings.Contains(string(out), "12000 lists compared") {
		t.Fatalf("%s printed %q, want 12000 lists compared", script, out)
	}
}
