package relevance_test

import (
	"fmt"

	"github.com/skill-lifecycle/skill-lifecycle/relevance"
)

// An index over the skills' names, descriptions and headings ranks them
// for a prompt.
func ExampleIndex_Rank() {
	ix := relevance.NewIndex([]relevance.Doc{
		{Name: "write-sql-migration", Description: "Write a SQL migration that adds or changes a table's columns."},
		{Name: "plot-figure", Description: "Draw charts and figures from a data frame."},
		{Name: "release-notes", Description: "Write the release notes of a version."},
	}, relevance.DefaultParams())
	r := ix.Rank("add a column to the orders table with a migration", relevance.DefaultMinSignal)
	fmt.Println(r.Signal, len(r.Results), r.Results[0].Skill)
	// Output:
	// true 1 write-sql-migration
}

// Words reads a text as the index does.
func ExampleWords() {
	relevance.Words("Use scikit-learn's Random Forest", func(w string, term bool) {
		fmt.Println(w, term)
	})
	// Output:
	// use true
	// scikit true
	// learn true
	// s false
	// random true
	// forest true
}
