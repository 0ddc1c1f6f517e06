//go:build corpora

package relbench

import (
	"os"
	"testing"
)

// TestMLPackDev measures the ML pack of ../shared/corpora against its
// floor (it needs the shared corpora beside the repository).
func TestMLPackDev(t *testing.T) {
	for _, sp := range DevPacks("../..", true) {
		if !sp.Shared {
			continue
		}
		if _, err := os.Stat(sp.Cases); err != nil {
			t.Fatalf("shared data missing: %v (tests read ../shared beside the repository root)", err)
		}
		checkPack(t, sp)
	}
}
