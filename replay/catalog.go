package replay

import (
	"path/filepath"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// PackOf is the replay pack of discovered skills (the engine's catalog is
// the world's, host.OfCatalog): skill names and the folders that hold
// them, so that a read of <folder>/<name>/SKILL.md counts as a load and a
// later tool call under an archived skill's folder as an orphan use, and
// what the bridge would have listed. orphanDirs are more folders holding
// <name>/ subfolders.
func PackOf(cat *skills.Catalog, orphanDirs []string) *Pack {
	pack := &Pack{Names: map[string]bool{}, Files: map[string][]string{}, Locations: map[string]string{}}
	seenDir := map[string]bool{}
	for _, s := range cat.Skills {
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
	// The bridge bounds its section (host/listing.go): for a model whose
	// context window the session does not tell, as the sidecar does when
	// the host gives none, with the default configuration.
	pack.Section = host.OfCatalog(cat, rules.Default()).Section(0)
	for _, d := range orphanDirs {
		if !seenDir[d] {
			seenDir[d] = true
			pack.Dirs = append(pack.Dirs, d)
		}
	}
	return pack
}
