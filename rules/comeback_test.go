package rules

import "testing"

func TestComeback(t *testing.T) {
	c := DefaultCacheAware()
	for _, tc := range []struct {
		name string
		f    ComebackFacts
		want float64
	}{
		{"superseded", ComebackFacts{Due: ArchiveSuperseded, ArchivedBefore: true, Helper: true}, 0},
		{"routed entry", ComebackFacts{Due: ArchiveRouted, ArchivedBefore: true, Copies: 3}, c.ComebackBase},
		{"came back before", ComebackFacts{Due: ArchiveNotRelevant, ArchivedBefore: true}, 1},
		{"nothing known", ComebackFacts{Due: ArchiveNotRelevant, Copies: 1}, c.ComebackBase},
		{"loaded twice", ComebackFacts{Due: ArchiveNotRelevant, Copies: 2}, c.ComebackLikely},
		{"helper", ComebackFacts{Due: ArchiveNotRelevant, Copies: 1, Helper: true}, c.ComebackLikely},
		{"dropped mid-run in its run", ComebackFacts{Due: ArchiveMidRun, Copies: 1, SameRun: true}, c.ComebackLikely},
		{"dropped mid-run later", ComebackFacts{Due: ArchiveMidRun, Copies: 1}, c.ComebackBase},
	} {
		if got := Comeback(c, tc.f); got != tc.want {
			t.Errorf("%s: Comeback = %g, want %g", tc.name, got, tc.want)
		}
	}
}
