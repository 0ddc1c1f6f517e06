//go:build e2e

package live

import "testing"

// The live cost is inside the band between replay's two predictions, or
// how far outside it, in % of the live cost.
func TestBandGap(t *testing.T) {
	tests := []struct {
		name       string
		a, b, live float64
		want       float64
	}{
		{"inside", 110, 100, 105, 0},
		{"at an end", 100, 110, 100, 0},
		{"both predictions the same, live equal", 100, 100, 100, 0},
		{"live above the band", 100, 90, 125, -20},
		{"live below the band", 110, 120, 100, 10},
		{"order of the predictions does not matter", 120, 110, 100, 10},
		{"no live cost", 1, 2, 0, 0},
	}
	for _, tc := range tests {
		if got := bandGap(tc.a, tc.b, tc.live); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("%s: bandGap(%g, %g, %g) = %g, want %g", tc.name, tc.a, tc.b, tc.live, got, tc.want)
		}
	}
}
