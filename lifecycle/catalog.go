package lifecycle

import (
	"path/filepath"
	"slices"

	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// CatalogOf builds the engine's catalog from parsed skills: names,
// descriptions, declared roles and model tiers; each body's calls
// (relevance.CrossRefs: the skills it tells the model to load,
// prohibitions excluded); and the entry skill inferred in each folder of
// skills that declares none (relevance.InferEntry; the first by name is
// the engine's InferredEntry). ranker ranks the skills; nil builds a
// relevance.Index with default parameters over names, descriptions and
// headings, in the background (its first Rank waits for it). It is the
// one catalog builder (host.NewWorld calls it).
func CatalogOf(ss []skills.Skill, ranker rules.Ranker) Catalog {
	// The relevance index is built on its own goroutine, beside the
	// cross-references and after CatalogOf returns: the catalog (and the
	// host's listing) needs none of it, and its first Rank waits for it.
	if ranker == nil {
		ranker = buildIndex(ss)
	}
	bodies := make([]relevance.Body, len(ss))
	for i, s := range ss {
		bodies[i] = relevance.Body{Name: s.Name, Text: s.Body}
	}
	return catalogOf(ss, relevance.CrossRefs(bodies), ranker)
}

// CatalogWithRefs is CatalogOf(ss, nil) for refs, the cross-references of
// ss (relevance.CrossRefs of their bodies), found while reading them.
func CatalogWithRefs(ss []skills.Skill, refs map[string]relevance.Refs) Catalog {
	return catalogOf(ss, refs, buildIndex(ss))
}

func catalogOf(ss []skills.Skill, refs map[string]relevance.Refs, ranker rules.Ranker) Catalog {
	cat := Catalog{Skills: make([]SkillInfo, len(ss)), Ranker: ranker}
	folders := map[string][]string{}
	declares := map[string]bool{}
	var order []string
	for i, s := range ss {
		cat.Skills[i] = SkillInfo{Name: s.Name, Description: s.Description, Role: s.Role, ModelTier: s.ModelTier}
		if names := refs[s.Name].Names; len(names) > 0 {
			cat.Skills[i].Names = slices.Clone(names)
		}
		if loads := refs[s.Name].Loads; len(loads) > 0 {
			cat.Skills[i].Calls = slices.Clone(loads)
		}
		// A skill's folder is the one holding its own folder (the skills
		// root it was found in; for a nested pack, the pack's folder).
		dir := filepath.Dir(s.Dir)
		if _, ok := folders[dir]; !ok {
			order = append(order, dir)
		}
		folders[dir] = append(folders[dir], s.Name)
		declares[dir] = declares[dir] || s.Role == skills.RoleEntry
	}
	for _, dir := range order {
		if e := relevance.InferEntry(folders[dir], refs); e != "" && !declares[dir] {
			cat.Inferred = append(cat.Inferred, e)
		}
	}
	if len(cat.Inferred) > 0 {
		cat.InferredEntry = slices.Min(cat.Inferred)
	}
	return cat
}

// pendingIndex is a relevance index being built: Rank waits for it.
type pendingIndex struct {
	done chan struct{}
	ix   *relevance.Index
}

// buildIndex starts building the relevance index of ss (indexOf) and
// returns it; ss must not change until it is built.
func buildIndex(ss []skills.Skill) *pendingIndex {
	p := &pendingIndex{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.ix = indexOf(ss)
	}()
	return p
}

// Ready is closed once the index is built.
func (p *pendingIndex) Ready() <-chan struct{} { return p.done }

// Ready returns a channel closed once c's ranker can rank without
// waiting: a relevance index built in the background (CatalogOf) is
// done, or the ranker was never built in the background.
func (c Catalog) Ready() <-chan struct{} {
	if r, ok := c.Ranker.(interface{ Ready() <-chan struct{} }); ok {
		return r.Ready()
	}
	return closed
}

var closed = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Rank implements rules.Ranker, once the index is built.
func (p *pendingIndex) Rank(text string, minSignal float64) relevance.Ranking {
	<-p.done
	return p.ix.Rank(text, minSignal)
}

// DocOf is what the relevance index reads of a skill: its name,
// description, headings with their levels, body, and declared language
// (metadata.language).
func DocOf(s *skills.Skill) relevance.Doc {
	d := relevance.Doc{Name: s.Name, Description: s.Description, Body: s.Body, Language: s.Metadata["language"]}
	if len(s.Headings) > 0 {
		d.Headings = make([]string, len(s.Headings))
		d.Levels = make([]int, len(s.Headings))
		for i, h := range s.Headings {
			d.Headings[i], d.Levels[i] = h.Text, h.Level
		}
	}
	return d
}

// indexOf is the relevance index of ss (DocOf of each skill).
func indexOf(ss []skills.Skill) *relevance.Index {
	docs := make([]relevance.Doc, len(ss))
	for i := range ss {
		docs[i] = DocOf(&ss[i])
	}
	return relevance.NewIndex(docs, relevance.DefaultParams())
}
