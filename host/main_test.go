package host

import (
	"fmt"
	"os"
	"testing"
)

// TestMain keeps the start-up cache (cache.go) of the catalogues the
// tests build in a folder of the run's, not in the user's cache folder.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "skill-lifecycle-cache")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
