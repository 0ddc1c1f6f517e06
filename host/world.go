package host

import (
	"fmt"
	"os"
	"path/filepath"
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
	// save writes the start-up cache of the build (nil: nothing to write).
	save func()
	// listed is the last listing made (listing.go); nil: none kept.
	listed *listMemo
	// found is the body finder (bodyfind.go); nil: one made for each use.
	found *finderMemo
}

// saveCache starts writing the start-up cache of the build, once.
func (w *World) saveCache() {
	if w.save != nil {
		w.save()
		w.save = nil
	}
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
	w := &World{Skills: idx, Parsed: make(map[string]*skills.Skill, len(parsed)), Config: cfg, listed: new(listMemo), found: new(finderMemo)}
	for i := range parsed {
		w.Parsed[parsed[i].Name] = &parsed[i]
	}
	// A file that hides its skill (disable-model-invocation) hides it
	// whatever the host's list says: Pi's skill commands, which a start
	// lists from, do not carry the flag.
	for i, hs := range idx.list {
		if sk := w.Parsed[hs.Name]; sk != nil && sk.DisableModelInvocation {
			idx.list[i].DisableModelInvocation = true
		}
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
func Load(src Source) *World {
	w := load(src, newIndex(src.Skills), nil)
	w.saveCache()
	return w
}

// load is Load over idx, the index of src's list without its paths.
// stated, when not nil, is called once every listed file was lstat'ed
// (or, with no cache file, read), with what was seen (statsOf).
func load(src Source, idx *Index, stated func(known func(path string) (skills.Stamp, bool))) *World {
	res := skills.NewResolver()
	n := len(idx.list)
	out := make([]skills.Skill, n)
	errs := make([]error, n)
	reals := make([]string, n)
	fis := make([]os.FileInfo, n)
	refs := make([]relevance.Refs, n)
	names := make([]string, n)
	for i, hs := range idx.list {
		names[i] = hs.Name
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, n/64))
	// First every file's lstat (the links resolved), which the start-up
	// cache is keyed by, while the cache file is read. With no cache
	// file of this binary there is nothing to look up: each file's stamp
	// is taken as it is read, from the open file (skills.ReadSkillStat).
	file := cacheFile(idx.list)
	fresh := !cacheOfThisBinary(file)
	opened := make(chan *skillCache, 1)
	go func() { opened <- openCache(idx.list, file) }()
	if !fresh {
		parallel(n, workers, func(i int) {
			reals[i], fis[i], errs[i] = res.Lstat(idx.list[i].Path)
		})
		if stated != nil {
			stated(statsOf(idx.list, reals, fis))
		}
	}
	cache := <-opened
	namesSum := namesHash(names)
	sameNames := cache.sameNames(namesSum)
	entries := make([]*cacheEntry, n)
	var hits atomic.Int64
	finder := relevance.NewRefFinder(names)
	var forks sync.Pool
	forks.New = func() any { return &readState{finder: finder.Fork()} }
	parallel(n, workers, func(i int) {
		st := forks.Get().(*readState)
		defer forks.Put(st)
		hs := idx.list[i]
		key, keyed := statKey{}, false
		var s skills.Skill
		e := (*cacheEntry)(nil)
		if fresh {
			p, real, fi, err := skills.ReadSkillStat(res, hs.Path)
			reals[i], fis[i], errs[i] = real, fi, err
			if err != nil {
				return
			}
			s = *p
			key, keyed = keyOf(fi)
		} else if errs[i] == nil {
			key, keyed = keyOf(fis[i])
			if keyed && cacheUsable(res, hs.Path, reals[i], fis[i]) {
				e = cache.lookup(hs, reals[i], key)
			}
		}
		switch {
		case fresh:
		case e != nil:
			hits.Add(1)
			cacheHits.Add(1)
			s = e.skill
		default:
			p, _, err := skills.ReadSkillWith(res, hs.Path)
			if err != nil {
				errs[i] = err
				return
			}
			errs[i] = nil
			s = *p
		}
		raw := s
		// The host's name is the skill's. Ranking follows the file's
		// description (the host's when the file has none): after an
		// edit the re-index reads the new one, which the host lists
		// only after a reload; the model sees the host's listing. A
		// host that gives none (the bridge) has the file's listed.
		s.Name = hs.Name
		if s.Description == "" {
			s.Description = hs.Description
		}
		if hs.Description == "" {
			idx.list[i].Description = s.Description
		}
		out[i] = s
		if e != nil && sameNames && e.name == hs.Name {
			refs[i] = e.refs
		} else {
			refs[i] = st.finder.Refs(s.Name, s.Body)
		}
		if keyed {
			entries[i] = &cacheEntry{key: key, path: hs.Path, real: reals[i], name: hs.Name, skill: raw, refs: refs[i]}
		}
	})
	if fresh && stated != nil {
		stated(statsOf(idx.list, reals, fis))
	}
	var kept []*cacheEntry
	stale := false // the cache file is to be written anew
	if cache.file != "" {
		kept = entries[:0]
		for _, e := range entries {
			if e != nil {
				kept = append(kept, e)
			}
		}
		stale = int(hits.Load()) != len(kept) || len(cache.records) != len(kept) || !sameNames || cache.bad.Load()
	}
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
	if d := cache.diagnostic(); d != "" {
		diags = append(diags, d)
	}
	w := newWorld(idx, parsed, byName, cfg, append(diags, cd...))
	if stale {
		// After the relevance index, which the first prompt waits for.
		w.save = func() { cache.save(namesSum, kept, w.Catalog.Ready()) }
	}
	return w
}

// statsOf is the stamp of each listed path whose lstat data fi is at
// hand (reals and fis, by the list's order: not to be changed after) and
// that is a regular file reached through no symbolic link, for
// skills.TakeSnapshotKnown.
func statsOf(list []HostSkill, reals []string, fis []os.FileInfo) func(string) (skills.Stamp, bool) {
	var once sync.Once
	var byPath map[string]int
	return func(path string) (skills.Stamp, bool) {
		once.Do(func() {
			byPath = make(map[string]int, len(list))
			for i, hs := range list {
				if fis[i] != nil && reals[i] == hs.Path && fis[i].Mode().IsRegular() {
					byPath[hs.Path] = i
				}
			}
		})
		i, ok := byPath[path]
		if !ok {
			return skills.Stamp{}, false
		}
		return skills.Stamp{Size: fis[i].Size(), ModNano: fis[i].ModTime().UnixNano()}, true
	}
}

// readState is what a read worker keeps: its RefFinder.
type readState struct {
	finder *relevance.RefFinder
}

// parallel runs f(i) for every i below n on workers goroutines.
func parallel(n, workers int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// cacheUsable reports whether the file at path, resolved to real with
// lstat data fi, is one ReadSkill would read without opening it: a
// regular file within its folder, not over the size limit. Anything else
// is read (and refused) as without the cache.
func cacheUsable(res *skills.Resolver, path, real string, fi os.FileInfo) bool {
	if !fi.Mode().IsRegular() || fi.Size() > skills.MaxFileSize {
		return false
	}
	dir, err := res.EvalSymlinks(filepath.Dir(path))
	return err == nil && skills.Within(dir, real)
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
	c.listed = new(listMemo)
	return &c
}
