package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// replayRun runs replay with args; it fails the test unless the exit
// status is want.
func replayRun(t *testing.T, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"replay"}, args...), &out, &errb); code != want {
		t.Fatalf("replay %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out.String(), errb.String())
	}
	return out.String(), errb.String()
}

var (
	livePack     = filepath.Join("..", "..", "testdata", "pack")
	liveSessions = filepath.Join("..", "..", "testdata", "live-sessions")
)

// camelKey is the project's JSON key style: lower camel case, initialisms
// upper case (costUSD, cacheTTLSeconds), a word after a digit capitalised
// (promptWithin2Pct).
var camelKey = regexp.MustCompile(`^[a-z]+(?:[A-Z][a-z]*|[0-9]+)*$`)

// TestReplayJSONStyle: replay --json uses one key style throughout, the
// diagnostics included, and rounds its figures: no more than 6 decimals
// anywhere (money), percentages of keep-all to 0.1.
func TestReplayJSONStyle(t *testing.T) {
	dir := t.TempDir()
	// A session with a bad line, so that the report carries a diagnostic.
	src, err := os.ReadFile(filepath.Join(liveSessions, "release-week.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfterN(string(src), "\n", 3)
	bad := filepath.Join(dir, "bad-line.jsonl")
	if err := os.WriteFile(bad, []byte(lines[0]+lines[1]+"{not json\n"+lines[2]), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := replayRun(t, 0, "--json", "--decisions", "--recorded", "--skills", livePack, liveSessions, bad)
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	var walk func(path string, v any)
	keys, diags := 0, 0
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				// The prices are keyed by model name, not by field.
				if !strings.HasSuffix(path, ".prices") {
					keys++
					if !camelKey.MatchString(k) {
						t.Errorf("%s: key %q is not lower camel case", path, k)
					}
				}
				walk(path+"."+k, y)
			}
		case []any:
			if strings.HasSuffix(path, ".diagnostics") {
				diags += len(x)
			}
			for _, y := range x {
				walk(path+"[]", y)
			}
		case json.Number:
			s := x.String()
			_, frac, _ := strings.Cut(s, ".")
			if strings.ContainsAny(s, "eE") || len(frac) > 6 {
				t.Errorf("%s: %s is not rounded", path, s)
			}
			if (strings.HasSuffix(path, "costPct") || strings.HasSuffix(path, "peakPct")) && len(frac) > 1 {
				t.Errorf("%s: %s: a percentage of keep-all has one decimal", path, s)
			}
		}
	}
	walk("", v)
	if keys < 50 || diags == 0 {
		t.Errorf("checked %d keys and %d diagnostics; want the whole report, with a diagnostic", keys, diags)
	}
}
