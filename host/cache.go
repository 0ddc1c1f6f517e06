package host

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// The start-up cache keeps what a world build derives from each skill
// file (the parsed skill and its cross-references) in one file per set
// of catalogue folders under os.UserCacheDir()/skill-lifecycle, so that a
// later build skips opening, reading, parsing and scanning every file
// whose lstat data (device, inode, size, mtime, ctime) is unchanged. A
// file that changed in any of them is read as without the cache. The
// skill tool never delivers from it: a load reads the file
// (skills.ReadSkill). SKILL_LIFECYCLE_CACHE=off turns it off; catalogues
// under cacheMinSkills are not cached (reading them is as fast).
const (
	cacheEnv     = "SKILL_LIFECYCLE_CACHE"
	cacheMagic   = "skill-lifecycle start-up cache\n"
	cacheVersion = 1
	// cacheMaxAge is how long a cache file nobody used is kept, a
	// temporary file left by a writer that was stopped tmpMaxAge.
	cacheMaxAge = 30 * 24 * time.Hour
	tmpMaxAge   = time.Hour
)

// cacheMinSkills is the smallest catalogue cached (a variable for tests).
var cacheMinSkills = 256

// cacheHits counts the skills a world build took from the cache (for
// tests).
var cacheHits atomic.Int64

// cacheWrites counts the cache files being written (tests wait on it).
var cacheWrites sync.WaitGroup

// statKey is the lstat data a cache entry is valid for.
type statKey struct {
	dev, ino           uint64
	size, mtime, ctime int64
}

// cacheEntry is what the cache keeps of one skill file.
type cacheEntry struct {
	key        statKey
	path, real string // the host's path and the file it resolved to
	name       string // the host's name, the refs' self
	skill      skills.Skill
	refs       relevance.Refs
}

// skillCache is one cache file, read: its records found, each decoded
// (and its checksum checked) by the worker that looks it up.
type skillCache struct {
	file    string // "" when caching is off
	names   [32]byte
	records map[string]string // by the host's path
	diag    string            // why the file was not used, if it was bad
	bad     atomic.Bool       // a record was corrupt
}

// namesHash is the hash of the names the cross-references were found
// among, in order.
func namesHash(names []string) [32]byte {
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// cacheFile is the cache file of list, or "" when caching is off for it:
// one per set of folders holding the skills' folders.
func cacheFile(list []HostSkill) string {
	if len(list) < cacheMinSkills || strings.EqualFold(os.Getenv(cacheEnv), "off") || !statKeys {
		return ""
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	roots := map[string]bool{}
	for _, s := range list {
		roots[filepath.Dir(filepath.Dir(s.Path))] = true
	}
	keys := make([]string, 0, len(roots))
	for r := range roots {
		keys = append(keys, r)
	}
	sort.Strings(keys)
	sum := sha256.Sum256([]byte(strings.Join(keys, "\x00")))
	return filepath.Join(dir, "skill-lifecycle", "start-"+hex.EncodeToString(sum[:12])+".cache")
}

// openCache reads file, the cache file of list (cacheFile; no records
// when there is none or it is bad: diag then says why).
func openCache(list []HostSkill, file string) *skillCache {
	c := &skillCache{file: file}
	if c.file == "" {
		return c
	}
	limit := min(int64(16)<<30, 64<<10+int64(len(list))*(skills.MaxFileSize+64<<10))
	data, err := readCacheFile(c.file, limit)
	if err == nil {
		err = c.decode(data, len(list))
	}
	if errors.Is(err, errNoCache) || errors.Is(err, errOtherBinary) {
		c.records = nil
		return c
	}
	if err != nil {
		c.records = nil
		c.diag = fmt.Sprintf("start-up cache %s: %v; it is ignored and rebuilt", c.file, err)
	}
	return c
}

// diagnostic is what the world says of the cache: why it was ignored, or
// that some of its records were.
func (c *skillCache) diagnostic() string {
	if c.diag == "" && c.bad.Load() {
		return fmt.Sprintf("start-up cache %s: corrupt records; their skills are read from their files and it is rebuilt", c.file)
	}
	return c.diag
}

// errOtherBinary is decode's error for a cache written by another build
// of the binary, whose parser or cross-reference finder may differ: it
// is rebuilt without a diagnostic.
var errOtherBinary = errors.New("written by another binary")

// binaryID tells this build of the binary from others: the executable's
// size and mtime (a rebuild or an upgrade changes them).
var binaryID = func() (id [16]byte) {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", cacheVersion)
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			fmt.Fprintf(h, "%s %d %d", exe, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	copy(id[:], h.Sum(nil))
	return id
}()

// cacheOfThisBinary reports whether file (cacheFile; "": none) starts
// as a cache this build wrote: if not, a start-up reads every skill file
// as without a cache.
func cacheOfThisBinary(file string) bool {
	if file == "" {
		return false
	}
	f, err := regfile.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	_, err = readHeader(f)
	return err == nil
}

// readHeader reads the header of the cache file f and checks it
// (cacheHeader); it returns the bytes read.
func readHeader(f io.Reader) ([]byte, error) {
	head := make([]byte, cacheHeaderMax)
	n, _ := io.ReadFull(f, head)
	_, err := cacheHeader(head[:n])
	return head[:n], err
}

// errNoCache is readCacheFile's error for a cache file that cannot be
// looked at (none yet, or no folder): no diagnostic.
var errNoCache = errors.New("no cache file")

// readCacheFile reads the cache file at path: a regular file (not a link,
// a pipe or a device) of at most limit bytes.
func readCacheFile(path string, limit int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, errNoCache
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("is %s, not a regular file", regfile.Kind(fi.Mode().Type()))
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("is %d bytes, over the %d-byte limit", fi.Size(), limit)
	}
	f, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The header first: the file of another binary or format (after an
	// upgrade) is neither read further nor given a buffer, which would
	// take the pages readied for the start-up (warmHeap).
	head, err := readHeader(f)
	if err != nil && !errors.Is(err, errCorrupt) {
		return nil, err
	}
	data := make([]byte, 0, max(fi.Size(), int64(len(head)))+1)
	// Kept whole (the entries' strings are its): at 100,000 skills
	// 600 MB, a page fault every 4 KiB without huge pages.
	regfile.AdviseHuge(data[:cap(data)])
	data, err = readAllInto(f, append(data, head...), limit)
	if err != nil {
		return nil, err
	}
	return data, nil
}

func readAllInto(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, fmt.Errorf("grew over the %d-byte limit", limit)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// lookup is the entry for the host skill hs whose file resolved to real
// with key k, or nil.
func (c *skillCache) lookup(hs HostSkill, real string, k statKey) *cacheEntry {
	rec, ok := c.records[hs.Path]
	if !ok {
		return nil
	}
	body, sum := rec[:len(rec)-4], rec[len(rec)-4:]
	if crc32.Checksum(unsafe.Slice(unsafe.StringData(body), len(body)), castagnoli) != binary.LittleEndian.Uint32([]byte(sum)) {
		c.bad.Store(true)
		return nil
	}
	e := &cacheEntry{}
	d := &decoder{s: body}
	d.entry(e)
	if d.err != nil || len(d.s) != 0 || e.path != hs.Path {
		c.bad.Store(true)
		return nil
	}
	if e.key != k || e.real != real {
		return nil
	}
	return e
}

// save writes the entries of a world build to the cache file, in the
// background, atomically (a temporary file renamed), mode 0600. A folder
// that cannot be written is no error: the next build reads the files.
func (c *skillCache) save(names [32]byte, entries []*cacheEntry, after <-chan struct{}) {
	if c.file == "" {
		return
	}
	cacheWrites.Add(1)
	go func() {
		defer cacheWrites.Done()
		<-after
		dir := filepath.Dir(c.file)
		if os.MkdirAll(dir, 0o700) != nil {
			return
		}
		pruneCache(dir)
		f, err := os.CreateTemp(dir, "start-*.tmp")
		if err != nil {
			return
		}
		err = writeCache(f, names, entries)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), c.file)
		}
		if err != nil {
			os.Remove(f.Name())
		}
	}()
}

// pruneCache removes the cache files (and left-over temporary files) of
// dir nobody used for cacheMaxAge.
func pruneCache(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, "start-") || !(strings.HasSuffix(n, ".cache") || strings.HasSuffix(n, ".tmp")) {
			continue
		}
		age := cacheMaxAge
		if strings.HasSuffix(n, ".tmp") {
			age = tmpMaxAge
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > age {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// The file: cacheMagic, the version, binaryID, the names' hash, the
// record count,
// then each record: its length, the entry (its path first) and the
// CRC-32C of the entry (4 bytes).
func writeCache(f *os.File, names [32]byte, entries []*cacheEntry) error {
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(cacheMagic)
	w.Write(binary.AppendUvarint(nil, cacheVersion))
	w.Write(binaryID[:])
	w.Write(names[:])
	w.Write(binary.AppendUvarint(nil, uint64(len(entries))))
	var e encoder
	var tmp []byte
	for _, c := range entries {
		e.buf = e.buf[:0]
		e.entry(c)
		tmp = binary.AppendUvarint(tmp[:0], uint64(len(e.buf)+4))
		tmp = binary.LittleEndian.AppendUint32(tmp, crc32.Checksum(e.buf, castagnoli))
		w.Write(tmp[:len(tmp)-4])
		w.Write(e.buf)
		w.Write(tmp[len(tmp)-4:])
	}
	return w.Flush()
}

type encoder struct{ buf []byte }

func (e *encoder) uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) int(v int64)   { e.uint(uint64(v)) }
func (e *encoder) str(s string)  { e.uint(uint64(len(s))); e.buf = append(e.buf, s...) }
func (e *encoder) bool(b bool) {
	if b {
		e.uint(1)
	} else {
		e.uint(0)
	}
}

// count writes a length, keeping nil apart from empty (n+1; 0 for nil).
func (e *encoder) count(n int, isNil bool) {
	if isNil {
		e.uint(0)
	} else {
		e.uint(uint64(n) + 1)
	}
}

func (e *encoder) strs(ss []string) {
	e.count(len(ss), ss == nil)
	for _, s := range ss {
		e.str(s)
	}
}

func (e *encoder) entry(c *cacheEntry) {
	e.str(c.path)
	k := c.key
	e.uint(k.dev)
	e.uint(k.ino)
	e.int(k.size)
	e.int(k.mtime)
	e.int(k.ctime)
	e.str(c.real)
	e.str(c.name)
	s := &c.skill
	for _, v := range []string{s.Name, s.Description, s.Path, s.RealPath, s.Dir, s.Source, s.License, s.Compatibility, s.AllowedTools, string(s.Role), s.ModelTier, s.Body} {
		e.str(v)
	}
	e.bool(s.DisableModelInvocation)
	e.bool(s.HasFrontmatter)
	e.int(int64(s.BodyLine))
	e.int(s.Size)
	keys := make([]string, 0, len(s.Metadata))
	for k := range s.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	e.count(len(keys), s.Metadata == nil)
	for _, k := range keys {
		e.str(k)
		e.str(s.Metadata[k])
	}
	e.count(len(s.Headings), s.Headings == nil)
	for _, h := range s.Headings {
		e.int(int64(h.Level))
		e.str(h.Text)
		e.int(int64(h.Line))
	}
	e.count(len(s.Fields), s.Fields == nil)
	for _, f := range s.Fields {
		e.str(f.Key)
		e.int(int64(f.Line))
	}
	e.strs(c.refs.Names)
	e.strs(c.refs.Loads)
}

var errCorrupt = errors.New("corrupt or truncated")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// decoder reads a cache file held in one string: the strings it gives are
// parts of it (no copies).
type decoder struct {
	s   string
	err error
}

func (d *decoder) uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(unsafe.Slice(unsafe.StringData(d.s), len(d.s)))
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.s = d.s[n:]
	return v
}

func (d *decoder) int() int64 { return int64(d.uint()) }

func (d *decoder) str() string {
	n := d.uint()
	if d.err != nil || n > uint64(len(d.s)) {
		d.err = errCorrupt
		return ""
	}
	v := d.s[:n]
	d.s = d.s[n:]
	return v
}

// count reads a length written by encoder.count: n, and whether it was
// nil. A count larger than the bytes left is corrupt.
func (d *decoder) count() (n int, isNil bool) {
	v := d.uint()
	if d.err != nil || v == 0 {
		return 0, true
	}
	if v-1 > uint64(len(d.s)) {
		d.err = errCorrupt
		return 0, true
	}
	return int(v - 1), false
}

func (d *decoder) strs() []string {
	n, isNil := d.count()
	if isNil {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

// decode finds the records of a cache file for a list of n skills.
func (c *skillCache) decode(data []byte, n int) error {
	d, err := cacheHeader(data)
	if err != nil {
		return err
	}
	copy(c.names[:], d.raw(32))
	count := d.uint()
	if d.err == nil && count > uint64(4*n+1024) {
		return fmt.Errorf("%d records for %d skills", count, n)
	}
	c.records = make(map[string]string, count)
	for range count {
		rec := d.str()
		if d.err != nil || len(rec) < 5 {
			return errCorrupt
		}
		p := &decoder{s: rec}
		path := p.str()
		if p.err != nil {
			return errCorrupt
		}
		c.records[path] = rec
	}
	if d.err == nil && len(d.s) != 0 {
		return errCorrupt
	}
	return d.err
}

// cacheHeader checks the start of a cache file (cacheMagic, the version,
// binaryID) and returns the decoder of the rest; errCorrupt when data
// ends before it does.
func cacheHeader(data []byte) (*decoder, error) {
	if len(data) < len(cacheMagic) || string(data[:len(cacheMagic)]) != cacheMagic {
		return nil, errors.New("not a skill-lifecycle start-up cache")
	}
	// The file is never written to again: its strings are the entries'.
	d := &decoder{s: unsafe.String(unsafe.SliceData(data), len(data))[len(cacheMagic):]}
	if v := d.uint(); d.err == nil && v != cacheVersion {
		return nil, fmt.Errorf("format %d, not this binary's %d", v, cacheVersion)
	}
	if id := d.raw(len(binaryID)); d.err == nil && id != string(binaryID[:]) {
		return nil, errOtherBinary
	}
	return d, d.err
}

// cacheHeaderMax is the most bytes cacheHeader reads.
const cacheHeaderMax = len(cacheMagic) + binary.MaxVarintLen64 + len(binaryID)

func (d *decoder) raw(n int) string {
	if d.err != nil || n > len(d.s) {
		d.err = errCorrupt
		return ""
	}
	v := d.s[:n]
	d.s = d.s[n:]
	return v
}

func (d *decoder) entry(c *cacheEntry) {
	c.path = d.str()
	c.key = statKey{dev: d.uint(), ino: d.uint(), size: d.int(), mtime: d.int(), ctime: d.int()}
	c.real, c.name = d.str(), d.str()
	s := &c.skill
	for _, p := range []*string{&s.Name, &s.Description, &s.Path, &s.RealPath, &s.Dir, &s.Source, &s.License, &s.Compatibility, &s.AllowedTools, (*string)(&s.Role), &s.ModelTier, &s.Body} {
		*p = d.str()
	}
	s.DisableModelInvocation = d.uint() != 0
	s.HasFrontmatter = d.uint() != 0
	s.BodyLine = int(d.int())
	s.Size = d.int()
	if n, isNil := d.count(); !isNil {
		s.Metadata = make(map[string]string, n)
		for range n {
			k := d.str()
			s.Metadata[k] = d.str()
		}
	}
	if n, isNil := d.count(); !isNil {
		s.Headings = make([]skills.Heading, n)
		for i := range s.Headings {
			s.Headings[i] = skills.Heading{Level: int(d.int()), Text: d.str(), Line: int(d.int())}
		}
	}
	if n, isNil := d.count(); !isNil {
		s.Fields = make([]skills.Field, n)
		for i := range s.Fields {
			s.Fields[i] = skills.Field{Key: d.str(), Line: int(d.int())}
		}
	}
	c.refs.Names = d.strs()
	c.refs.Loads = d.strs()
}

// sameNames reports whether the cache's cross-references were found
// among the names whose hash is names.
func (c *skillCache) sameNames(names [32]byte) bool { return c.records != nil && c.names == names }
