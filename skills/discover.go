package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
)

// Sources, as Pi names them.
const (
	SourceUser    = "user"    // under the agent dir's skills folder
	SourceProject = "project" // under <cwd>/.pi/skills
	SourcePath    = "path"    // everywhere else, .agents/skills included
)

// Options say where to look. The core reads no environment variables and
// no working directory of its own: EnvOptions fills these from the process
// for the command line, tests set them by hand.
type Options struct {
	// Home is the user's home directory. Empty: no ~/.agents/skills, and
	// no ~/.pi/agent/skills unless AgentDir is set.
	Home string
	// AgentDir is Pi's agent folder ($PI_CODING_AGENT_DIR); empty means
	// Home/.pi/agent. Its skills/ folder is the "user" source.
	AgentDir string
	// Cwd is the working directory. Empty: no project folders.
	Cwd string
	// Paths are extra skill files or folders (Pi's --skill), scanned after
	// the automatic folders, in order, with source "path". A relative path
	// is taken relative to Cwd, or to the process's directory when Cwd is
	// empty, so that skill paths are absolute, as Pi reports them.
	Paths []string
	// NoDefaults scans Paths only (Pi's --no-skills with --skill).
	NoDefaults bool
	// Mode decides which skills load: in Lenient (the default) a skill
	// with an Error diagnostic is skipped, as Pi skips it; in Strict only
	// skills valid under the reference rules are kept.
	Mode Mode
}

// EnvOptions returns Options for this process: home from os.UserHomeDir,
// the agent dir from PI_CODING_AGENT_DIR (a leading ~ expanded), and the
// current directory.
func EnvOptions() (Options, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		home = ""
	}
	cwd, err := os.Getwd()
	if err != nil {
		return Options{}, fmt.Errorf("current directory: %w", err)
	}
	agent := os.Getenv("PI_CODING_AGENT_DIR")
	if agent == "~" {
		agent = home
	} else if strings.HasPrefix(agent, "~/") && home != "" {
		agent = filepath.Join(home, agent[2:])
	}
	return Options{Home: home, AgentDir: agent, Cwd: cwd}, nil
}

// Root is one place discovery looks.
type Root struct {
	Path   string
	Source string
	// Auto is true for Pi's automatic folders (a missing one is not a
	// problem) and false for paths given explicitly.
	Auto bool
}

// Roots lists, in Pi's precedence order, the places Discover scans:
// <cwd>/.pi/skills; .agents/skills in cwd and each ancestor up to the git
// root (the first folder holding .git; the filesystem root outside a
// repository), never ~/.agents/skills itself; <agent dir>/skills;
// ~/.agents/skills; then Paths. It checks only for .git along the way.
func Roots(opts Options) []Root {
	var roots []Root
	if !opts.NoDefaults {
		homeAgents := ""
		if opts.Home != "" {
			homeAgents = filepath.Join(opts.Home, ".agents", "skills")
		}
		if opts.Cwd != "" {
			cwd := filepath.Clean(opts.Cwd)
			roots = append(roots, Root{Path: filepath.Join(cwd, ".pi", "skills"), Source: SourceProject, Auto: true})
			for dir := cwd; ; {
				if p := filepath.Join(dir, ".agents", "skills"); p != homeAgents {
					roots = append(roots, Root{Path: p, Source: SourcePath, Auto: true})
				}
				if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
					break
				}
				parent := filepath.Dir(dir)
				if parent == dir {
					break
				}
				dir = parent
			}
		}
		agent := opts.AgentDir
		if agent == "" && opts.Home != "" {
			agent = filepath.Join(opts.Home, ".pi", "agent")
		}
		if agent != "" {
			roots = append(roots, Root{Path: filepath.Join(agent, "skills"), Source: SourceUser, Auto: true})
		}
		if homeAgents != "" {
			roots = append(roots, Root{Path: homeAgents, Source: SourcePath, Auto: true})
		}
	}
	for _, p := range opts.Paths {
		if !filepath.IsAbs(p) {
			if opts.Cwd != "" {
				p = filepath.Join(opts.Cwd, p)
			} else if abs, err := filepath.Abs(p); err == nil {
				p = abs
			}
		}
		roots = append(roots, Root{Path: filepath.Clean(p), Source: SourcePath})
	}
	return roots
}

// Catalog is the result of discovery: the skills that load, in the order
// found, and every diagnostic met on the way.
type Catalog struct {
	Skills      []*Skill
	Diagnostics []Diagnostic
	Roots       []Root // the places scanned, in order
	byName      map[string]*Skill
}

// Lookup returns the skill of that name.
func (c *Catalog) Lookup(name string) (*Skill, bool) {
	if c == nil || c.byName == nil {
		return nil, false
	}
	s, ok := c.byName[name]
	return s, ok
}

// LookupPath returns the skill whose file is path, compared with both the
// path as found and the path with links resolved (a model may read the
// file through either).
func (c *Catalog) LookupPath(path string) (*Skill, bool) {
	if c == nil {
		return nil, false
	}
	path = filepath.Clean(path)
	for _, s := range c.Skills {
		if s.Path == path || s.RealPath == path {
			return s, true
		}
	}
	return nil, false
}

// Names returns the skills' names in catalog order.
func (c *Catalog) Names() []string {
	names := make([]string, len(c.Skills))
	for i, s := range c.Skills {
		names[i] = s.Name
	}
	return names
}

// Add appends a skill unless its name is taken, in which case the first
// keeps the name and a "name-collision" warning names both files. It
// reports whether s was added.
func (c *Catalog) Add(s *Skill) bool {
	if c.byName == nil {
		c.byName = map[string]*Skill{}
	}
	if w, dup := c.byName[s.Name]; dup {
		c.Diagnostics = append(c.Diagnostics, Diagnostic{Path: w.Path, OtherPath: s.Path, Field: "name", Severity: Warning, Code: "name-collision",
			Message: fmt.Sprintf("skill name %q is used by %s and by %s; the first is kept", s.Name, w.Path, s.Path)})
		return false
	}
	c.byName[s.Name] = s
	c.Skills = append(c.Skills, s)
	return true
}

// Discover finds and loads skills with Pi's rules:
//
//   - at a scanned folder's root, every *.md file is a skill (as is the
//     root itself when it holds SKILL.md);
//   - below the root only SKILL.md counts, and a folder holding SKILL.md is
//     a skill root: the scan does not descend further;
//   - entries whose names start with "." and node_modules are skipped;
//   - symbolic links are followed, each real folder is entered once (so
//     loops end), and a file already loaded under another path (same real
//     path) is skipped silently; broken links are skipped;
//   - unlike Pi, a link to a folder that holds the folder being scanned (a
//     link to "/", to the home folder, to ../..) is not followed: it would
//     scan the whole file system around the skills; a
//     "symlink-to-ancestor" warning names it;
//   - files over MaxFileSize are skipped with a diagnostic;
//   - when two skills share a name, the first found wins and a
//     "name-collision" diagnostic names both files.
//
// A path given in Options.Paths may also be a single markdown file. Every
// file is read once; files are parsed in parallel and the result does not
// depend on scheduling.
func Discover(opts Options) *Catalog {
	roots := Roots(opts)
	// The walk (one goroutine: it owns the visited and seen sets) hands
	// each file, already open, to workers that read, parse and validate
	// it; the channel's buffer bounds the open files. Results keep the
	// walk's order.
	ch := make(chan *item, 64)
	buf := new(slab)
	var wg sync.WaitGroup
	for i := 0; i < runtime.GOMAXPROCS(0); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range ch {
				it.load(opts.Mode, buf)
			}
		}()
	}
	w := newWalker(func(it *item) { ch <- it })
	for _, r := range roots {
		w.root(r)
	}
	close(ch)
	wg.Wait()

	c := &Catalog{Roots: roots, byName: make(map[string]*Skill, len(w.items))}
	for _, it := range w.items {
		c.Diagnostics = append(c.Diagnostics, it.diags...)
		if it.ok {
			c.Add(it.s)
		}
	}
	return c
}

// item is one file found by the walk (or one problem met by it), then its
// parsed and validated form.
type item struct {
	path, real, source string
	h                  handle // open, when hasH: the walk opened it already
	hasH               bool
	s                  *Skill
	diags              []Diagnostic
	ok                 bool
}

// load reads, parses and validates the item's file (into a buffer from
// buf).
func (it *item) load(mode Mode, buf *slab) {
	if it.path == "" {
		return // a walk diagnostic only
	}
	var data []byte
	var err error
	if it.hasH {
		data, err = it.h.readAll(MaxFileSize, buf)
	} else {
		data, err = readLimited(it.path, MaxFileSize)
	}
	if err != nil {
		if errors.Is(err, errTooLarge) {
			it.diags = append(it.diags, Diagnostic{Path: it.path, Severity: Warning, Code: "file-too-large",
				Message: fmt.Sprintf("skipped: the file is over the %d-byte limit for a skill file", MaxFileSize)})
			return
		}
		code, msg := unreadable(err)
		it.diags = append(it.diags, Diagnostic{Path: it.path, Severity: Warning, Code: code, Message: msg})
		return
	}
	s, d, ok := load(it.path, data, mode, true) // data was read for it alone
	s.RealPath, s.Source = it.real, it.source
	it.s, it.diags, it.ok = s, append(it.diags, d...), ok
}

// walker is discovery's use of the walk: each file found becomes an item,
// handed on (already open when the walk's probe opened it) to be loaded,
// and each problem met becomes an item holding only a diagnostic.
type walker struct {
	walk[handle]
	items []*item
	emit  func(*item)
}

func newWalker(emit func(*item)) *walker {
	w := &walker{emit: emit}
	w.walk = walk[handle]{
		visited: map[string]bool{},
		seen:    map[string]bool{},
		probe:   openRegular,
		release: handle.close,
		file:    w.add,
		warn:    w.note,
	}
	return w
}

func (w *walker) note(path, code, message string) {
	w.items = append(w.items, &item{diags: []Diagnostic{{Path: path, Severity: Warning, Code: code, Message: message}}})
}

// add records one skill file and hands it on.
func (w *walker) add(path, real, source string, h handle, opened bool) {
	it := &item{path: path, real: real, source: source, h: h, hasH: opened}
	w.items = append(w.items, it)
	w.emit(it)
}

// walk holds the rules that say which files under some roots are skill
// files (the rules Discover documents), and nothing about what is done
// with them: Discover reads each file it yields, TakeSnapshot stats it, so
// the two cannot disagree about where skills are. P is what the probe
// learns about a folder's SKILL.md (an open file for discovery, a stamp
// for the snapshot).
type walk[P any] struct {
	visited map[string]bool // real folders entered
	seen    map[string]bool // real files taken
	// probe looks at a folder's SKILL.md before the folder is listed. It
	// returns ok only when that is a regular file and not a symbolic link,
	// which settles the common case in one system call; it may decline in
	// any case (no file, a link, a file it cannot open, a system lacking
	// the call), and the folder listing then decides.
	probe func(path string) (P, bool)
	// release lets go of a probe's result that goes unused (its file was
	// taken already under another path); nil when there is nothing to free.
	release func(P)
	// file takes a skill file met at path, whose real path (links
	// resolved) is real; it is called once per real path. p is the probe's
	// result for that file when probed is true (false: the listing found
	// it).
	file func(path, real, source string, p P, probed bool)
	// warn reports a problem met on the way; nil discards them.
	warn func(path, code, message string)
}

func (w *walk[P]) problem(path, code, format string, args ...any) {
	if w.warn != nil {
		w.warn(path, code, fmt.Sprintf(format, args...))
	}
}

// root walks one root: a folder, or a single markdown file.
func (w *walk[P]) root(r Root) {
	st, err := os.Stat(r.Path)
	if err != nil {
		if !r.Auto || !errors.Is(err, fs.ErrNotExist) {
			w.problem(r.Path, "path-unreadable", "cannot read skills path: %v", err)
		}
		return
	}
	real, err := filepath.EvalSymlinks(r.Path)
	if err != nil {
		w.problem(r.Path, "path-unreadable", "cannot resolve skills path: %v", err)
		return
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() {
			w.problem(r.Path, "not-a-regular-file", "%s, not a regular file: skipped, as Pi skips it", regfile.Kind(st.Mode()))
			return
		}
		if !strings.HasSuffix(r.Path, ".md") {
			w.problem(r.Path, "not-markdown", "a skill file must be a .md file")
			return
		}
		w.listed(r.Path, real, r.Source)
		return
	}
	w.dir(r.Path, real, r.Source, true)
}

// dir walks folder path, whose real path is real.
func (w *walk[P]) dir(path, real, source string, isRoot bool) {
	if w.visited[real] {
		return
	}
	w.visited[real] = true
	// A folder holding SKILL.md is a skill root: take it and stop. The
	// probe answers for the common case (a regular SKILL.md, or none)
	// without listing the folder; the listing handles the rest.
	full := filepath.Join(path, "SKILL.md")
	if p, ok := w.probe(full); ok {
		w.take(full, filepath.Join(real, "SKILL.md"), source, p, true)
		return
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		w.problem(path, "folder-unreadable", "cannot read folder: %v", err)
		return
	}
	for _, e := range entries {
		if e.Name() != "SKILL.md" {
			continue
		}
		t := e.Type()
		if t.IsRegular() { // the probe declined it: it could not open it, or cannot on this system
			w.listed(full, filepath.Join(real, "SKILL.md"), source)
			return
		}
		if t&fs.ModeSymlink != 0 {
			st, err := os.Stat(full)
			if err == nil && st.Mode().IsRegular() {
				if r, err := filepath.EvalSymlinks(full); err == nil {
					w.listed(full, r, source)
					return
				}
			}
			w.notSkillFile(full, t, st, err)
			break
		}
		w.notSkillFile(full, t, nil, nil)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		full := filepath.Join(path, name)
		t := e.Type()
		// A root *.md that is no regular file is named here; SKILL.md
		// was named above.
		candidate := isRoot && strings.HasSuffix(name, ".md") && name != "SKILL.md"
		if t&fs.ModeSymlink != 0 {
			st, err := os.Stat(full)
			if err != nil {
				// A broken link (or a loop the OS refuses): skipped, as
				// Pi does; named when it stands for a skill file.
				if candidate {
					w.notSkillFile(full, t, nil, err)
				}
				continue
			}
			r, err := filepath.EvalSymlinks(full)
			if err != nil {
				continue
			}
			switch {
			case st.IsDir():
				if !w.visited[r] && holds(r, real) {
					w.problem(full, "symlink-to-ancestor", "not followed: the link points to %s, a folder that holds this skills folder, so following it would scan everything around it", r)
					continue
				}
				w.dir(full, r, source, false)
			case candidate && st.Mode().IsRegular():
				w.listed(full, r, source)
			case candidate:
				w.notSkillFile(full, t, st, nil)
			}
			continue
		}
		switch {
		case t.IsDir():
			w.dir(full, filepath.Join(real, name), source, false)
		case isRoot && t.IsRegular() && strings.HasSuffix(name, ".md"):
			w.listed(full, filepath.Join(real, name), source)
		case candidate:
			w.notSkillFile(full, t, nil, nil)
		}
	}
}

// notSkillFile names a file that would be a skill file but is not a
// regular one: a folder called SKILL.md, a named pipe, a device, a socket,
// or a link that is broken, loops or leads to one of those. t is its
// type as listed; for a link, st is what it leads to, or err why it leads
// nowhere. Pi skips each one silently; discovery skips it too and says
// so. None of them is opened.
func (w *walk[P]) notSkillFile(path string, t fs.FileMode, st fs.FileInfo, err error) {
	if w.warn == nil {
		return
	}
	if t&fs.ModeSymlink == 0 {
		if t.IsDir() {
			w.problem(path, "not-a-regular-file", "a folder, not a skill file: skipped (it is scanned as a folder, as Pi scans it)")
			return
		}
		w.problem(path, "not-a-regular-file", "%s, not a regular file: skipped, as Pi skips it", regfile.Kind(t))
		return
	}
	target, rerr := os.Readlink(path)
	if rerr != nil {
		target = "?"
	}
	switch {
	case errors.Is(err, syscall.ELOOP):
		w.problem(path, "symlink-loop", "a symbolic link that loops (to %s): skipped, as Pi skips it", target)
	case errors.Is(err, fs.ErrNotExist):
		w.problem(path, "broken-symlink", "a broken symbolic link (to %s, which does not exist): skipped, as Pi skips it", target)
	case err != nil:
		w.problem(path, "broken-symlink", "a symbolic link that cannot be followed (to %s: %v): skipped, as Pi skips it", target, err)
	case st.IsDir():
		w.problem(path, "not-a-regular-file", "a link to a folder (%s), not a skill file: skipped (the folder is scanned, as Pi scans it)", target)
	default:
		w.problem(path, "not-a-regular-file", "a link to %s (%s), not a regular file: skipped, as Pi skips it", regfile.Kind(st.Mode()), target)
	}
}

// holds reports whether folder dir is path or one of its ancestors (both
// absolute, with symlinks resolved).
func holds(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// listed hands on a skill file the probe did not look at.
func (w *walk[P]) listed(path, real, source string) {
	var none P
	w.take(path, real, source, none, false)
}

// take hands on one skill file, once per real path.
func (w *walk[P]) take(path, real, source string, p P, probed bool) {
	if w.seen[real] {
		if probed && w.release != nil {
			w.release(p)
		}
		return
	}
	w.seen[real] = true
	w.file(path, real, source, p, probed)
}

var errTooLarge = errors.New("file too large")

// unreadable is the diagnostic code and message for a skill file that
// could not be read (its path is the diagnostic's).
func unreadable(err error) (code, msg string) {
	var nr *regfile.NotRegularError
	if errors.As(err, &nr) {
		return "not-a-regular-file", fmt.Sprintf("%s, not a regular file: not read", regfile.Kind(nr.Mode))
	}
	return "file-unreadable", fmt.Sprintf("cannot read skill file: %v", err)
}

// readLimited reads at most limit bytes of a file, which must be a
// regular file (regfile.Open: a named pipe or a device is refused, never
// waited on).
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllLimited(f, limit)
}

// readAllLimited reads an open file to its end, failing with errTooLarge
// past limit bytes.
func readAllLimited(f *os.File, limit int64) ([]byte, error) {
	buf := make([]byte, 0, 4096)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadFile reads a skill file with the same size limit discovery uses.
func ReadFile(path string) ([]byte, error) {
	data, err := readLimited(path, MaxFileSize)
	if errors.Is(err, errTooLarge) {
		return nil, fmt.Errorf("%s: over the %d-byte limit for a skill file", path, MaxFileSize)
	}
	return data, err
}
