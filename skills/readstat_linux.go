package skills

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
)

// readSkillOpen is ReadSkillStat's path without an lstat: the file opened
// without following a link anywhere on its path (then it is where path
// names it, in its folder), else in its folder as r resolves it without
// following a final link (which then cannot lead out of the folder), and
// fstat'ed. ok is false when it declines (a link, a missing or irregular
// file: the general path says why).
func readSkillOpen(r *Resolver, path string) (s *Skill, real string, fi os.FileInfo, ok bool, err error) {
	if r == nil || !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return nil, "", nil, false, nil
	}
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	if base == "" || dir == path {
		return nil, "", nil, false, nil
	}
	fd, st, err := r.openNoLinks(path, dir)
	real = path
	if err != nil {
		realDir, err := r.dir(dir)
		if err != nil {
			return nil, "", nil, false, nil
		}
		real = filepath.Join(realDir, base)
		if fd, st, err = regfile.OpenStat(real, true); err != nil {
			return nil, "", nil, false, nil
		}
	}
	r.mu.Lock()
	r.dirs[path] = real
	r.mu.Unlock()
	fi = &statInfo{name: base, st: st}
	data, err := handle{fd: fd, size: st.Size}.readAll(MaxFileSize, r.slab())
	s, err = parseRead(path, data, err)
	return s, real, fi, true, err
}

// loopsToSkip is how many paths through a link under one catalogue
// folder openNoLinks meets before it stops trying there: a linked skills
// folder would otherwise cost a failed call for each of its skills.
const loopsToSkip = 16

// openNoLinks opens path, in folder dir, with regfile.OpenStatNoLinks,
// unless paths under dir's parent (the catalogue folder) met links
// loopsToSkip times.
func (r *Resolver) openNoLinks(path, dir string) (int, syscall.Stat_t, error) {
	root := filepath.Dir(dir)
	r.mu.Lock()
	skip := r.loops[root] >= loopsToSkip
	r.mu.Unlock()
	if skip {
		return -1, syscall.Stat_t{}, syscall.ELOOP
	}
	fd, st, err := regfile.OpenStatNoLinks(path)
	if errors.Is(err, syscall.ELOOP) {
		r.mu.Lock()
		r.loops[root]++
		r.mu.Unlock()
	}
	return fd, st, err
}

// statInfo is an os.FileInfo from a Stat_t, as os.Lstat makes it for a
// file that is no link.
type statInfo struct {
	name string
	st   syscall.Stat_t
}

func (i *statInfo) Name() string { return i.name }
func (i *statInfo) Size() int64  { return i.st.Size }
func (i *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(i.st.Mode & 0o777)
	switch i.st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	default:
		m |= fs.ModeIrregular
	}
	return m
}
func (i *statInfo) ModTime() time.Time { return time.Unix(i.st.Mtim.Unix()) }
func (i *statInfo) IsDir() bool        { return i.Mode().IsDir() }
func (i *statInfo) Sys() any           { return &i.st }
