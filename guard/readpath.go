package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// This file resolves a `read` tool call's arguments the way Pi's read tool
// does, so that the guard sees the file Pi would open and the lines it
// would return. The rules, from Pi's sources:
//
// Pi 1.6 (dist/core/tools/path-utils.js resolveReadPathAsync, resolveToCwd;
// dist/utils/paths.js normalizePath, resolvePath):
//  1. the look-alike spaces U+00A0, U+2000–U+200A, U+202F, U+205F, U+3000
//     become a space; the path is not trimmed;
//  2. one leading "@" is dropped;
//  3. "~" is the home folder, "~/x" is path.join(home, "x"), and then the
//     path is used as it is;
//  4. otherwise a path starting with "file://" is a file URL, turned into a
//     path by Node's fileURLToPath (WHATWG URL parsing: tabs and line ends
//     removed, trailing spaces and control characters dropped, "\" is "/",
//     "." and ".." segments (also "%2e") applied, "?query" and "#fragment"
//     cut, %XX decoded; a host other than "" or "localhost" fails);
//  5. the result is path.resolve(cwd, p): lexical, ".." never follows a
//     symbolic link.
//
// Pi 0.73 (dist/core/tools/path-utils.js resolveReadPath, resolveToCwd,
// expandPath): "@" dropped, then look-alike spaces; "~/x" is home + "/x";
// no file URLs; an absolute path is opened as written (the kernel applies
// "..", after symbolic links); a relative one is path.resolve(cwd, p).
//
// Both then try, when the path does not exist, the variants macOS file
// names need, in this order, and open the first that exists: " AM." / " PM."
// with U+202F before AM/PM (screenshot names), the NFD form, "'" as U+2019,
// NFD with U+2019.
//
// The sidecar does not know which Pi it serves, so the guard checks both
// resolutions: a read is blocked when either opens a skill's SKILL.md.

// unicodeSpace reports the characters Pi's normalizePath turns into a
// space (its UNICODE_SPACES).
func unicodeSpace(r rune) bool {
	return r == 0x00A0 || (r >= 0x2000 && r <= 0x200A) || r == 0x202F || r == 0x205F || r == 0x3000
}

// normalizeSpaces replaces Pi's look-alike spaces by a space, leaving every
// other byte as it is.
func normalizeSpaces(p string) string {
	if !strings.ContainsFunc(p, unicodeSpace) {
		return p
	}
	var b strings.Builder
	for _, r := range p {
		if unicodeSpace(r) {
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}

// readTargets returns the files Pi's read tool opens for the path argument
// p in cwd: the one Pi 1.6 opens and the one Pi 0.73 opens, each after the
// macOS variants (once when they are the same). A path neither can open
// (a bad file URL in 1.6) gives fewer.
func readTargets(p, cwd string) []string {
	home, err := os.UserHomeDir()
	if err != nil {
		home = ""
	}
	var out []string
	t16, ok := resolvePi16(p, cwd, home)
	if ok {
		out = append(out, readVariant(t16))
	}
	// Mostly both lines resolve to the same path: then also to the same
	// variant.
	if t073 := resolvePi073(p, cwd, home); !ok || t073 != t16 {
		if t := readVariant(t073); len(out) == 0 || t != out[0] {
			out = append(out, t)
		}
	}
	return out
}

// resolvePi16 is Pi 1.6's resolveToCwd; ok is false when Pi cannot turn a
// file URL into a path (the read then fails).
func resolvePi16(p, cwd, home string) (string, bool) {
	p = normalizeSpaces(p)
	p = strings.TrimPrefix(p, "@")
	switch {
	case home != "" && p == "~":
		p = home
	case home != "" && strings.HasPrefix(p, "~/"):
		p = filepath.Join(home, p[2:])
	case strings.HasPrefix(p, "file://"):
		var ok bool
		if p, ok = fileURLPath(p); !ok {
			return "", false
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), true
	}
	return filepath.Join(cwd, p), true
}

// resolvePi073 is Pi 0.73's resolveToCwd: an absolute path is left as
// written.
func resolvePi073(p, cwd, home string) string {
	p = strings.TrimPrefix(p, "@")
	p = normalizeSpaces(p)
	switch {
	case home != "" && p == "~":
		p = home
	case home != "" && strings.HasPrefix(p, "~/"):
		p = home + p[1:]
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(cwd, p)
}

// amPm is the pattern of Pi's tryMacOSScreenshotPath.
var amPm = regexp.MustCompile(`(?i) (AM|PM)\.`)

// readVariant is the rest of Pi's resolveReadPath: p when it exists, else
// the first of its macOS variants that exists, else p.
func readVariant(p string) string {
	if exists(p) {
		return p
	}
	nfd := norm.NFD.String(p)
	for _, v := range []string{
		amPm.ReplaceAllString(p, "\u202F${1}."),
		nfd,
		strings.ReplaceAll(p, "'", "\u2019"),
		strings.ReplaceAll(nfd, "'", "\u2019"),
	} {
		if v != p && exists(v) {
			return v
		}
	}
	return p
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// fileURLPath is Node's fileURLToPath on a POSIX system for a string that
// starts with "file://", after WHATWG URL parsing. It is lenient where Node
// fails (a host other than localhost, an encoded "/", a bad %XX), since the
// read fails then anyway: the path is still returned, so that the guard
// errs towards blocking. ok is false only when no path can be made out.
func fileURLPath(u string) (string, bool) {
	// The URL parser drops tabs and line ends anywhere, and leading and
	// trailing C0 controls and spaces (the string starts with "file://").
	u = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, u)
	u = strings.TrimRightFunc(u, func(r rune) bool { return r <= 0x20 })
	rest := u[len("file://"):]
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	// The host runs to the first "/" or "\"; a Windows drive letter there
	// ("C:", "C|") is the path's first segment instead.
	end := strings.IndexAny(rest, `/\`)
	if end < 0 {
		end = len(rest)
	}
	if !windowsDriveLetter(rest[:end]) {
		rest = rest[end:]
		if rest != "" {
			rest = rest[1:] // the path start state consumes one "/" or "\"
		}
	}
	return percentDecode("/" + strings.Join(urlSegments(rest), "/"))
}

// urlSegments applies the WHATWG path state to the path of a file URL
// (after its first slash): segments split at "/" and "\", "." and ".."
// (also percent-encoded) applied, a leading drive letter normalised to
// "X:" and never removed by "..".
func urlSegments(path string) []string {
	var segs []string
	start := 0
	for i := 0; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' && path[i] != '\\' {
			continue
		}
		seg, last := path[start:i], i == len(path)
		start = i + 1
		switch lower := strings.ToLower(seg); lower {
		case "..", ".%2e", "%2e.", "%2e%2e":
			if !(len(segs) == 1 && normalizedDriveLetter(segs[0])) && len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
			if last {
				segs = append(segs, "")
			}
		case ".", "%2e":
			if last {
				segs = append(segs, "")
			}
		default:
			if len(segs) == 0 && windowsDriveLetter(seg) {
				seg = seg[:1] + ":"
			}
			segs = append(segs, seg)
		}
	}
	return segs
}

func windowsDriveLetter(s string) bool {
	return len(s) == 2 && ('a' <= s[0]|0x20 && s[0]|0x20 <= 'z') && (s[1] == ':' || s[1] == '|')
}

func normalizedDriveLetter(s string) bool { return windowsDriveLetter(s) && s[1] == ':' }

// percentDecode decodes %XX sequences (decodeURIComponent); a bad one is
// kept as written. ok is false when the result holds a NUL, which no file
// name can.
func percentDecode(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b = append(b, byte(v))
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	out := string(b)
	return out, !strings.ContainsRune(out, 0)
}

// readArgs are the `read` tool's arguments as the guard needs them. Pi
// hands a tool_call handler its arguments after coercing them to the
// schema (a numeric string becomes a number, a null optional property is
// dropped), and JSON.stringify writes an infinite number as null.
type readArgs struct {
	path          string
	offset, limit *float64 // nil: absent (or null)
}

// parseReadArgs reads a `read` call's input; ok is false when it has no
// path string (Pi would refuse the call). An offset or limit that is not a
// number (or a string holding one) counts as absent.
func parseReadArgs(input json.RawMessage) (readArgs, bool) {
	var in struct {
		Path   json.RawMessage `json:"path"`
		Offset json.RawMessage `json:"offset"`
		Limit  json.RawMessage `json:"limit"`
	}
	if json.Unmarshal(input, &in) != nil {
		return readArgs{}, false
	}
	var a readArgs
	if json.Unmarshal(in.Path, &a.path) != nil || a.path == "" {
		return readArgs{}, false
	}
	a.offset, a.limit = jsonNumber(in.Offset), jsonNumber(in.Limit)
	return a, true
}

// jsonNumber reads a JSON number, or a string holding one, as a float; a
// number too large for a float is infinite, as in JavaScript.
func jsonNumber(raw json.RawMessage) *float64 {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil
	}
	if s[0] == '"' {
		if json.Unmarshal(raw, &s) != nil {
			return nil
		}
		s = strings.TrimSpace(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil
	}
	return &f
}

// readsWhole reports whether Pi's read of file with these offset and limit
// returns every line of it that holds text (Pi's read tool, both lines:
// startLine = offset ? max(0, offset - 1) : 0, lines.slice(startLine,
// min(startLine + limit, lines.length)) with JavaScript's slice, which
// truncates fractions towards zero and counts a negative end from the end;
// an offset past the end is an error). Without a range, or from the first
// line without a limit, it is whole without reading the file. A file that
// cannot be read as a regular file of at most skills.MaxFileSize bytes
// counts as not whole: Pi then serves what it can, as for any ranged read.
func readsWhole(file string, offset, limit *float64) bool {
	start := 0.0
	if offset != nil && *offset != 0 && !math.IsNaN(*offset) {
		start = math.Max(0, *offset-1)
	}
	if math.IsInf(start, 1) {
		return false
	}
	if limit == nil && start < 1 {
		return true
	}
	data, err := skills.ReadFile(file)
	if err != nil {
		return false
	}
	// The lines as text.split("\n") makes them: n of them, the first and
	// the last that hold more than white space.
	n, first, last := 0, -1, -1
	for rest := data; ; n++ {
		line, after, more := bytes.Cut(rest, []byte{'\n'})
		if len(bytes.TrimSpace(line)) > 0 {
			if first < 0 {
				first = n
			}
			last = n
		}
		if !more {
			n++
			break
		}
		rest = after
	}
	if start >= float64(n) {
		return false // "Offset N is beyond end of file"
	}
	from, to := int(start), n
	if limit != nil {
		to = sliceIndex(math.Min(start+*limit, float64(n)), n)
	}
	return first >= 0 && from <= first && to > last
}

// sliceIndex is the index JavaScript's Array.prototype.slice makes of an
// end argument x for an array of n items.
func sliceIndex(x float64, n int) int {
	if math.IsNaN(x) {
		return 0
	}
	x = math.Trunc(x)
	switch {
	case x < 0:
		return int(math.Max(float64(n)+x, 0))
	case x > float64(n):
		return n
	}
	return int(x)
}
