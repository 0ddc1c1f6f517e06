package skills

import (
	"os"
	"path/filepath"
	"sync"
)

// Resolver resolves symbolic links in absolute paths as
// filepath.EvalSymlinks does, remembering each path it resolved: the
// skills of a catalogue share their parent folders, so resolving N skill
// files costs about 2N lstat calls instead of one per path element (ten
// or more each), and resolving one again costs none. A path that is not
// absolute and clean is handed to filepath.EvalSymlinks whole, since ".."
// after a link must follow the link. The paths it remembers are those of
// the moment they were first resolved: a Resolver is for one pass over a
// catalogue (a world build), not kept; the files read through it share
// large buffers (slab). It is safe for concurrent use.
type Resolver struct {
	mu    sync.Mutex
	dirs  map[string]string // clean absolute path -> resolved
	buf   *slab
	loops map[string]int // catalogue folder -> paths through a link met (Linux)
}

// NewResolver returns an empty Resolver.
func NewResolver() *Resolver {
	return &Resolver{dirs: map[string]string{}, buf: new(slab), loops: map[string]int{}}
}

// slab is r's buffers (nil for a nil r: a buffer for each file).
func (r *Resolver) slab() *slab {
	if r == nil {
		return nil
	}
	return r.buf
}

// EvalSymlinks is filepath.EvalSymlinks(p), for p in a remembered folder
// at the cost of one lstat, and for a remembered p at none.
func (r *Resolver) EvalSymlinks(p string) (string, error) {
	if r == nil || !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return filepath.EvalSymlinks(p)
	}
	return r.dir(p)
}

func (r *Resolver) resolve(p string) (string, error) {
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	if base == "" || dir == p {
		return filepath.EvalSymlinks(p)
	}
	real, err := r.dir(dir)
	if err != nil {
		return "", err
	}
	full := filepath.Join(real, base)
	fi, err := os.Lstat(full)
	if err != nil {
		return "", &os.PathError{Op: "lstat", Path: p, Err: underlying(err)}
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return filepath.EvalSymlinks(full)
	}
	return full, nil
}

// dir is the resolved form of path d (absolute and clean), remembered.
func (r *Resolver) dir(d string) (string, error) {
	r.mu.Lock()
	real, ok := r.dirs[d]
	r.mu.Unlock()
	if ok {
		return real, nil
	}
	var err error
	if parent := filepath.Dir(d); parent == d {
		real = d
	} else {
		real, err = r.resolve(d)
		if err != nil {
			return "", err
		}
	}
	r.mu.Lock()
	r.dirs[d] = real
	r.mu.Unlock()
	return real, nil
}

func underlying(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// ReadSkillWith is ReadSkill, resolving links with r (nil: none
// remembered).
func ReadSkillWith(r *Resolver, path string) (s *Skill, baseDir string, err error) {
	return readSkill(r, path)
}

// Lstat resolves p as EvalSymlinks does and returns what lstat says of the
// file it resolves to (never a link), at the cost of the lstat resolving
// it takes anyway (one more when p is a link). The resolved path is
// remembered as EvalSymlinks remembers it.
func (r *Resolver) Lstat(p string) (real string, fi os.FileInfo, err error) {
	if r == nil || !filepath.IsAbs(p) || filepath.Clean(p) != p {
		if real, err = filepath.EvalSymlinks(p); err != nil {
			return "", nil, err
		}
		fi, err = os.Lstat(real)
		return real, fi, err
	}
	r.mu.Lock()
	real, ok := r.dirs[p]
	r.mu.Unlock()
	if ok {
		fi, err = os.Lstat(real)
		return real, fi, err
	}
	dir, base := filepath.Split(p)
	dir = filepath.Clean(dir)
	if base == "" || dir == p {
		if real, err = filepath.EvalSymlinks(p); err != nil {
			return "", nil, err
		}
		fi, err = os.Lstat(real)
		return real, fi, err
	}
	realDir, err := r.dir(dir)
	if err != nil {
		return "", nil, err
	}
	real = filepath.Join(realDir, base)
	if fi, err = os.Lstat(real); err != nil {
		return "", nil, &os.PathError{Op: "lstat", Path: p, Err: underlying(err)}
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		if real, err = filepath.EvalSymlinks(real); err != nil {
			return "", nil, err
		}
		if fi, err = os.Lstat(real); err != nil {
			return "", nil, err
		}
	}
	r.mu.Lock()
	r.dirs[p] = real
	r.mu.Unlock()
	return real, fi, nil
}
