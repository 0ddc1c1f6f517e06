// Package relevance ranks installed skills for a piece of text.
//
//	ix := relevance.NewIndex(docs, relevance.DefaultParams()) // name, description, headings
//	r := ix.Rank(prompt, relevance.DefaultMinSignal)            // best first, with a signal flag
//
// Text becomes terms (lower-cased Unicode words without English stop
// words, reduced to Snowball stems, plus pairs of adjacent stems; Words
// shows the words); each skill's fields are indexed with weights, leaving
// out the sections and sentences that say when a skill does not apply, and
// a prompt is scored with Okapi BM25. CrossRefs reads skill bodies for
// cross-references (which skills a body names, and which it tells the
// model to load) and ChooseEntry infers a pack's entry skill from them. It
// is pure: it works on the strings it is handed and does no I/O.
package relevance

// Doc is what the index knows of one skill.
type Doc struct {
	Name        string
	Description string
	Headings    []string // heading texts, in order
	// Levels holds the level (1 to 6) of each heading, parallel to
	// Headings. It is optional: without it every heading counts as level 1,
	// so a negative section's sub-headings cannot be told apart from the
	// headings that follow it and only the negative heading itself is left
	// out of the index.
	Levels []int
}

// Result is one skill's score for a query.
type Result struct {
	Skill string   `json:"skill"`
	Score float64  `json:"score"`
	Terms []string `json:"terms"` // matched terms (stems or stem pairs), sorted
}

// Ranking is every skill with a positive score for a query, best first,
// ties broken by name.
type Ranking struct {
	Results []Result
	Best    float64 // score of the first result, 0 when none
	Signal  bool    // Best >= the minimum signal the ranking was asked with
}
