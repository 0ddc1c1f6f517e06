package relevance

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// scanTokens calls fn for each run of letters, digits, marks, hyphens and
// underscores of text, with whether it holds a hyphen or an underscore
// (it may then be a skill's name) and whether it is all ASCII.
func scanTokens(text string, fn func(tok string, joined, ascii bool)) {
	start, joined, ascii := -1, false, true
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			in := c == '-' || c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
			if in {
				if start < 0 {
					start, joined, ascii = i, false, true
				} else if c == '-' || c == '_' {
					joined = true
				}
			} else if start >= 0 {
				fn(text[start:i], joined, ascii)
				start = -1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) {
			if start < 0 {
				start, joined = i, false
			}
			ascii = false
		} else if start >= 0 {
			fn(text[start:i], joined, ascii)
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(text[start:], joined, ascii)
	}
}

// forBodySections calls fn with the parts of a markdown body in order,
// each with whether it belongs to a negative section: from a heading
// NegativeHeading accepts to the next heading of the same or a higher
// level. Headings in fenced code blocks do not count.
func forBodySections(body string, fn func(text string, negative bool)) {
	if body == "" {
		return
	}
	negLevel := 0 // level of the open negative section, 0 when none
	fence := byte(0)
	fenceLen := 0
	partStart := 0
	for pos := 0; pos < len(body); {
		end := strings.IndexByte(body[pos:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += pos + 1
		}
		line := body[pos:end]
		trim := strings.TrimLeft(line, " ")
		indent := len(line) - len(trim)
		if indent <= 3 {
			if c, n := fenceRun(trim); n >= 3 {
				switch {
				case fence == 0:
					fence, fenceLen = c, n
				case c == fence && n >= fenceLen:
					fence = 0
				}
				pos = end
				continue
			}
		}
		if fence == 0 && indent <= 3 {
			if lvl, text := atxHeading(trim); lvl > 0 {
				neg := negLevel > 0 && lvl > negLevel
				if !neg {
					nowNeg := NegativeHeading(text)
					if (negLevel > 0) != nowNeg {
						fn(body[partStart:pos], negLevel > 0)
						partStart = pos
					}
					negLevel = 0
					if nowNeg {
						negLevel = lvl
					}
				}
			}
		}
		pos = end
	}
	fn(body[partStart:], negLevel > 0)
}

// fenceRun returns the fence character and the length of the run of it
// opening line (``` or ~~~), 0 when it opens none.
func fenceRun(line string) (byte, int) {
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return 0, 0
	}
	c, n := line[0], 0
	for n < len(line) && line[n] == c {
		n++
	}
	return c, n
}

// atxHeading returns the level and text of an ATX heading line, 0 when the
// line is none.
func atxHeading(line string) (int, string) {
	lvl := 0
	for lvl < len(line) && line[lvl] == '#' {
		lvl++
	}
	if lvl == 0 || lvl > 6 {
		return 0, ""
	}
	rest := line[lvl:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' && rest[0] != '\n' && rest[0] != '\r' {
		return 0, ""
	}
	return lvl, strings.TrimSpace(strings.TrimRight(strings.TrimSpace(rest), "#"))
}
