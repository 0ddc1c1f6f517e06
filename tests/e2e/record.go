//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// RecordEnv names the environment variable that makes RecordSession copy
// sessions into testdata/sessions/ (set it to 1 when refreshing them).
const RecordEnv = "E2E_RECORD_SESSIONS"

// RecordSession copies a session file and the provider's request log to
// testdata/sessions/<name>.jsonl and <name>.requests.jsonl when
// E2E_RECORD_SESSIONS=1; otherwise it does nothing.
func RecordSession(t testing.TB, env *Env, sessionFile, name string) {
	t.Helper()
	if os.Getenv(RecordEnv) != "1" {
		return
	}
	dir := filepath.Join(RepoRoot(t), "testdata", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for src, dst := range map[string]string{
		sessionFile:            filepath.Join(dir, name+".jsonl"),
		env.Provider.LogPath(): filepath.Join(dir, name+".requests.jsonl"),
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatalf("record %s: %v", name, err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatalf("record %s: %v", name, err)
		}
	}
	t.Logf("recorded %s", filepath.Join(dir, name+".jsonl"))
}
