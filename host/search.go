package host

import (
	"fmt"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Skill search (issue 30): the skill tool also takes a query, answered
// with the best matches of the relevance index among the model-visible
// skills, so a skill the bounded listing leaves out is one call away.

// SearchLimit is how many matches a search answers at most.
const SearchLimit = 5

// searchDescription is the length (characters) a match's description is
// shortened to.
const searchDescription = 200

// SkillSearchParams is a query of the skill tool.
type SkillSearchParams struct {
	Query string `json:"query"`
}

// SkillMatch is one skill a search found.
type SkillMatch struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Score       float64 `json:"score"`
}

// SkillSearchResult is the tool's answer to a query: Text for the model,
// and the matches, best first.
type SkillSearchResult struct {
	Text    string       `json:"text"`
	Matches []SkillMatch `json:"matches"`
}

// SkillSearch answers the skill tool's query: at most SearchLimit
// model-visible skills by relevance, each with its description on one
// line, as ModelText.
func (s *Session) SkillSearch(p SkillSearchParams) (SkillSearchResult, error) {
	q := strings.TrimSpace(p.Query)
	if q == "" {
		return SkillSearchResult{}, missing("query")
	}
	ms := s.world.search(q, SearchLimit)
	if len(ms) == 0 {
		return SkillSearchResult{Text: fmt.Sprintf("No skill matches %s. Try other words for the task.", quoted(q)), Matches: []SkillMatch{}}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Skills matching %s, best first (load one with the skill tool and its name):", quoted(q))
	for _, m := range ms {
		b.WriteString("\n- ")
		b.WriteString(skills.ModelText(m.Name))
		b.WriteString(": ")
		b.WriteString(skills.ModelText(m.Description))
	}
	return SkillSearchResult{Text: b.String(), Matches: ms}, nil
}

// search is the best n model-visible skills for q, with their host
// descriptions shortened to one line.
func (w *World) search(q string, n int) []SkillMatch {
	if w.Catalog.Ranker == nil {
		return nil
	}
	var out []SkillMatch
	for _, r := range w.Catalog.Ranker.Rank(q, 0).Results {
		hs, ok := w.Skills.lookup(r.Skill)
		if !ok || hs.Name != r.Skill {
			continue
		}
		out = append(out, SkillMatch{Name: hs.Name, Description: skills.Shorten(strings.Join(strings.Fields(hs.Description), " "), searchDescription), Score: r.Score})
		if len(out) == n {
			break
		}
	}
	return out
}
