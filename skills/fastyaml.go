package skills

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// fastYAML parses the frontmatter most skills use, without the YAML
// library: top-level "key: value" lines with plain scalars of printable
// text (plainText), "|" and ">" block scalars of evenly indented,
// non-blank lines, and a "metadata:" block of "key: value" lines. It builds the same node tree yaml.v3 would
// (FuzzFastYAML checks this against yaml.v3 on every input it accepts) and
// reports false for anything else, which then goes to yaml.v3. It exists
// because yaml.v3 costs about 12 KB of allocations per document, which a
// 10,000-skill catalogue pays on every start.
func fastYAML(fm []byte) (*yaml.Node, bool) {
	if !bytes.HasSuffix(fm, []byte("\n")) {
		return nil, false // frontmatter always ends with a line break
	}
	root := &yaml.Node{Kind: yaml.MappingNode, Line: 1, Column: 1}
	lines := bytes.Split(fm, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	seen := map[string]bool{}
	for i := 0; i < len(lines); {
		line := bytes.TrimSuffix(lines[i], []byte("\r"))
		if !plainText(line) {
			return nil, false
		}
		if len(line) == 0 {
			i++
			continue
		}
		key, val, ok := keyValue(line)
		if !ok || seen[key] {
			return nil, false
		}
		seen[key] = true
		k := &yaml.Node{Kind: yaml.ScalarNode, Value: key, Line: i + 1, Column: 1}
		if len(root.Content) == 0 {
			root.Line = k.Line
		}
		i++
		var v *yaml.Node
		switch {
		case val == "|" || val == ">":
			var text string
			text, i, ok = blockScalar(lines, i, val == ">")
			if !ok {
				return nil, false
			}
			style := yaml.LiteralStyle
			if val == ">" {
				style = yaml.FoldedStyle
			}
			v = &yaml.Node{Kind: yaml.ScalarNode, Value: text, Style: style, Line: k.Line, Column: len(key) + 3}
		case val == "" && i < len(lines) && indentOf(lines[i]) > 0:
			var m *yaml.Node
			m, i, ok = flatMapping(lines, i)
			if !ok {
				return nil, false
			}
			v = m
		default:
			if !plainScalar(val) {
				return nil, false
			}
			v = &yaml.Node{Kind: yaml.ScalarNode, Value: val, Line: k.Line, Column: len(key) + 3}
			if val == "" {
				v.Column = len(key) + 1
			}
		}
		v.Tag = v.ShortTag()
		k.Tag = k.ShortTag()
		root.Content = append(root.Content, k, v)
	}
	if len(root.Content) == 0 {
		return nil, false
	}
	root.Tag = "!!map"
	return root, true
}

// plainText accepts printable text (the line's final CR removed): ASCII
// from space to tilde, and valid UTF-8 above U+009F other than what
// yaml.v3 reads as a line break (U+2028, U+2029), a byte order mark or
// a non-character. Skill descriptions often hold a dash or an accent.
func plainText(line []byte) bool {
	for i := 0; i < len(line); {
		c := line[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		if r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff || r == utf8.RuneError {
			return false
		}
		i += size
	}
	return true
}

func indentOf(line []byte) int {
	n := 0
	for n < len(line) && line[n] == ' ' {
		n++
	}
	if n == len(bytes.TrimRight(line, "\r")) {
		return 0 // blank
	}
	return n
}

// keyValue splits "key: value" or "key:" at column 0.
func keyValue(line []byte) (key, val string, ok bool) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || (i > 0 && (c == '-' || c == '.')) {
			i++
			continue
		}
		break
	}
	// (YAML limits implicit keys to 1024 characters; keep far below)
	if i == 0 || i > 128 || i >= len(line) || line[i] != ':' {
		return "", "", false
	}
	key = string(line[:i])
	rest := line[i+1:]
	if len(rest) == 0 {
		return key, "", true
	}
	if rest[0] != ' ' {
		return "", "", false
	}
	return key, string(bytes.Trim(rest, " ")), true
}

// plainScalar accepts the plain scalars whose value is their text.
func plainScalar(v string) bool {
	if v == "" {
		return true
	}
	if strings.ContainsAny(v[:1], "-?:,[]{}#&*!|>'\"%@`") {
		return false
	}
	if v == "<<" || strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.HasSuffix(v, ":") {
		return false
	}
	return true
}

// blockScalar reads the lines of a "|" or ">" scalar with clip chomping:
// all at one indentation, none blank, none more indented.
func blockScalar(lines [][]byte, i int, folded bool) (string, int, bool) {
	ind := 0
	var parts []string
	for ; i < len(lines); i++ {
		line := bytes.TrimSuffix(lines[i], []byte("\r"))
		if !plainText(line) {
			return "", i, false
		}
		n := indentOf(line)
		if n == 0 {
			if len(bytes.TrimSpace(line)) == 0 {
				return "", i, false // blank lines change folding: leave them to yaml.v3
			}
			break
		}
		if ind == 0 {
			ind = n
		}
		if n != ind {
			return "", i, false
		}
		parts = append(parts, string(line[ind:]))
	}
	if len(parts) == 0 {
		return "", i, false
	}
	sep := "\n"
	if folded {
		sep = " "
	}
	return strings.Join(parts, sep) + "\n", i, true
}

// flatMapping reads an indented block of "key: value" lines.
func flatMapping(lines [][]byte, i int) (*yaml.Node, int, bool) {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: i + 1}
	ind := 0
	seen := map[string]bool{}
	for ; i < len(lines); i++ {
		line := bytes.TrimSuffix(lines[i], []byte("\r"))
		if !plainText(line) {
			return nil, i, false
		}
		n := indentOf(line)
		if n == 0 {
			if len(bytes.TrimSpace(line)) == 0 {
				return nil, i, false
			}
			break
		}
		if ind == 0 {
			ind = n
			m.Column = n + 1
		}
		if n != ind {
			return nil, i, false
		}
		key, val, ok := keyValue(line[ind:])
		if !ok || seen[key] || !plainScalar(val) || val == "" {
			return nil, i, false
		}
		seen[key] = true
		k := &yaml.Node{Kind: yaml.ScalarNode, Value: key, Line: i + 1, Column: ind + 1}
		v := &yaml.Node{Kind: yaml.ScalarNode, Value: val, Line: i + 1, Column: ind + len(key) + 3}
		k.Tag, v.Tag = k.ShortTag(), v.ShortTag()
		m.Content = append(m.Content, k, v)
	}
	return m, i, len(m.Content) > 0
}
