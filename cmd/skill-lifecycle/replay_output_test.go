package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
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

// TestReplayPackWarning: a replay whose pack leaves the engine blind says
// so on stderr, with what to pass: no --skills, an empty folder, a pack
// naming none or only some of the skills the sessions load; a folder the
// sessions read their skills from that still exists is named as the
// --skills to pass. The right pack, or sessions that load no skill, get
// no such advice (the latter a note that nothing is loaded).
func TestReplayPackWarning(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	other := filepath.Join(dir, "other", "bake-bread")
	for _, d := range []string{empty, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(other, "SKILL.md"), []byte("---\nname: bake-bread\ndescription: Bake bread.\n---\nKnead.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A session that read its skills from a folder that still exists:
	// the bundled pack.
	src, err := os.ReadFile(filepath.Join(liveSessions, "cancel-orders.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(livePack)
	if err != nil {
		t.Fatal(err)
	}
	here := filepath.Join(dir, "here", "cancel-orders.jsonl")
	if err := os.MkdirAll(filepath.Dir(here), 0o755); err != nil {
		t.Fatal(err)
	}
	moved := strings.ReplaceAll(string(src), "/tmp/TestLiveBenchruncancel-ordersnone2972812217/003/project/.agents/skills", abs)
	if err := os.WriteFile(here, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	noSkills := filepath.Join("..", "..", "testdata", "replay", "branches.jsonl")

	for _, tc := range []struct {
		name  string
		args  []string
		want  []string // lines of stderr, in order
		never string
	}{
		{"no pack", []string{liveSessions},
			[]string{"replay: warning: no skill pack given (--skills DIR), so no strategy archives a body",
				"  the sessions load 8 skills the engine does not know: add-go-test, design-http-api, format-commit-message, profile-go-service, trace-failing-request and 3 more",
				"  pass the folder that holds them with --skills; the sessions read them from /tmp/TestLiveBenchruncancel-ordersnone2972812217/003/project/.agents/skills and 3 more"}, ""},
		{"empty folder", []string{"--skills", empty, liveSessions},
			[]string{"replay: warning: --skills " + empty + " holds no skill (no <name>/SKILL.md below it), so no strategy archives a body",
				"  the sessions load 8 skills the engine does not know: "}, ""},
		{"another pack", []string{"--skills", filepath.Dir(other), liveSessions},
			[]string{"replay: warning: --skills " + filepath.Dir(other) + " names none of the skills the sessions load, so no strategy archives a body",
				"  it holds 1: bake-bread",
				"  the sessions load 8 skills the engine does not know: "}, ""},
		{"part of the pack", []string{"--skills", filepath.Join(livePack, "add-go-test"), liveSessions},
			[]string{"replay: warning: --skills " + filepath.Join(livePack, "add-go-test") + " lacks 7 of the 8 skills the sessions load: their bodies are never archived",
				"  the sessions load 7 skills the engine does not know: design-http-api, "}, ""},
		{"the folder is here", []string{here},
			[]string{"replay: warning: no skill pack given (--skills DIR), so no strategy archives a body",
				"  the sessions load 6 skills the engine does not know: ",
				"  pass --skills " + abs + " (the sessions read them from there)"}, ""},
		{"the right pack", []string{"--skills", livePack, liveSessions}, nil, "warning"},
		{"no skill loaded", []string{noSkills},
			[]string{"replay: warning: the sessions load no skill (no full read of a SKILL.md, no skill tool call, no /skill: command): no strategy has a body to archive"}, "--skills"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr := replayRun(t, 0, tc.args...)
			lines := strings.Split(stderr, "\n")
			at := 0
			for _, w := range tc.want {
				for at < len(lines) && !strings.HasPrefix(lines[at], w) {
					at++
				}
				if at == len(lines) {
					t.Fatalf("stderr lacks a line starting %q (after the previous ones):\n%s", w, stderr)
				}
				at++
			}
			if tc.never != "" && strings.Contains(stderr, tc.never) {
				t.Errorf("stderr has %q:\n%s", tc.never, stderr)
			}
		})
	}
}

// TestReplayCalibrationNote: the table comparing keep-all with the
// recorded usage is followed by the line that says why its two USD
// columns differ (the pricing, with the cache lifetime in use) while the
// token columns match.
func TestReplayCalibrationNote(t *testing.T) {
	for _, tc := range []struct{ ttl, life string }{
		{"5m", "a cache that expires 300s after a request"},
		{"0", "no cache lifetime"},
	} {
		out, _ := replayRun(t, 0, "--cache-ttl", tc.ttl, "--skills", livePack, liveSessions)
		_, table, ok := strings.Cut(out, "keep-all against the recorded usage, per session:\n")
		if !ok {
			t.Fatalf("no calibration table:\n%s", out)
		}
		lines := strings.Split(strings.TrimSpace(table), "\n")
		// The header, one row per session, then the note.
		if len(lines) != 6 || !strings.Contains(lines[1], "46/46") {
			t.Fatalf("calibration table of %d lines, want 6:\n%s", len(lines), table)
		}
		note := lines[5]
		for _, want := range []string{"the USD columns differ by pricing alone", "recorded is what the provider billed", tc.life} {
			if !strings.Contains(note, want) {
				t.Errorf("--cache-ttl %s: the line under the table %q lacks %q", tc.ttl, note, want)
			}
		}
	}
}

// TestReplayDecisionsFormat: --decisions prints one short line per
// decision (request, turn, action, skill and code) and its reason on
// indented lines, none over 100 characters; the prices the timing was
// weighed with are said once under the heading; every cost and saving is
// in dollars, none negative; and the list is the one --json gives.
func TestReplayDecisionsFormat(t *testing.T) {
	out, _ := replayRun(t, 0, "--decisions", "--skills", livePack, liveSessions)
	js, _ := replayRun(t, 0, "--decisions", "--json", "--skills", livePack, liveSessions)
	var rep struct {
		Branches []struct {
			Strategies []struct {
				Decisions []struct {
					Request int    `json:"request"`
					Action  string `json:"action"`
					Text    string `json:"text"`
				} `json:"decisions"`
			} `json:"strategies"`
		} `json:"branches"`
	}
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, b := range rep.Branches {
		for _, s := range b.Strategies {
			want += len(s.Decisions)
		}
	}
	_, list, ok := strings.Cut(out, "\ncancel-orders.jsonl, defaults:\n")
	if !ok {
		t.Fatalf("no decisions of cancel-orders:\n%s", out)
	}
	head := regexp.MustCompile(`^  request \d+ +turn \d+ +[a-z-]+( +\S.*)?$`)
	unitless := regexp.MustCompile(`\b(costs?|saves?|save|cost of|comeback of) -?\d`)
	negative := regexp.MustCompile(`-\$|\$-|costs -`)
	heads, notes, reasons := 0, 0, 0
	for _, l := range strings.Split(strings.TrimRight(list, "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("line of %d characters: %q", n, l)
		}
		switch {
		case l == "" || strings.HasSuffix(l, ", defaults:"):
		case strings.HasPrefix(l, "  (timing weighed with "):
			notes++
		case strings.HasPrefix(l, "  request "):
			if !head.MatchString(l) {
				t.Errorf("decision line %q", l)
			}
			heads++
		case strings.HasPrefix(l, "      "):
			reasons++
			if unitless.MatchString(l) || negative.MatchString(l) {
				t.Errorf("reason line %q: a figure without its unit, or negative", l)
			}
			if strings.Contains(l, "times its input price]") {
				t.Errorf("reason line %q repeats the prices said under the heading", l)
			}
		default:
			t.Errorf("unexpected line %q", l)
		}
	}
	if heads != want {
		t.Errorf("%d decision lines, want %d (as --json)", heads, want)
	}
	if notes != len(rep.Branches) || reasons < heads {
		t.Errorf("%d price notes for %d branches, %d reason lines for %d decisions", notes, len(rep.Branches), reasons, heads)
	}
}
