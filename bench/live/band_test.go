//go:build e2e

package live

import "testing"

// The live cost is inside the band replay's predictions span, or how far
// outside it, in % of the live cost.
func TestBandGap(t *testing.T) {
	tests := []struct {
		name  string
		live  float64
		preds []float64
		want  float64
	}{
		{"inside", 105, []float64{110, 100}, 0},
		{"at an end", 100, []float64{100, 110}, 0},
		{"all predictions the same, live equal", 100, []float64{100, 100, 100}, 0},
		{"live above the band", 125, []float64{100, 90}, -20},
		{"live below the band", 100, []float64{110, 120}, 10},
		{"order of the predictions does not matter", 100, []float64{120, 110}, 10},
		{"a third prediction widens the band", 100, []float64{110, 120, 100}, 0},
		{"no live cost", 0, []float64{1, 2}, 0},
		{"no prediction", 100, nil, 0},
	}
	for _, tc := range tests {
		if got := bandGap(tc.live, tc.preds...); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("%s: bandGap(%g, %v) = %g, want %g", tc.name, tc.live, tc.preds, got, tc.want)
		}
	}
}
