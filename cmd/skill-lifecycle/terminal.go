package main

import (
	"io"
	"unicode/utf8"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// terminalWriter is the last guard of what the commands print: every
// control character but line breaks and tabs is shown as an escape
// (skills.TerminalLines), whatever printed it. Skill text a command prints
// goes through skills.TerminalText first, so that its own line breaks and
// tabs cannot start a line or a column either. The JSON the commands print
// stays valid and means the same: the encoder escapes the C0 controls
// itself, and the others it leaves in strings become \uXXXX escapes.
type terminalWriter struct {
	w       io.Writer
	pending []byte // the start of a UTF-8 sequence cut off by the last Write
}

func newTerminalWriter(w io.Writer) *terminalWriter { return &terminalWriter{w: w} }

func (t *terminalWriter) Write(p []byte) (int, error) {
	buf := p
	if len(t.pending) > 0 {
		buf = append(t.pending, p...)
		t.pending = nil
	}
	cut := incompleteTail(buf)
	if _, err := io.WriteString(t.w, skills.TerminalLines(string(buf[:len(buf)-cut]))); err != nil {
		return 0, err
	}
	t.pending = append(t.pending, buf[len(buf)-cut:]...)
	return len(p), nil
}

// Flush writes a cut-off sequence still pending (shown as escaped bytes).
func (t *terminalWriter) Flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	_, err := io.WriteString(t.w, skills.TerminalLines(string(t.pending)))
	t.pending = nil
	return err
}

// Unwrap is the writer underneath (replay asks whether it is a terminal).
func (t *terminalWriter) Unwrap() io.Writer { return t.w }

// incompleteTail is the length of the UTF-8 sequence b ends with when it is
// the start of a valid one that lacks bytes; 0 otherwise.
func incompleteTail(b []byte) int {
	for n := 1; n <= 3 && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}

// unwrapWriter is the writer under a terminalWriter, or w.
func unwrapWriter(w io.Writer) io.Writer {
	if u, ok := w.(interface{ Unwrap() io.Writer }); ok {
		return u.Unwrap()
	}
	return w
}
