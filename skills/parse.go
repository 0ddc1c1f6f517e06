package skills

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"gopkg.in/yaml.v3"
)

// Limits that keep parsing bounded whatever the input.
const (
	// MaxFileSize is the largest skill file read; discovery skips bigger
	// files with a diagnostic, and Parse refuses them.
	MaxFileSize = 1 << 20
	// MaxFrontmatterSize bounds the YAML handed to the YAML parser. Real
	// frontmatter is a few hundred bytes.
	MaxFrontmatterSize = 64 << 10
	// maxYAMLDepth bounds the nesting of the frontmatter, counted by Parse
	// before the YAML parser sees it.
	maxYAMLDepth = 64
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Parse reads one skill file: the YAML frontmatter between a first line
// "---" and the next line "---" (CRLF and a UTF-8 byte order mark are
// tolerated), then the markdown body and its ATX headings. path names the
// file in diagnostics and gives the default name (its folder's name).
//
// Scalars are kept as written: "version: 1.0" gives "1.0". Parse never
// panics and always returns a Skill (with the default name and whatever
// could be read); problems that stop the file from being read as a skill
// (unclosed or oversized frontmatter, invalid YAML, a frontmatter that is
// not a mapping, a field of the wrong type) are Error diagnostics, minor
// ones Warnings. Rules that depend on the validation mode are left to
// Validate.
func Parse(path string, data []byte) (*Skill, []Diagnostic) { return parse(path, data, false) }

// parse is Parse; owned says that nothing but the Skill will use data
// again (a buffer read for this call alone), so that its body and
// headings share data's memory instead of copying it (at 100,000 skills,
// 2 M fewer allocations a start-up; the time moved within the noise).
func parse(path string, data []byte, owned bool) (*Skill, []Diagnostic) {
	text := func(b []byte) string { return string(b) }
	if owned {
		text = func(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
	}
	dir := filepath.Dir(path)
	s := &Skill{
		Name:     filepath.Base(dir),
		Path:     path,
		RealPath: path,
		Dir:      dir,
		Size:     int64(len(data)),
		BodyLine: 1,
	}
	var diags []Diagnostic
	add := func(line int, field string, sev Severity, code, format string, args ...any) {
		diags = append(diags, Diagnostic{Path: path, Line: line, Field: field, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if len(data) > MaxFileSize {
		add(0, "", Error, "file-too-large", "file is %d bytes, over the %d-byte limit for a skill file", len(data), MaxFileSize)
		return s, diags
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if !utf8.Valid(data) {
		add(firstInvalidUTF8Line(data), "", Warning, "not-utf8", "file is not valid UTF-8 text")
	}
	if bytes.IndexByte(data, 0) >= 0 {
		add(0, "", Warning, "binary", "file contains NUL bytes; it looks binary, not markdown")
	}

	fm, body, bodyLine, state := splitFrontmatter(data)
	switch state {
	case fmNone:
		s.Body = text(body)
		s.Headings = headings(body, 1, text)
		return s, diags
	case fmUnclosed:
		add(1, "", Error, "unclosed-frontmatter", "frontmatter is not properly closed: no line \"---\" ends the block opened on line 1")
		s.Body = text(body)
		s.Headings = headings(body, 1, text)
		return s, diags
	}
	s.HasFrontmatter = true
	s.Body = text(body)
	s.BodyLine = bodyLine
	s.Headings = headings(body, bodyLine, text)

	if len(fm) > MaxFrontmatterSize {
		add(2, "", Error, "frontmatter-too-large", "frontmatter is %d bytes, over the %d-byte limit", len(fm), MaxFrontmatterSize)
		return s, diags
	}
	if line, deep := tooDeep(fm); deep {
		line += 2 // 0-based within the frontmatter, which starts on line 2
		add(line, "", Error, "invalid-yaml", "invalid YAML at line %d: nested more than %d levels deep", line, maxYAMLDepth)
		return s, diags
	}
	root, fast := fastYAML(fm)
	var err error
	if !fast {
		root, err = parseYAML(fm)
	}
	if err != nil {
		_, msg := yamlErrorLine(err)
		line := firstFailingLine(fm) + 1 // the opening "---" is line 1 of the file
		add(line, "", Error, "invalid-yaml", "invalid YAML at line %d: %s", line, msg)
		return s, diags
	}
	if root == nil { // empty frontmatter
		return s, diags
	}
	root = deref(root)
	if root.Kind != yaml.MappingNode {
		add(root.Line+1, "", Error, "frontmatter-not-mapping", "frontmatter must be a YAML mapping of fields, not a %s", kindName(root.Kind))
		return s, diags
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := deref(root.Content[i]), deref(root.Content[i+1])
		line := k.Line + 1
		if k.Kind != yaml.ScalarNode {
			add(line, "", Error, "invalid-field", "a frontmatter key must be a plain string, not a %s", kindName(k.Kind))
			continue
		}
		key := k.Value
		if first, dup := seen[key]; dup {
			add(line, key, Error, "duplicate-field", "field %q appears twice (lines %d and %d)", key, first, line)
			continue
		}
		seen[key] = line
		s.Fields = append(s.Fields, Field{Key: key, Line: line})
		switch key {
		case "name", "description", "license", "compatibility":
			val, ok := scalar(v)
			if !ok {
				add(line, key, Error, "field-type", "%s must be a string, not a %s", key, kindName(v.Kind))
				continue
			}
			switch key {
			case "name":
				if val != "" {
					s.Name = val
				}
			case "description":
				s.Description = val
			case "license":
				s.License = val
			case "compatibility":
				s.Compatibility = val
			}
		case "allowed-tools":
			if val, ok := scalar(v); ok {
				s.AllowedTools = val
			} else if v.Kind == yaml.SequenceNode {
				var tools []string
				for _, it := range v.Content {
					if t, ok := scalar(deref(it)); ok && t != "" {
						tools = append(tools, t)
					}
				}
				s.AllowedTools = strings.Join(tools, " ")
			} else {
				add(line, key, Warning, "field-type", "allowed-tools should be a space-separated string; ignored")
			}
		case "metadata":
			diags = append(diags, parseMetadata(s, v, path)...)
		case "disable-model-invocation":
			// Pi counts only the YAML boolean true.
			if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!bool" {
				s.DisableModelInvocation = strings.EqualFold(v.Value, "true")
			} else {
				add(line, key, Warning, "field-type", "disable-model-invocation is %q, not a boolean; treated as false", v.Value)
			}
		}
	}
	return s, diags
}

func parseMetadata(s *Skill, v *yaml.Node, path string) []Diagnostic {
	var diags []Diagnostic
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		return []Diagnostic{{Path: path, Line: v.Line + 1, Field: "metadata", Severity: Warning, Code: "field-type",
			Message: fmt.Sprintf("metadata must be a mapping of strings, not a %s; ignored", kindName(v.Kind))}}
	}
	s.Metadata = make(map[string]string, len(v.Content)/2)
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := deref(v.Content[i]), deref(v.Content[i+1])
		key, ok := scalar(k)
		if !ok {
			continue
		}
		str, ok := scalar(val)
		if !ok {
			diags = append(diags, Diagnostic{Path: path, Line: k.Line + 1, Field: "metadata." + key, Severity: Warning, Code: "field-type",
				Message: fmt.Sprintf("metadata.%s must be a string, not a %s; ignored", key, kindName(val.Kind))})
			continue
		}
		s.Metadata[key] = str
		switch key {
		case "role":
			switch Role(str) {
			case RoleEntry, RoleHelper:
				s.Role = Role(str)
			default:
				diags = append(diags, Diagnostic{Path: path, Line: k.Line + 1, Field: "metadata.role", Severity: Warning, Code: "unknown-role",
					Message: fmt.Sprintf("metadata.role is %q; only \"entry\" and \"helper\" mean something, so it is ignored", str)})
			}
		case "modelTier":
			s.ModelTier = str
		}
	}
	return diags
}

// parseYAML decodes the frontmatter into a node tree. Decoding into a
// yaml.Node keeps aliases as references (nothing is expanded, so an alias
// bomb stays small), and a panic inside the YAML library becomes an error.
func parseYAML(fm []byte) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("yaml: parser failure: %v", r)
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(fm, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// firstFailingLine returns the 1-based line of fm where the YAML stops
// parsing: the first n such that the first n lines fail while the first n-1
// parse, found by bisection. (yaml.v3's own line numbers are off by one for
// some parser errors.)
func firstFailingLine(fm []byte) int {
	var ends []int // ends[i] is the offset just past line i+1
	for i, c := range fm {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(fm) {
		ends = append(ends, len(fm))
	}
	lo, hi := 0, len(ends) // prefix of lo lines parses, of hi lines fails
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if _, err := parseYAML(fm[:ends[mid-1]]); err != nil {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// deref follows an alias to its anchor (a bounded number of hops).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; i < 8 && n != nil && n.Kind == yaml.AliasNode && n.Alias != nil; i++ {
		n = n.Alias
	}
	return n
}

// scalar returns a scalar's text as written; null is "".
func scalar(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	if n.ShortTag() == "!!null" {
		return "", true
	}
	return n.Value, true
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	case yaml.DocumentNode:
		return "document"
	}
	return "empty value"
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlErrorLine pulls the line out of a yaml.v3 error ("yaml: line 3: ...").
func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

// tooDeep counts flow brackets and block indentation levels and reports
// the first line nested beyond maxYAMLDepth (0-based within fm).
func tooDeep(fm []byte) (int, bool) {
	depth, line := 0, 0
	inQuote := byte(0)
	var indents []int
	atLineStart, col := true, 0
	for _, c := range fm {
		if c == '\n' {
			line++
			atLineStart, col = true, 0
			continue
		}
		if atLineStart {
			if c == ' ' || c == '-' {
				col++
				continue
			}
			if c != '\r' && c != '#' {
				for len(indents) > 0 && indents[len(indents)-1] >= col {
					indents = indents[:len(indents)-1]
				}
				indents = append(indents, col)
				if len(indents) > maxYAMLDepth {
					return line, true
				}
			}
			atLineStart = false
		}
		switch {
		case inQuote != 0:
			if c == inQuote {
				inQuote = 0
			}
		case c == '"' || c == '\'':
			inQuote = c
		case c == '[' || c == '{':
			depth++
			if depth > maxYAMLDepth {
				return line, true
			}
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return 0, false
}

type fmState int

const (
	fmNone fmState = iota
	fmUnclosed
	fmClosed
)

// splitFrontmatter finds the frontmatter block. It returns the YAML, the
// body after the closing line and the body's first line number.
func splitFrontmatter(data []byte) (fm, body []byte, bodyLine int, st fmState) {
	first, rest, found := cutLine(data)
	if !isFence(first) {
		return nil, data, 1, fmNone
	}
	if !found {
		return nil, data, 1, fmUnclosed
	}
	start := len(data) - len(rest)
	line := 2
	for off := start; off <= len(data); {
		l, r, more := cutLine(data[off:])
		if isFence(l) {
			return data[start:off], r, line + 1, fmClosed
		}
		if !more {
			break
		}
		off = len(data) - len(r)
		line++
	}
	return nil, data, 1, fmUnclosed
}

func cutLine(b []byte) (line, rest []byte, found bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return b[:i], b[i+1:], true
}

// isFence reports whether a line is exactly "---" (trailing blanks and a
// CR allowed).
func isFence(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r")) == "---"
}

// headings extracts ATX headings outside ``` and ~~~ fenced code blocks,
// their text made a string by text. They are gathered on the stack and
// copied once: a skill has a dozen or two.
func headings(body []byte, firstLine int, text func([]byte) string) []Heading {
	var stack [32]Heading
	hs := stack[:0]
	var fenceChar byte
	fenceLen := 0
	lineNo := firstLine
	for len(body) > 0 {
		raw, rest, _ := cutLine(body)
		body = rest
		line := bytes.TrimRight(raw, "\r")
		n := lineNo
		lineNo++
		indent := 0
		for indent < len(line) && indent < 4 && line[indent] == ' ' {
			indent++
		}
		if indent > 3 {
			continue
		}
		t := line[indent:]
		if fc, fl := fenceOpen(t); fl > 0 {
			// (a backtick fence's info string may not hold backticks)
			if fenceLen == 0 && (fc == '~' || bytes.IndexByte(t[fl:], '`') < 0) {
				fenceChar, fenceLen = fc, fl
				continue
			} else if fenceLen > 0 && fc == fenceChar && fl >= fenceLen && len(bytes.TrimSpace(t[fl:])) == 0 {
				fenceLen = 0
				continue
			}
		}
		if fenceLen > 0 {
			continue
		}
		level := 0
		for level < len(t) && t[level] == '#' {
			level++
		}
		if level == 0 || level > 6 || (level < len(t) && t[level] != ' ' && t[level] != '\t') {
			continue
		}
		h := bytes.TrimSpace(t[level:])
		// an optional closing sequence of #s, preceded by a blank
		if j := len(h); j > 0 && h[j-1] == '#' {
			k := j
			for k > 0 && h[k-1] == '#' {
				k--
			}
			if k == 0 {
				h = nil
			} else if h[k-1] == ' ' || h[k-1] == '\t' {
				h = bytes.TrimSpace(h[:k])
			}
		}
		hs = append(hs, Heading{Level: level, Text: text(h), Line: n})
	}
	if len(hs) == 0 {
		return nil
	}
	return slices.Clone(hs)
}

func fenceOpen(t []byte) (byte, int) {
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0
	}
	c := t[0]
	n := 0
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 {
		return 0, 0
	}
	return c, n
}

func firstInvalidUTF8Line(b []byte) int {
	line := 1
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		b = b[size:]
	}
	return 0
}
