package skills

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzParse feeds arbitrary bytes to Parse and Validate. Neither may panic;
// the skill is always returned, every diagnostic names the file and says
// something, the body is the tail of the input (nothing invented), and
// heading lines fall inside the file.
func FuzzParse(f *testing.F) {
	seeds := 0
	_ = filepath.WalkDir("../testdata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
				seeds++
			}
		}
		return nil
	})
	if seeds == 0 {
		f.Fatal("no seed files under ../testdata")
	}
	for _, s := range []string{
		"", "---", "---\n", "---\n---", "\ufeff---\r\nname: x\r\n---\r\n", "---\n- a\n---\n",
		"---\na: &a [x,x]\nb: [*a,*a]\ndescription: *a\n---\n", "---\nmetadata: {role: entry, x: [1]}\n---\n",
		"---\ndescription: " + strings.Repeat("[", 100) + "\n---\n", "\x00\xff---\n", "```\n# x\n~~~\n```\n# y\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		timer := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("Parse took over 5 s on %q", data)) })
		defer timer.Stop()
		const path = "/fuzz/skill/SKILL.md"
		s, diags := Parse(path, data)
		if s == nil {
			t.Fatal("nil skill")
		}
		for _, d := range diags {
			if d.Path != path || d.Message == "" || d.Code == "" {
				t.Fatalf("bad diagnostic %+v", d)
			}
		}
		if len(data) <= MaxFileSize && !bytes.HasSuffix(data, []byte(s.Body)) {
			t.Fatalf("body %q is not the tail of the input", s.Body)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, h := range s.Headings {
			if h.Line < 1 || h.Line > lines || h.Level < 1 || h.Level > 6 {
				t.Fatalf("heading out of range: %+v (file has %d lines)", h, lines)
			}
		}
		for _, m := range []Mode{Lenient, Strict} {
			for _, d := range Validate(s, m) {
				if d.Message == "" || d.Code == "" {
					t.Fatalf("bad diagnostic %+v", d)
				}
			}
		}
		_ = Normalize(s.Name)
	})
}
