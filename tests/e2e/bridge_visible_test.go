//go:build e2e

package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const lineType = "skill-lifecycle-line"

// lineEntry is the data of a line entry (protocol.LineParams).
type lineEntry struct {
	Kind          string   `json:"kind"`
	Text          string   `json:"text"`
	Skills        []string `json:"skills"`
	Tokens        int64    `json:"tokens"`
	RewriteTokens int64    `json:"rewriteTokens"`
}

func lineEntries(t *testing.T, sess *Session) []lineEntry {
	t.Helper()
	var out []lineEntry
	for _, e := range sess.Custom(lineType) {
		var l lineEntry
		if err := json.Unmarshal(e.Data, &l); err != nil {
			t.Fatalf("line entry at line %d: %v", e.Line, err)
		}
		out = append(out, l)
	}
	return out
}

// scenarioLines: loading trace-failing-request mid-run archives the SQL
// migration's body (TestBridgeMidRunLoad). The archive is one line entry
// in the session, naming the body with the context it saves; no request
// the provider receives holds a line, nor does stderr in print mode; with
// verbose:false there is none,
// and the body is archived all the same.
func scenarioLines(t *testing.T, pi PiInstall) {
	for _, tc := range []struct {
		name, config string
		lines        bool
	}{
		{"verbose", `{"cacheAware": {"enabled": false}}`, true},
		{"quiet", `{"cacheAware": {"enabled": false}, "verbose": false}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, prov := packEnvOn(t, pi, Steps(
				[]Reply{load("write-sql-migration"), Say("Migration added.")},
				[]Reply{load("trace-failing-request"), load("format-commit-message"), Say("Fixed and committed.")},
			), tc.config)
			res := env.RunOK(t, RunOpts{Approve: pi.TrustGated, Prompts: []string{
				"Add a migration with an index on orders.customer_id.",
				"Some requests to /orders fail with a 500 since this morning; find out why and commit the fix.",
			}})
			checkNoBridgeErrors(t, res)
			reqs := prov.Requests()
			if len(reqs) != 5 || CountInMessages(reqs[3], bodySQL) != 0 {
				t.Fatalf("the migration's body was not archived mid-run (%d requests)", len(reqs))
			}
			sess := MustReadSession(t, res.SessionFile)
			lines := lineEntries(t, sess)
			for i, r := range reqs {
				if n := CountInBody(r, "skill-lifecycle: archived") + CountInBody(r, lineType); n != 0 {
					t.Errorf("request %d carries a line (%d times)", i, n)
				}
			}
			if !tc.lines {
				if len(lines) != 0 {
					t.Errorf("verbose:false, yet %d lines: %+v", len(lines), lines)
				}
				if !hasRecord(records(t, sess), "archive", "write-sql-migration") {
					t.Error("verbose:false: no archive record")
				}
				return
			}
			var archive *lineEntry
			for i := range lines {
				if lines[i].Kind == "archive" {
					archive = &lines[i]
				}
			}
			if archive == nil {
				t.Fatalf("no archive line in the session: %+v", lines)
			}
			if len(archive.Skills) != 1 || archive.Skills[0] != "write-sql-migration" ||
				!strings.HasPrefix(archive.Text, "skill-lifecycle: archived write-sql-migration: saves ~") || archive.Tokens <= 0 {
				t.Errorf("archive line: %+v", *archive)
			}
			// Print mode has no transcript, and its stderr is for
			// problems: the line is in the session only.
			if strings.Contains(res.Stderr, archive.Text) {
				t.Errorf("print mode: the line is on stderr:\n%s", res.Stderr)
			}
		})
	}
}

func TestBridgeLinesPi16(t *testing.T) {
	t.Parallel()
	scenarioLines(t, Pi16(t))
}

func TestBridgeLinesPi073(t *testing.T) {
	t.Parallel()
	scenarioLines(t, Pi073(t))
}

// TestBridgeSkillsStats: /skills-stats on the session Pi recorded gives
// the figures `skill-lifecycle replay --recorded` gives for that file,
// within 1%, with and without the extension.
func TestBridgeSkillsStats(t *testing.T) {
	t.Parallel()
	env, _ := packEnv(t, Steps(
		[]Reply{load("write-sql-migration"), Say("Migration added.")},
		[]Reply{load("trace-failing-request"), load("format-commit-message"), Say("Fixed and committed.")},
		[]Reply{Say("Nothing else to do.")},
	), `{"cacheAware": {"enabled": false}}`)
	res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{
		"Add a migration with an index on orders.customer_id.",
		"Some requests to /orders fail with a 500 since this morning; find out why and commit the fix.",
		"Anything left to do on this?",
	}})
	checkNoBridgeErrors(t, res)
	stats := env.RunOK(t, RunOpts{Approve: true, Continue: true, Prompts: []string{"/skills-stats"}})
	// Pi 1.6's print mode keeps stdout for the answer: a command's text
	// is on stderr.
	out := stats.Stdout + stats.Stderr
	figure := func(label string) (int, float64) {
		m := regexp.MustCompile(label + `\s+([0-9,]+) input tokens\s+\$([0-9.]+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("/skills-stats has no %q line:\n%s", label, out)
		}
		tok, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		usd, _ := strconv.ParseFloat(m[2], 64)
		return tok, usd
	}
	t.Logf("/skills-stats:\n%s", out)
	withoutTok, withoutUSD := figure("without skill-lifecycle")
	withTok, withUSD := figure("with skill-lifecycle")

	var b []byte
	var err error
	cmd := exec.Command(SkillLifecycleBin(t), "replay", "--recorded", "--no-defaults", "--json", "--cache-ttl", "5m",
		"--skills", filepath.Join(env.ProjectDir, SkillDir), res.SessionFile)
	b, err = cmd.Output()
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, b)
	}
	var rep struct {
		Strategies []struct {
			Name         string  `json:"name"`
			CostUSD      float64 `json:"costUSD"`
			PromptTokens int     `json:"promptTokens"`
			Archives     int     `json:"archives"`
		} `json:"strategies"`
	}
	if err = json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("replay --json: %v\n%s", err, b)
	}
	within := func(what string, got, want float64) {
		if want <= 0 || got < want*0.99 || got > want*1.01 {
			t.Errorf("%s: /skills-stats says %g, replay --recorded %g\n%s", what, got, want, out)
		}
	}
	found := 0
	for _, s := range rep.Strategies {
		switch s.Name {
		case "keep-all":
			found++
			within("without: tokens", float64(withoutTok), float64(s.PromptTokens))
			within("without: USD", withoutUSD, s.CostUSD)
		case "recorded":
			found++
			within("with: tokens", float64(withTok), float64(s.PromptTokens))
			within("with: USD", withUSD, s.CostUSD)
			if s.Archives == 0 {
				t.Errorf("replay --recorded counts no archive: %s", b)
			}
		}
	}
	if found != 2 {
		t.Fatalf("replay --json lacks keep-all or recorded: %s", b)
	}
	if withUSD >= withoutUSD {
		t.Errorf("the extension saved nothing: with $%g, without $%g", withUSD, withoutUSD)
	}
}
