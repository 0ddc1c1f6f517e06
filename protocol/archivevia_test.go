package protocol

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// TestInitializeArchiveVia: initialize tells the host how to apply the
// archive lists, from the configuration's archiveVia (context edits by
// default, which the Pi bridge applies through the hook on Pi 0.73).
func TestInitializeArchiveVia(t *testing.T) {
	for _, tt := range []struct{ config, want string }{
		{``, rules.ArchiveViaContextEdit},
		{`{"archiveVia": "hook"}`, rules.ArchiveViaHook},
		{`{"archiveVia": "context_edit"}`, rules.ArchiveViaContextEdit},
		{`{"archiveVia": "context_edit_only"}`, rules.ArchiveViaContextEditOnly},
		{`{"archiveVia": "nope"}`, rules.ArchiveViaContextEdit}, // an error: the file is ignored
	} {
		h := startServer(t)
		cwd := t.TempDir()
		agent := filepath.Join(cwd, "agent")
		if tt.config != "" {
			if err := os.MkdirAll(agent, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(agent, rules.FileName), []byte(tt.config), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var res InitializeResult
		p := InitializeParams{ProtocolVersion: Version, Cwd: cwd, AgentDir: agent, Skills: packSkills(t)}
		if err := h.call(MethodInitialize, p, &res); err != nil {
			t.Fatalf("%s: initialize: %v", tt.config, err)
		}
		if res.ArchiveVia != tt.want {
			t.Errorf("%s: archiveVia %q, want %q", tt.config, res.ArchiveVia, tt.want)
		}
	}
}
