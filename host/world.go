package host

import (
	"fmt"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// World is everything a session derives from the host's skill list and
// the configuration files: the host's skills indexed (Skills), their
// parsed files, the engine's catalog with its relevance index, the
// configuration, and the problems found while building it. A world is
// built whole (NewWorld, Load) and replaced whole: at initialize,
// skills/update, a re-index and /skills-reload. Its diagnostics are those
// of the files it was built from.
type World struct {
	Skills      *Index
	Parsed      map[string]*skills.Skill
	Catalog     lifecycle.Catalog
	Config      rules.Config
	Diagnostics []string
}

// Source says where a world comes from: the host's skill list, and the
// folders and trust that decide which configuration files apply.
type Source struct {
	Skills   []HostSkill
	Cwd      string
	AgentDir string
	// Trusted is the host's word on the project (nil: it cannot tell).
	Trusted *bool
}

// NewWorld builds a world from the host's skill list (the names and
// descriptions the model sees), the skills parsed from their files (what
// ranking reads), the configuration and the problems found reading them.
// It is the one place a catalog is built: the engine's (lifecycle.CatalogOf:
// calls, inferred entry, BM25 index) and the host's index.
func NewWorld(list []HostSkill, parsed []skills.Skill, cfg rules.Config, diags []string) *World {
	w := &World{Skills: NewIndex(list), Parsed: make(map[string]*skills.Skill, len(parsed)), Config: cfg}
	for i := range parsed {
		w.Parsed[parsed[i].Name] = &parsed[i]
	}
	w.Catalog = lifecycle.CatalogOf(parsed, nil)
	w.Diagnostics = append(append([]string{}, w.Skills.Diagnostics...), diags...)
	return w
}

// Load reads the world of src: every listed skill's file (skills.ReadSkill:
// a file that resolves outside its folder, or is not a regular file, is
// refused with a diagnostic) and the configuration (LoadConfig).
func Load(src Source) *World {
	var parsed []skills.Skill
	var diags []string
	for _, hs := range NewIndex(src.Skills).list {
		s, _, err := skills.ReadSkill(hs.Path)
		if err != nil {
			diags = append(diags, fmt.Sprintf("skill %q: %v", hs.Name, err))
			continue
		}
		// The host's name is the skill's. Ranking follows the file's
		// description (the host's when the file has none): after an edit
		// the re-index reads the new one, which the host lists only after
		// a reload; the model sees the host's listing (Skills).
		s.Name = hs.Name
		if s.Description == "" {
			s.Description = hs.Description
		}
		parsed = append(parsed, *s)
	}
	cfg, cd := LoadConfig(src)
	return NewWorld(src.Skills, parsed, cfg, append(diags, cd...))
}

// OfCatalog is the world of skills discovered on disk (skills.Discover:
// replay's and the command line's --skills folders) under cfg: every
// skill listed as the host would list it.
func OfCatalog(cat *skills.Catalog, cfg rules.Config) *World {
	list := make([]HostSkill, len(cat.Skills))
	parsed := make([]skills.Skill, len(cat.Skills))
	for i, s := range cat.Skills {
		list[i] = HostSkill{Name: s.Name, Description: s.Description, Path: s.Path, DisableModelInvocation: s.DisableModelInvocation}
		parsed[i] = *s
	}
	return NewWorld(list, parsed, cfg, nil)
}

// WithConfig is the world of w's skills under cfg (a strategy of replay
// run with another configuration).
func (w *World) WithConfig(cfg rules.Config) *World {
	c := *w
	c.Config = cfg
	return &c
}
