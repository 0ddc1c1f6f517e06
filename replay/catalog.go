package replay

import (
	"path/filepath"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// CatalogOf turns discovered skills into what the engine and replay need:
// the engine's catalog (names, descriptions, roles, the skills each body
// tells the model to load, the entry skill inferred from those
// cross-references, a BM25 ranker over names, descriptions and headings)
// and the replay pack (skill names and
// the folders that hold them, so that a read of <folder>/<name>/SKILL.md
// counts as a load and a later tool call under an archived skill's folder
// as an orphan use).
func CatalogOf(cat *skills.Catalog, orphanDirs []string) (lifecycle.Catalog, *Pack) {
	pack := &Pack{Names: map[string]bool{}}
	seenDir := map[string]bool{}
	var infos []lifecycle.SkillInfo
	var docs []relevance.Doc
	for _, s := range cat.Skills {
		pack.Names[s.Name] = true
		infos = append(infos, lifecycle.SkillInfo{Name: s.Name, Description: s.Description, Role: s.Role})
		d := relevance.Doc{Name: s.Name, Description: s.Description}
		for _, h := range s.Headings {
			d.Headings = append(d.Headings, h.Text)
			d.Levels = append(d.Levels, h.Level)
		}
		docs = append(docs, d)
		if parent := filepath.Dir(s.Dir); s.Dir != "" && !seenDir[parent] {
			seenDir[parent] = true
			pack.Dirs = append(pack.Dirs, parent)
		}
	}
	for _, d := range orphanDirs {
		if !seenDir[d] {
			seenDir[d] = true
			pack.Dirs = append(pack.Dirs, d)
		}
	}
	lc := lifecycle.Catalog{Skills: infos}
	if len(docs) == 0 {
		return lc, pack
	}
	lc.Ranker = relevance.NewIndex(docs, relevance.DefaultParams())
	bodies := make([]relevance.Body, len(cat.Skills))
	var members, declared []string
	for i, s := range cat.Skills {
		bodies[i] = relevance.Body{Name: s.Name, Text: s.Body}
		members = append(members, s.Name)
		if s.Role == skills.RoleEntry {
			declared = append(declared, s.Name)
		}
	}
	refs := relevance.CrossRefs(bodies)
	for i := range lc.Skills {
		lc.Skills[i].Calls = refs[lc.Skills[i].Name].Loads
	}
	if e := relevance.ChooseEntry(members, refs, declared, true); e.Source == relevance.EntryInferred {
		lc.InferredEntry = e.Skill
	}
	return lc, pack
}
