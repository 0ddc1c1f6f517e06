package replay

import (
	"path/filepath"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// CatalogOf turns discovered skills into what the engine and replay need:
// the engine's catalog, built as the sidecar builds it
// (lifecycle.CatalogOf: names, descriptions, roles, each body's calls, the
// inferred entry skill, a BM25 ranker), and the replay pack (skill names
// and the folders that hold them, so that a read of
// <folder>/<name>/SKILL.md counts as a load and a later tool call under an
// archived skill's folder as an orphan use). orphanDirs are more folders
// holding <name>/ subfolders.
func CatalogOf(cat *skills.Catalog, orphanDirs []string) (lifecycle.Catalog, *Pack) {
	pack := &Pack{Names: map[string]bool{}, Files: map[string][]string{}, Locations: map[string]string{}}
	seenDir := map[string]bool{}
	vals := make([]skills.Skill, len(cat.Skills))
	for i, s := range cat.Skills {
		vals[i] = *s
		pack.Names[s.Name] = true
		if !s.DisableModelInvocation {
			pack.Listing = append(pack.Listing, skills.ListedSkill{Name: s.Name, Description: s.Description})
		}
		if s.Dir != "" {
			pack.Files[s.Name] = skills.TopLevelFiles(s.Dir)
		}
		pack.Locations[s.Name] = s.Path
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
	return lifecycle.CatalogOf(vals, nil), pack
}
