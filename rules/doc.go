// Package rules holds skill-lifecycle's configuration (skill-lifecycle.json:
// parsing, defaults, merging a trusted project's file over the user's) and
// the pure eviction decisions taken on it: given the loaded bodies, a
// ranking of the installed skills and the event at hand, which bodies stay
// and which are archived, each with a reason a person can read.
package rules
