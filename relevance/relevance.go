// Package relevance ranks installed skills for a piece of text.
//
//	ix := relevance.NewIndex(docs, relevance.DefaultParams()) // name, description, headings, body
//	r := ix.Rank(prompt, relevance.DefaultMinSignal)            // best first, with a signal flag
//
// Text becomes terms (lower-cased Unicode words without the stop words of
// their language, reduced to Snowball stems with accents folded, plus pairs
// of adjacent stems; Words shows the words); each skill's fields and body
// are indexed with weights, leaving out the sections and sentences that
// say when a skill does not apply, the words that name no topic or that
// the catalogue uses everywhere weigh less, and a prompt is scored with
// Okapi BM25F. Each skill's language is declared or detected; a prompt
// meets each skill by that skill's stems. CrossRefs reads skill bodies for
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
	// Body is the markdown body. The index reads it for how generic each
	// word is in the catalogue (Params.Generic) and, with
	// Params.BodyWeight, indexes it as a field; other skills' names in it
	// are skipped.
	Body string
	// Language is the language the skill is written in, as declared
	// (metadata.language: an ISO 639-1 code such as "fr", or a name).
	// Empty, it is detected from the skill's text. Its Snowball stemmer
	// and stop words apply to the skill's words; a language Snowball does
	// not stem leaves them unstemmed.
	Language string
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
