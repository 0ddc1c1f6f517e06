//go:build corpora

package replay

import (
	"os"
	"path/filepath"
	"testing"
)

func corpusPath(t *testing.T, rel string) string {
	p := filepath.Join(repoRoot(), "..", "shared", "corpora", rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("corpus file %s is missing (tests read ../shared beside the repository): %v", p, err)
	}
	return p
}

// Sessions recorded through the scripted provider: keep-all rebuilds
// every request's prompt and uncached input exactly.
func TestScenarioSessionsReproduceRecordedUsage(t *testing.T) {
	for _, f := range []string{"bike-rental-timeseries-diligent.jsonl", "churn-classification-diligent.jsonl"} {
		r := NewRunner(Options{TTL: DefaultTTL})
		if err := r.AddFile(corpusPath(t, filepath.Join("scenario-sessions", f))); err != nil {
			t.Fatal(err)
		}
		rep := r.Report()
		b := rep.Branches[0]
		a := b.Accuracy
		if b.Calibration.Method != "exact" || a.Compared != b.Requests || a.PromptExact != a.Compared || a.InputExact != a.Compared {
			t.Errorf("%s: calibration %+v, accuracy %+v over %d requests", f, b.Calibration, a, b.Requests)
		}
	}
}

// Pi's own v1 sessions replay without diagnostics, with their compactions.
func TestPiSessionsReplay(t *testing.T) {
	tests := []struct {
		file     string
		requests int
	}{
		{"large-session.jsonl", 453},
		{"before-compaction.jsonl", 484},
	}
	for _, tc := range tests {
		r := NewRunner(Options{TTL: DefaultTTL})
		if err := r.AddFile(corpusPath(t, filepath.Join("pi-sessions", tc.file))); err != nil {
			t.Fatal(err)
		}
		rep := r.Report()
		b := rep.Branches[0]
		if len(rep.Diagnostics) > 0 || b.Requests != tc.requests || rep.Strategies[0].Requests != tc.requests {
			t.Errorf("%s: %d diagnostics, %d requests (replayed %d), want %d", tc.file, len(rep.Diagnostics), b.Requests, rep.Strategies[0].Requests, tc.requests)
		}
		// Real tokenizer: the fitted estimate must stay close over the
		// whole session.
		if b.Calibration.Method != "fit" || b.Accuracy.TotalPromptErrPct > 1 || b.RecordedCostUSD <= 0 {
			t.Errorf("%s: calibration %+v, accuracy %+v, recorded %v", tc.file, b.Calibration, b.Accuracy, b.RecordedCostUSD)
		}
	}
}
