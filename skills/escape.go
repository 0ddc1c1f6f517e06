package skills

import (
	"fmt"
	"unicode/utf8"
)

// Skill text — names, descriptions, paths and file names taken from a
// skill pack — reaches two audiences the pack's author does not control:
// the model, and the user's terminal. Everything that shows such text goes
// through one of the functions below, which share one rule: a control
// character is never passed through, it is shown as an escape (\n, \t, \r,
// \u001b, \u202e; a byte that is not UTF-8 as \xff). The characters
// escaped are the C0 and C1 controls and DEL (a terminal obeys them:
// ESC sequences set the window title or clear the screen; a line break
// starts a line the program did not write), U+2028 and U+2029 (line breaks
// to some readers), and the bidirectional controls (U+061C, U+200E,
// U+200F, U+202A–U+202E, U+2066–U+2069), which reorder what is displayed.

// ModelText is skill text as it goes into what the model sees (the skill
// tool's answers, the skills section, placeholders, notes, the guard's
// reasons): <, > and " escaped (&lt; &gt; &quot;, so no name, description
// or file name can open or close a tag, an attribute or a quotation) and
// every control character shown as an escape (so none can start a line
// such as "Base directory: …" of its own). & and the apostrophe are left
// as they are: neither can open anything (text that spells "&lt;" reads
// as escaped already), and a path such as "R&D/it's.md" stays one the
// model can read.
func ModelText(s string) string { return escapeText(s, true, false) }

// TerminalText is one piece of skill text printed on a terminal (a name, a
// description, a path, a file name): every control character, line breaks
// and tabs included, shown as an escape.
func TerminalText(s string) string { return escapeText(s, false, false) }

// TerminalLines is a whole text made for the terminal (a command's answer,
// a command's output) whose pieces of skill text went through
// TerminalText: its own line breaks and tabs (its layout) stay, every
// other control character is shown as an escape.
func TerminalLines(s string) string { return escapeText(s, false, true) }

// hiddenRune reports the characters shown as escapes.
func hiddenRune(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
		return true
	}
	return false
}

// escapeText applies the rule; xml also escapes the characters of
// xmlEntity, keepLines leaves '\n' and '\t' as they are. A string with
// nothing to escape is returned as it is, without allocating.
func escapeText(s string, xml, keepLines bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f && !(xml && xmlSpecial(c)) {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || (hiddenRune(r) && !(keepLines && (r == '\n' || r == '\t'))) || (xml && r < 0x80 && xmlSpecial(byte(r))) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = fmt.Appendf(b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b = append(b, byte(r))
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\r':
			b = append(b, `\r`...)
		case hiddenRune(r):
			b = fmt.Appendf(b, `\u%04x`, r)
		case xml && r < 0x80 && xmlSpecial(byte(r)):
			b = append(b, xmlEntity[byte(r)]...)
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

func xmlSpecial(c byte) bool { return xmlEntity[c] != "" }

// xmlEntity escapes the characters that delimit markup and quotations.
var xmlEntity = [128]string{'<': "&lt;", '>': "&gt;", '"': "&quot;"}
