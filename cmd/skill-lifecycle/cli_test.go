package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// subcommands are the commands whose help and usage mistakes are checked.
var subcommands = []string{"explain", "list", "replay", "serve", "validate", "version"}

// TestHelpOnce: -h, -help, --help and "help CMD" print the command's help
// once, on stdout, with exit 0 and nothing on stderr.
func TestHelpOnce(t *testing.T) {
	for _, cmd := range subcommands {
		for _, args := range [][]string{{cmd, "-h"}, {cmd, "-help"}, {cmd, "--help"}, {"help", cmd}} {
			var out, errb bytes.Buffer
			code := run(args, &out, &errb)
			if code != exitOK || errb.Len() != 0 {
				t.Errorf("%v: exit %d, stderr %q; want 0 and nothing on stderr", args, code, errb.String())
			}
			if n := strings.Count(out.String(), "usage: skill-lifecycle "+cmd); n != 1 || !strings.HasPrefix(out.String(), "usage: ") {
				t.Errorf("%v: the usage line %d times on stdout, want once, first:\n%s", args, n, out.String())
			}
		}
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitOK || errb.Len() != 0 || !strings.Contains(out.String(), "commands:") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
	}
}

// flagLine is a flag's line in the "flags:" list of a help.
var flagLine = regexp.MustCompile(`(?m)^  --?([a-z][a-z-]*)`)

// TestUsageLineListsEveryFlag: the usage line of each command names every
// flag its help lists, and nothing else.
func TestUsageLineListsEveryFlag(t *testing.T) {
	for _, cmd := range subcommands {
		var out, errb bytes.Buffer
		run([]string{cmd, "--help"}, &out, &errb)
		text := out.String()
		line, rest, _ := strings.Cut(text, "\n")
		var listed []string
		for _, m := range flagLine.FindAllStringSubmatch(rest, -1) {
			listed = append(listed, m[1])
		}
		if cmd != "version" && len(listed) == 0 {
			t.Errorf("%s --help lists no flag:\n%s", cmd, text)
		}
		var named []string
		for _, m := range regexp.MustCompile(`\[--([a-z-]+)`).FindAllStringSubmatch(line, -1) {
			named = append(named, m[1])
		}
		slices.Sort(listed)
		slices.Sort(named)
		if !slices.Equal(listed, named) {
			t.Errorf("%s: usage line %q names %v; the help lists %v", cmd, line, named, listed)
		}
	}
}

// TestUsageMistakes: the same mistake gets the same exit code in every
// command (2), a message on stderr saying what is wrong and, for a flag,
// what it wants, nothing on stdout, and the usage line once at most (not
// the whole help).
func TestUsageMistakes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	tests := []struct {
		args []string
		want string // on stderr
	}{
		{[]string{"explain", "--bogus", "x"}, "skill-lifecycle explain: unknown flag --bogus"},
		{[]string{"list", "--bogus"}, "skill-lifecycle list: unknown flag --bogus"},
		{[]string{"validate", "--bogus", "x"}, "skill-lifecycle validate: unknown flag --bogus"},
		{[]string{"replay", "--bogus", "x"}, "replay: unknown flag --bogus"},
		{[]string{"serve", "--bogus"}, "serve: unknown flag --bogus"},
		{[]string{"version", "--bogus"}, "version: unknown flag --bogus"},

		{[]string{"replay", "--cache-ttl", "5", "x"}, `--cache-ttl "5": want a duration such as 5m or 300s, or 0`},
		{[]string{"replay", "--cache-ttl", "soon", "x"}, `--cache-ttl "soon": want a duration such as 5m or 300s, or 0`},
		{[]string{"replay", "--cache-ttl", "-5m", "x"}, `--cache-ttl -5m0s: want a duration such as 5m or 300s, or 0; not negative`},
		{[]string{"explain", "--top", "three", "x"}, `--top "three": want a whole number`},
		{[]string{"explain", "--top", "-1", "x"}, `--top -1: want 0 or more`},
		{[]string{"explain", "--min-signal", "high", "x"}, `--min-signal "high": want a number such as 2 or 0.5`},
		{[]string{"serve", "--max-message", "big"}, `--max-message "big": want a whole number`},
		{[]string{"serve", "--max-message", "0"}, `--max-message 0: want a positive number of bytes`},
		{[]string{"list", "--json=maybe"}, `--json "maybe": want true or false`},
		{[]string{"explain", "--top", "99999999999999999999", "x"}, `--top "99999999999999999999": want a whole number`},
		{[]string{"list", "--skills"}, `--skills needs a value (DIR)`},
		{[]string{"replay", "--json", "--prices"}, `--prices needs a value (FILE)`},

		{[]string{"explain"}, "a PROMPT is required"},
		{[]string{"validate"}, "no PATH given"},
		{[]string{"replay"}, "give session files or folders"},
		{[]string{"list", "extra"}, `unexpected argument "extra"`},

		{[]string{"explain", "--skills", missing, "x"}, "--skills " + missing + ": no such file or directory"},
		{[]string{"list", "--skills", missing}, "--skills " + missing + ": no such file or directory"},
		{[]string{"validate", missing}, missing + ": no such file or directory"},
		{[]string{"replay", missing}, missing + ": no such file or directory"},
		{[]string{"explain", "--config", missing, "x"}, "--config " + missing + ": no such file or directory"},
		{[]string{"list", "--config", missing}, "--config " + missing + ": no such file or directory"},
		{[]string{"replay", "--config", "x=" + missing, missing}, "--config x: " + missing + ": no such file or directory"},
		{[]string{"replay", "--prices", missing, missing}, "--prices " + missing + ": no such file or directory"},
		{[]string{"replay", "--skills", missing, missing}, "--skills " + missing + ": no such file or directory"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := run(tt.args, &out, &errb)
		stderr := errb.String()
		if code != exitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tt.args, code, stderr, tt.want)
		}
		if strings.Contains(stderr, "parse error") || strings.Count(stderr, "usage:") > 1 || strings.Contains(stderr, "flags:") {
			t.Errorf("%v: stderr is not one message and the usage line:\n%s", tt.args, stderr)
		}
		if tt.args[0] != "validate" && out.Len() != 0 {
			t.Errorf("%v: wrote to stdout on a usage mistake: %q", tt.args, out.String())
		}
	}
}

// TestJSONKeyStyle: every --json output of list, validate and explain
// uses the project's key style, lower camel case, as replay's does.
func TestJSONKeyStyle(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a/calendar/SKILL.md": "---\nname: calendar\ndescription: first\ndisable-model-invocation: true\nmetadata:\n  modelTier: small\n---\n",
		"b/calendar/SKILL.md": "---\nname: calendar\ndescription: second\n---\n",
		"b/broken/SKILL.md":   "---\nname: broken\ndescription: [x\n---\n",
	})
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, args := range [][]string{
		{"list", "--json", "--skills", a, "--skills", b},
		{"validate", "--json", a, b},
		{"explain", "--json", "--skills", a, "calendar"},
		{"explain", "--json", "--skills", a, "--loaded", "calendar", "calendar"},
		{"explain", "--json", "--skills", a, "--model", "calendar"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitOK && code != exitFailed {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		var v any
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out.String())
		}
		var keys []string
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, y := range x {
					keys = append(keys, k)
					walk(y)
				}
			case []any:
				for _, y := range x {
					walk(y)
				}
			}
		}
		walk(v)
		for _, k := range keys {
			if !camelKey.MatchString(k) {
				t.Errorf("%v: key %q is not lower camel case", args, k)
			}
		}
		if len(keys) < 3 {
			t.Errorf("%v: only keys %v", args, keys)
		}
	}
}
