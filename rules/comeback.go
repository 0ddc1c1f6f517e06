package rules

// ComebackFacts is what the engine knows of a body due for archive that
// bears on whether the agent will need it again (Comeback).
type ComebackFacts struct {
	// Due is the code the body is due for archive with.
	Due Code
	// ArchivedBefore says an earlier copy of the skill was archived for
	// another reason than being superseded: the skill has come back once.
	ArchivedBefore bool
	// Copies is how many copies of the skill's body were loaded so far.
	Copies int
	// Helper says the skill is a helper (metadata.role or helperSkills).
	Helper bool
	// SameRun says the body was loaded in the run in which it was
	// dropped.
	SameRun bool
}

// Comeback is the probability that the agent needs a body again once it
// is archived (docs/cache-aware.md, "Comebacks"), weighed by PlanArchives:
// 0 for a copy superseded by a newer live copy; comebackBase for a copy
// of the entry skill that has routed (reading the router at a later task
// is its use, not a return the archive caused); 1 for a skill that was
// archived and loaded again before; comebackLikely for a helper, a skill
// loaded more than once, or a body dropped mid-run in the run that loaded
// it; comebackBase otherwise. A body naming the skill is no sign.
func Comeback(c CacheAware, f ComebackFacts) float64 {
	switch {
	case f.Due == ArchiveSuperseded:
		return 0
	case f.Due == ArchiveRouted:
		return c.ComebackBase
	case f.ArchivedBefore:
		return 1
	}
	p := c.ComebackBase
	if f.Copies > 1 || f.Helper || (f.Due == ArchiveMidRun && f.SameRun) {
		p = max(p, c.ComebackLikely)
	}
	return p
}
