//go:build corpora

package session

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func repoRoot(testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

func corpus(t *testing.T, rel string) string {
	p := filepath.Join(repoRoot(t), "..", "shared", "corpora", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("corpus file %s is missing (tests read ../shared beside the repository): %v", p, err)
	}
	return p
}

func TestRealSessions(t *testing.T) {
	tests := []struct {
		file                           string
		entries, assistants, branchLen int
		compactions, version           int
	}{
		{"pi-sessions/large-session.jsonl", 1018, 453, 1018, 0, 1},
		{"pi-sessions/before-compaction.jsonl", 1002, 484, 1002, 2, 1},
		{"scenario-sessions/bike-rental-timeseries-diligent.jsonl", 98, 46, 98, 0, 3},
		{"scenario-sessions/churn-classification-diligent.jsonl", 177, 80, 177, 0, 3},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			s, err := ReadFile(corpus(t, tc.file), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Diagnostics) != 0 {
				t.Fatalf("diagnostics: %v", s.Diagnostics[:min(5, len(s.Diagnostics))])
			}
			br := s.Branch(s.Leaf())
			var as, comps int
			for _, e := range br {
				if e.Message != nil && e.Message.Role == RoleAssistant {
					as++
				}
				if e.Type == TypeCompaction {
					comps++
					if s.Entry(e.FirstKeptEntryID) == nil {
						t.Errorf("compaction on line %d: first kept entry %q not found", e.Line, e.FirstKeptEntryID)
					}
				}
			}
			got := []int{len(s.Entries), as, len(br), comps, s.Header.Version}
			want := []int{tc.entries, tc.assistants, tc.branchLen, tc.compactions, tc.version}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("entries, assistants, branch, compactions, version (-want +got):\n%s", d)
			}
		})
	}
}
