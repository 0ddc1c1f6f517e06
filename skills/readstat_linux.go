package skills

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
)

// readSkillOpen is ReadSkillStat's path without an lstat: the folder of
// path resolved by r, the file opened without following a final link
// (which then cannot lead out of the folder) and fstat'ed. ok is false
// when it declines (a link, a missing or irregular file: the general
// path says why).
func readSkillOpen(r *Resolver, path string) (s *Skill, real string, fi os.FileInfo, ok bool, err error) {
	if r == nil || !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return nil, "", nil, false, nil
	}
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	if base == "" || dir == path {
		return nil, "", nil, false, nil
	}
	realDir, err := r.dir(dir)
	if err != nil {
		return nil, "", nil, false, nil
	}
	real = filepath.Join(realDir, base)
	fd, st, err := regfile.OpenStat(real, true)
	if err != nil {
		return nil, "", nil, false, nil
	}
	r.mu.Lock()
	r.dirs[path] = real
	r.mu.Unlock()
	fi = &statInfo{name: base, st: st}
	data, err := handle{fd: fd, size: st.Size}.readAll(MaxFileSize, r.slab())
	s, err = parseRead(path, data, err)
	return s, real, fi, true, err
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
