package host

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
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
	return newWorld(NewIndex(list), parsed, nil, cfg, diags)
}

// newWorld is NewWorld over an index, with the cross-references of
// parsed (nil: found here).
func newWorld(idx *Index, parsed []skills.Skill, refs map[string]relevance.Refs, cfg rules.Config, diags []string) *World {
	w := &World{Skills: idx, Parsed: make(map[string]*skills.Skill, len(parsed)), Config: cfg}
	for i := range parsed {
		w.Parsed[parsed[i].Name] = &parsed[i]
	}
	if refs == nil {
		w.Catalog = lifecycle.CatalogOf(parsed, nil)
	} else {
		w.Catalog = lifecycle.CatalogWithRefs(parsed, refs)
	}
	w.Diagnostics = append(append([]string{}, w.Skills.Diagnostics...), diags...)
	return w
}

// Load reads the world of src: every listed skill's file (skills.ReadSkill:
// a file that resolves outside its folder, or is not a regular file, is
// refused with a diagnostic) and the configuration (LoadConfig). The
// files are read by one worker per CPU, links resolved once per path
// (skills.Resolver), each body's cross-references found as it is read;
// the world keeps the host's order.
func Load(src Source) *World { return load(src, newIndex(src.Skills)) }

// load is Load over idx, the index of src's list without its paths.
func load(src Source, idx *Index) *World {
	res := skills.NewResolver()
	out := make([]skills.Skill, len(idx.list))
	errs := make([]error, len(idx.list))
	reals := make([]string, len(idx.list))
	refs := make([]relevance.Refs, len(idx.list))
	names := make([]string, len(idx.list))
	for i, hs := range idx.list {
		names[i] = hs.Name
	}
	finder := relevance.NewRefFinder(names)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(1, len(idx.list)/64)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			finder := finder.Fork()
			var buf []byte
			for {
				i := int(next.Add(1)) - 1
				if i >= len(idx.list) {
					return
				}
				hs := idx.list[i]
				reals[i], _ = res.EvalSymlinks(hs.Path)
				s, _, err := skills.ReadSkillInto(res, hs.Path, &buf)
				if err != nil {
					errs[i] = err
					continue
				}
				// The host's name is the skill's. Ranking follows the file's
				// description (the host's when the file has none): after an
				// edit the re-index reads the new one, which the host lists
				// only after a reload; the model sees the host's listing.
				s.Name = hs.Name
				if s.Description == "" {
					s.Description = hs.Description
				}
				out[i] = *s
				refs[i] = finder.Refs(s.Name, s.Body)
			}
		}()
	}
	wg.Wait()
	idx.indexPaths(reals)
	var diags []string
	parsed := out[:0]
	failed := map[string]bool{}
	for i := range out {
		if errs[i] != nil {
			diags = append(diags, fmt.Sprintf("skill %q: %v", idx.list[i].Name, errs[i]))
			failed[idx.list[i].Name] = true
			continue
		}
		parsed = append(parsed, out[i])
		refs[len(parsed)-1] = refs[i]
	}
	byName := make(map[string]relevance.Refs, len(parsed))
	var again *relevance.RefFinder
	for i, s := range parsed {
		r := refs[i]
		if len(failed) > 0 {
			// The skills that could not be read are no names to find: a
			// body that named one is scanned again without them (the
			// others found the same as CrossRefs would).
			if slices.ContainsFunc(r.Names, func(n string) bool { return failed[n] }) {
				if again == nil {
					again = relevance.NewRefFinder(parsedNames(parsed))
				}
				r = again.Refs(s.Name, s.Body)
			}
		}
		byName[s.Name] = r
	}
	cfg, cd := LoadConfig(src)
	return newWorld(idx, parsed, byName, cfg, append(diags, cd...))
}

func parsedNames(ss []skills.Skill) []string {
	out := make([]string, len(ss))
	for i := range ss {
		out[i] = ss[i].Name
	}
	return out
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
