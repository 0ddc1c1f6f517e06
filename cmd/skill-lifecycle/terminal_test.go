package main

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestTerminalWriter: control characters are shown as escapes wherever a
// write splits the text, layout (line breaks, tabs) stays, and JSON
// written through it still decodes to the same value.
func TestTerminalWriter(t *testing.T) {
	value := map[string]string{"name": "evil\x1b]0;owned\x07 del\x7f c1\u009b rlo\u202e é日😀"}
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(value); err != nil {
		t.Fatal(err)
	}
	in := append([]byte("a\tb\nclear\x1b[2J\r\n"), js.Bytes()...)
	for size := 1; size <= len(in); size++ {
		var out bytes.Buffer
		w := newTerminalWriter(&out)
		for i := 0; i < len(in); i += size {
			if _, err := w.Write(in[i:min(i+size, len(in))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		text, rest, _ := bytes.Cut(out.Bytes(), []byte("\n{"))
		if got, want := string(text), "a\tb\n"+`clear\u001b[2J\r`; got != want {
			t.Fatalf("writes of %d bytes: text %q, want %q", size, got, want)
		}
		for _, c := range string(rest) {
			if c < 0x20 && c != '\n' || c >= 0x7f && c <= 0x9f || c == 0x202e {
				t.Fatalf("writes of %d bytes: a raw %U in %q", size, c, rest)
			}
		}
		var back map[string]string
		if err := json.Unmarshal(append([]byte("{"), rest...), &back); err != nil || back["name"] != value["name"] {
			t.Fatalf("writes of %d bytes: JSON %q decodes to %q (%v)", size, rest, back, err)
		}
	}
}

// TestTerminalWriterFlushesCutSequence: a UTF-8 sequence cut off at the
// end of the output is written, escaped, by Flush.
func TestTerminalWriterFlushesCutSequence(t *testing.T) {
	var out bytes.Buffer
	w := newTerminalWriter(&out)
	w.Write([]byte("x\xe2\x82"))
	if out.String() != "x" {
		t.Fatalf("before Flush: %q", out.String())
	}
	w.Flush()
	if got := out.String(); got != `x\xe2\x82` {
		t.Errorf("after Flush: %q", got)
	}
}

// BenchmarkTerminalWriter: the cost of the filter on a command's output,
// 1 MiB of JSON in 4 KiB writes, as replay --json writes a report (the
// report is ASCII but for a few names; the raw-copy row is the baseline).
func BenchmarkTerminalWriter(b *testing.B) {
	line := []byte(`    {"skill": "write-sql-migration", "action": "archive", "text": "not relevant to the prompt: rank 7 of 28, café"},` + "\n")
	data := bytes.Repeat(line, (1<<20)/len(line))
	for _, bc := range []struct {
		name string
		wrap func(*bytes.Buffer) interface{ Write([]byte) (int, error) }
	}{
		{"raw-copy", func(w *bytes.Buffer) interface{ Write([]byte) (int, error) } { return w }},
		{"terminal-writer", func(w *bytes.Buffer) interface{ Write([]byte) (int, error) } { return newTerminalWriter(w) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var out bytes.Buffer
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				out.Reset()
				w := bc.wrap(&out)
				for i := 0; i < len(data); i += 4096 {
					w.Write(data[i:min(i+4096, len(data))])
				}
			}
		})
	}
}
