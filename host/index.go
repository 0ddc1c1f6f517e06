package host

import (
	"fmt"
	"path/filepath"

	"github.com/skill-lifecycle/skill-lifecycle/guard"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Index is the host's skill list, indexed for the skill tool, the
// commands and the guard.
type Index struct {
	list   []HostSkill    // in host order
	byName map[string]int // name -> index in list
	byPath map[string]int // Path and its resolved form -> index
	// byShown maps a name as the model is shown it (ModelText), where that
	// differs from the name and is no other skill's name, to its index.
	byShown map[string]int
	// Diagnostics are the problems found while indexing.
	Diagnostics []string
	// reals are the skills' files resolved, by list index ("": not
	// resolved), as reading them found them.
	reals []string
	// folderList caches folders(), resolved at its first call.
	folderList  []guard.Folder
	foldersDone bool
	// The context model's view (paths): skill files by path, folders.
	pathCache   map[string]string
	folderCache []skillFolder
}

// NewIndex indexes the host's list: a skill without a name or a path,
// and the second of two with one name, are left out with a diagnostic.
func NewIndex(list []HostSkill) *Index {
	c := newIndex(list)
	reals := make([]string, len(c.list))
	for i, s := range c.list {
		reals[i], _ = filepath.EvalSymlinks(s.Path)
	}
	c.indexPaths(reals)
	return c
}

// newIndex is NewIndex without the paths (indexPaths).
func newIndex(list []HostSkill) *Index {
	c := &Index{byName: map[string]int{}, byPath: map[string]int{}, byShown: map[string]int{}}
	for _, s := range list {
		if s.Name == "" || s.Path == "" {
			c.Diagnostics = append(c.Diagnostics, fmt.Sprintf("host skill %q with path %q ignored: name and path are required", s.Name, s.Path))
			continue
		}
		if _, dup := c.byName[s.Name]; dup {
			c.Diagnostics = append(c.Diagnostics, fmt.Sprintf("skill %q listed twice by the host; the first (%s) is kept", s.Name, c.list[c.byName[s.Name]].Path))
			continue
		}
		c.byName[s.Name] = len(c.list)
		c.list = append(c.list, s)
	}
	for i, s := range c.list {
		if shown := skills.ModelText(s.Name); shown != s.Name {
			if _, taken := c.byName[shown]; !taken {
				c.byShown[shown] = i
			}
		}
	}
	return c
}

// indexPaths indexes each skill's path and its resolved form, reals[i]
// for the skill at i ("": it could not be resolved).
func (c *Index) indexPaths(reals []string) {
	c.reals = reals
	for i, s := range c.list {
		c.byPath[filepath.Clean(s.Path)] = i
		if reals[i] != "" {
			c.byPath[reals[i]] = i
		}
	}
}

// List returns the indexed skills, in host order.
func (c *Index) List() []HostSkill { return append([]HostSkill(nil), c.list...) }

// Has reports whether a skill of that name is listed.
func (c *Index) Has(name string) bool {
	_, ok := c.byName[name]
	return ok
}

// visible lists the skills the model may load (in host order).
func (c *Index) visible() []HostSkill {
	out := make([]HostSkill, 0, len(c.list))
	for _, s := range c.list {
		if !s.DisableModelInvocation {
			out = append(out, s)
		}
	}
	return out
}

// lookup finds a model-visible skill by name: the name as the host gave
// it, or as the model was shown it (ModelText) when that differs.
func (c *Index) lookup(name string) (HostSkill, bool) {
	i, ok := c.byName[name]
	if !ok {
		i, ok = c.byShown[name]
	}
	if !ok || c.list[i].DisableModelInvocation {
		return HostSkill{}, false
	}
	return c.list[i], true
}

// SkillFile is the guard's lookup (guard.Lookup): which visible skill's
// SKILL.md the absolute path p is, comparing the path as given and with
// symlinks resolved. A path that is not clean (Pi 0.73 opens an absolute
// path as written) is resolved as the kernel resolves it: a ".." after a
// symbolic link leaves the link's target, not the link's folder.
func (c *Index) SkillFile(p string) (guard.Skill, bool) {
	i, ok := 0, false
	if p == filepath.Clean(p) {
		i, ok = c.byPath[p]
	}
	if !ok {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return guard.Skill{}, false
		}
		if i, ok = c.byPath[real]; !ok {
			return guard.Skill{}, false
		}
	}
	s := c.list[i]
	return guard.Skill{Name: s.Name, Path: s.Path}, !s.DisableModelInvocation
}

// folders are the folders of the visible skills that are a SKILL.md,
// for the guard's bundled-file check (guard.LeavesFolder). A folder that
// cannot be resolved is left out. A file read through no link at all
// (its resolved path is its path) has its folder as it is: resolving
// 100,000 folders again cost the first guarded call 1.4 s.
func (c *Index) folders() []guard.Folder {
	if c.foldersDone {
		return c.folderList
	}
	c.foldersDone = true
	var out []guard.Folder
	for i, s := range c.list {
		if s.DisableModelInvocation || filepath.Base(s.Path) != "SKILL.md" {
			continue
		}
		path := filepath.Clean(s.Path)
		dir := filepath.Dir(path)
		real := dir
		if i >= len(c.reals) || c.reals[i] != path {
			var err error
			if real, err = filepath.EvalSymlinks(dir); err != nil {
				continue
			}
		}
		out = append(out, guard.Folder{Skill: s.Name, Dir: dir, Real: real})
	}
	c.folderList = out
	return out
}
