//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Headings that mark each body of testdata/pack in a request.
const (
	bodyTriage  = "# Triage a web-service task"
	bodyTrace   = "# Trace a failing request"
	bodyProfile = "# Profile the Go service"
	bodySQL     = "# Write a SQL migration"
	bodyCommit  = "# Format a commit message"
)

// packEnv prepares Pi with the bridge, testdata/pack as project skills and
// the user's skill-lifecycle.json.
func packEnv(t *testing.T, script Script, config string) (*Env, *Provider) {
	t.Helper()
	return packEnvOn(t, Pi16(t), script, config)
}

// packEnvOn is packEnv on the Pi line pi.
func packEnvOn(t *testing.T, pi PiInstall, script Script, config string) (*Env, *Provider) {
	t.Helper()
	prov := NewProvider(t, script)
	env := NewEnv(t, pi, prov)
	env.UseBridge(t)
	env.ExtraEnv = append(env.ExtraEnv, slowMachineTimeout)
	env.CopyPack(t, filepath.Join(RepoRoot(t), "testdata", "pack"))
	if config != "" {
		if err := os.WriteFile(filepath.Join(env.AgentDir, "skill-lifecycle.json"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return env, prov
}

func load(name string) Reply { return Do(Call{Name: "skill", Args: map[string]any{"name": name}}) }

// firstOfTurn returns the first request of user turn n (1-based).
func firstOfTurn(t *testing.T, reqs []*Request, n int) *Request {
	t.Helper()
	for _, r := range reqs {
		if r.UserTurn == n && r.Step == 0 {
			return r
		}
	}
	t.Fatalf("no request for user turn %d among %d requests", n, len(reqs))
	return nil
}

// present reports, for each marker, whether the request's messages hold it
// (exactly once) — a compact way to compare what a request carries.
func present(r *Request, markers ...string) string {
	var parts []string
	for _, m := range markers {
		parts = append(parts, fmt.Sprintf("%s=%d", strings.TrimPrefix(m, "# "), CountInMessages(r, m)))
	}
	return strings.Join(parts, " ")
}

// wantPresent checks that there are as many requests as want lines and
// that request i carries the markers as want[i] says (present).
func wantPresent(t *testing.T, reqs []*Request, markers []string, want []string) {
	t.Helper()
	if len(reqs) != len(want) {
		t.Fatalf("provider got %d requests, want %d", len(reqs), len(want))
	}
	for i, r := range reqs {
		if got := present(r, markers...); got != want[i] {
			t.Errorf("request %d: %s, want %s", i, got, want[i])
		}
	}
}

// TestBridgePinAndEntrySurvive (scenario 4): a pinned body and the entry
// skill's body survive an unrelated prompt; after /skills-unpin the pinned
// one goes.
func TestBridgePinAndEntrySurvive(t *testing.T) {
	t.Parallel()
	env, prov := packEnv(t, Steps(
		[]Reply{load("triage-web-task"), load("trace-failing-request"), Say("It is a nil map in the handler.")},
		[]Reply{Say("Release notes written.")},
		[]Reply{Say("Migration written.")},
	), `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{
		"The /orders endpoint returns 500 for some customers since this morning; find out why.",
		"/skills-pin trace-failing-request",
		"Write the release notes and the changelog entry for version 2.3 from the merged pull requests.",
		"/skills-unpin trace-failing-request",
		"Write a Postgres migration that adds a nullable discount column to the orders table.",
	}})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	markers := []string{bodyTriage, bodyTrace}
	if got, want := present(reqs[2], markers...), "Triage a web-service task=1 Trace a failing request=1"; got != want {
		t.Fatalf("after both loads: %s, want %s", got, want)
	}
	if got, want := present(firstOfTurn(t, reqs, 2), markers...), "Triage a web-service task=1 Trace a failing request=1"; got != want {
		t.Errorf("unrelated prompt with trace pinned: %s, want %s (entry and pinned kept)", got, want)
	}
	if got, want := present(firstOfTurn(t, reqs, 3), markers...), "Triage a web-service task=1 Trace a failing request=0"; got != want {
		t.Errorf("unrelated prompt after unpin: %s, want %s", got, want)
	}
	recs := records(t, MustReadSession(t, res.SessionFile))
	for _, a := range []string{"pin", "unpin", "archive"} {
		if !hasRecord(recs, a, "trace-failing-request") {
			t.Errorf("no %s record for trace-failing-request: %v", a, recs)
		}
	}
	if hasRecord(recs, "archive", "triage-web-task") {
		t.Errorf("the entry skill was archived: %v", recs)
	}
	RecordSession(t, env, res.SessionFile, "bridge-pin-entry-pi16")
}

// scenarioRoutedEntry: with the defaults, the entry skill's body goes at
// the request right after it routed (cacheAware.releaseRoutedEntry), and a
// `routed` due record and a `routed-entry` archive say why. Each task's
// copy is weighed: read again in turn 2, it routes again and goes again;
// read again in turn 3 without routing, it stays.
func scenarioRoutedEntry(t *testing.T, pi PiInstall) {
	env, prov := packEnvOn(t, pi, Steps(
		[]Reply{load("triage-web-task"), load("trace-failing-request"), Say("It is a nil map in the handler.")},
		[]Reply{load("triage-web-task"), load("profile-go-service"), Say("The index is missing.")},
		[]Reply{load("triage-web-task"), Say("This one needs a decision from you first.")},
	), "")
	res := env.RunOK(t, RunOpts{Approve: pi.TrustGated, Prompts: []string{
		"The /orders endpoint returns 500 for some customers since this morning; find out why.",
		"Another report: GET /customers/512/orders takes 800 ms in staging. Triage it again, then profile it.",
		"One more report came in; triage it again before doing anything.",
	}})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	wantPresent(t, reqs, []string{bodyTriage, bodyTrace, bodyProfile}, []string{
		"Triage a web-service task=0 Trace a failing request=0 Profile the Go service=0",
		"Triage a web-service task=1 Trace a failing request=0 Profile the Go service=0",
		// It routed to trace-failing-request: archived in this request.
		"Triage a web-service task=0 Trace a failing request=1 Profile the Go service=0",
		"Triage a web-service task=0 Trace a failing request=1 Profile the Go service=0",
		// Read again for the next task: a new copy...
		"Triage a web-service task=1 Trace a failing request=1 Profile the Go service=0",
		// ...which routes to profile-go-service, and goes too.
		"Triage a web-service task=0 Trace a failing request=1 Profile the Go service=1",
		"Triage a web-service task=0 Trace a failing request=1 Profile the Go service=1",
		// Read again, routing nowhere: it stays. Loaded mid-run, it
		// supersedes the other two, and archiving them pays here.
		"Triage a web-service task=1 Trace a failing request=0 Profile the Go service=0",
	})
	placeholder := "the instructions of skill \\\"triage-web-task\\\" were archived"
	for i, want := range map[int]int{2: 1, 5: 2, 7: 2} {
		if got := strings.Count(string(reqs[i].Body), placeholder); got != want {
			t.Errorf("request %d carries %d placeholders for triage-web-task, want %d", i, got, want)
		}
	}
	recs := records(t, MustReadSession(t, res.SessionFile))
	var due, archived int
	for _, r := range recs {
		if r["skill"] != "triage-web-task" {
			continue
		}
		reason, _ := r["reason"].(map[string]any)
		timing, _ := r["timing"].(map[string]any)
		switch {
		case r["action"] == "due" && reason["code"] == "routed":
			due++
		case r["action"] == "archive" && timing["code"] == "routed-entry":
			archived++
		case r["action"] == "archive":
			t.Errorf("triage-web-task archived for another reason: %v", r)
		}
	}
	if due != 2 || archived != 2 {
		t.Errorf("triage-web-task: %d routed due and %d routed-entry archive records, want 2 and 2: %v", due, archived, recs)
	}
	RecordSession(t, env, res.SessionFile, "bridge-routed-entry-"+piTag(pi))
}

func TestBridgeRoutedEntryPi16(t *testing.T) {
	t.Parallel()
	scenarioRoutedEntry(t, Pi16(t))
}

func TestBridgeRoutedEntryPi073(t *testing.T) {
	t.Parallel()
	scenarioRoutedEntry(t, Pi073(t))
}

// TestBridgeMidRunLoad (scenario 5): loading skill B mid-run archives an
// unrelated A, loaded in an earlier run, at once (in the very next request);
// loading a helper archives nothing. The defaults apply (minKeep 2 keeps A at
// the second prompt; it does not apply to mid-run loads).
func TestBridgeMidRunLoad(t *testing.T) {
	t.Parallel()
	env, prov := packEnv(t, Steps(
		[]Reply{load("write-sql-migration"), Say("Migration added.")},
		[]Reply{load("trace-failing-request"), load("format-commit-message"), Say("Fixed and committed.")},
	), `{"cacheAware": {"enabled": false}}`)
	res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{
		"Add a migration with an index on orders.customer_id.",
		"Some requests to /orders fail with a 500 since this morning; find out why and commit the fix.",
	}})
	checkNoBridgeErrors(t, res)
	wantPresent(t, prov.Requests(), []string{bodySQL, bodyTrace, bodyCommit}, []string{
		"Write a SQL migration=0 Trace a failing request=0 Format a commit message=0",
		"Write a SQL migration=1 Trace a failing request=0 Format a commit message=0",
		"Write a SQL migration=1 Trace a failing request=0 Format a commit message=0",
		"Write a SQL migration=0 Trace a failing request=1 Format a commit message=0",
		"Write a SQL migration=0 Trace a failing request=1 Format a commit message=1",
	})
	RecordSession(t, env, res.SessionFile, "bridge-mid-run-pi16")
}

// TestBridgeReloadKeepsLatest (scenario 6): loading the same skill again
// keeps only the latest copy.
func TestBridgeReloadKeepsLatest(t *testing.T) {
	t.Parallel()
	env, prov, _ := bridgeEnv(t, Pi16(t), Steps(
		[]Reply{load("tide-tables"), load("tide-tables"), Say("Done.")},
	), `{"cacheAware": {"enabled": false}, "dedupe": "archive-older"}`) // the "already loaded" answer: bridge_dedupe_test.go
	res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{"When is high tide tomorrow?"}})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	if len(reqs) != 3 {
		t.Fatalf("provider got %d requests, want 3", len(reqs))
	}
	if n := CountInMessages(reqs[2], "TIDE-BODY-41c7"); n != 1 {
		t.Errorf("after the second load the body is there %d times, want 1", n)
	}
	if n := CountInMessages(reqs[2], placeholderTide); n != 1 {
		t.Errorf("the older copy's placeholder is there %d times, want 1", n)
	}
	// The latest copy is the one kept: the last tool result holds the body.
	last := reqs[2].LastToolResults()
	if len(last) != 1 || !strings.Contains(last[0].Text(), "TIDE-BODY-41c7") {
		t.Errorf("the latest tool result does not hold the body: %+v", last)
	}
}

// TestBridgeSkillCommandArchived (scenario 7): a body Pi injects for
// /skill:name is a load and is archived once irrelevant.
func TestBridgeSkillCommandArchived(t *testing.T) {
	t.Parallel()
	env, prov, paths := bridgeEnv(t, Pi16(t), Steps(
		[]Reply{Say("High tide is at 06:12.")},
		[]Reply{Say("About two hours.")},
	), `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{
		"/skill:tide-tables when is high tide tomorrow at the harbour?",
		"How long should sourdough bread dough proof at room temperature before baking?",
	}})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	if len(reqs) != 2 {
		t.Fatalf("provider got %d requests, want 2", len(reqs))
	}
	if n := CountInMessages(reqs[0], "TIDE-BODY-41c7"); n != 1 {
		t.Fatalf("the /skill: body is in request 0 %d times, want 1", n)
	}
	if n := CountInMessages(reqs[1], "TIDE-BODY-41c7"); n != 0 {
		t.Errorf("the /skill: body is still in request 1")
	}
	if n := CountInMessages(reqs[1], placeholderTide); n != 1 {
		t.Errorf("request 1 holds the placeholder %d times, want 1", n)
	}
	// The user's own words after the block stay.
	if n := CountInMessages(reqs[1], "when is high tide tomorrow at the harbour?"); n != 1 {
		t.Errorf("the user's arguments were lost (%d)", n)
	}
	if n := CountInMessages(reqs[1], `location="`+paths["tide-tables"]); n != 0 {
		t.Errorf("the <skill> block's header is still there")
	}
	RecordSession(t, env, res.SessionFile, "bridge-skill-command-pi16")
}

// TestBridgeCommands (scenario 9): /skills-explain and /skills-list answer;
// /skills-off stops archiving.
func TestBridgeCommands(t *testing.T) {
	t.Parallel()
	env, prov, _ := bridgeEnv(t, Pi16(t), Steps(
		[]Reply{load("tide-tables"), Say("High tide is at 06:12.")},
		[]Reply{Say("About two hours.")},
	), `{"minKeep": 0}`)
	res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{
		"/skills-list",
		"/skills-explain when is high tide at the harbour",
		"When is high tide tomorrow at the harbour?",
		"/skills-off",
		"How long should sourdough bread dough proof at room temperature before baking?",
	}})
	checkNoBridgeErrors(t, res)
	// Pi 1.6's print mode sends what extensions write on stdout to stderr
	// (stdout holds only the answer); look at both.
	out := res.Stdout + res.Stderr
	for _, want := range []string{
		"2 skills (archiving on):",
		"- tide-tables: Compute high and low tide times",
		`Ranking for "when is high tide at the harbour"`,
		"1. tide-tables",
		"Skill lifecycle is off for this session",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	reqs := prov.Requests()
	if n := CountInMessages(firstOfTurn(t, reqs, 2), "TIDE-BODY-41c7"); n != 1 {
		t.Errorf("with /skills-off the body was archived (%d copies)", n)
	}
	recs := records(t, MustReadSession(t, res.SessionFile))
	if !hasRecord(recs, "enabled", "") || hasRecord(recs, "archive", "tide-tables") {
		t.Errorf("records = %v, want an enabled record and no archive", recs)
	}
}

// TestBridgeModelTier (scenario 8): a skill's model tier switches the model
// of the next request, and a run-scoped tier restores the model after the
// run. write-release-notes declares metadata.modelTier: small.
func TestBridgeModelTier(t *testing.T) {
	t.Parallel()
	prov := NewProvider(t, Steps(
		[]Reply{load("write-release-notes"), Say("Release notes written.")},
		[]Reply{Say("Done.")},
	))
	small := Model{ID: "small-model", Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}
	env := NewEnv(t, Pi16(t), prov, DefaultModel, small)
	env.UseBridge(t)
	env.ExtraEnv = append(env.ExtraEnv, slowMachineTimeout)
	env.CopyPack(t, filepath.Join(RepoRoot(t), "testdata", "pack"))
	cfg := fmt.Sprintf(`{"models": {"tiers": {"small": {"provider": %q, "model": %q, "scope": "run"}}}}`, ProviderName, small.ID)
	if err := os.WriteFile(filepath.Join(env.AgentDir, "skill-lifecycle.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{
		"Write the release notes and the changelog entry for version 2.3.",
		"Thanks. Anything else to check before tagging?",
	}})
	checkNoBridgeErrors(t, res)
	reqs := prov.Requests()
	var got []string
	for _, r := range reqs {
		got = append(got, r.Model)
	}
	want := []string{DefaultModel.ID, small.ID, DefaultModel.ID}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("models of the requests = %v, want %v", got, want)
	}
	recs := records(t, MustReadSession(t, res.SessionFile))
	if !hasRecord(recs, "model", "") || !hasRecord(recs, "model-restore", "") {
		t.Errorf("no model and model-restore records: %v", recs)
	}
	// Each switch is a line in the session (verbose is on by default).
	models := 0
	for _, l := range lineEntries(t, MustReadSession(t, res.SessionFile)) {
		if l.Kind == "model" && strings.HasPrefix(l.Text, "skill-lifecycle: ") {
			models++
		}
	}
	if models != 2 {
		t.Errorf("%d model lines in the session, want 2 (the switch and the restore)", models)
	}
	RecordSession(t, env, res.SessionFile, "bridge-model-tier-pi16")
}

// largeSkills: harbour-charts has a body of about 9,000 characters, over
// cacheAware.largeBodyChars (8,000). Against sail-trim's name and
// description it ranks second of three (score 1.57 against 17.65: in the
// top 3, under half the best).
func largeSkills() []Skill {
	var b strings.Builder
	b.WriteString("# Harbour charts\n\nMarker: CHARTS-BODY-7d21.\n\n")
	for i := 1; b.Len() < 9000; i++ {
		fmt.Fprintf(&b, "Sounding %03d: read the depth at chart datum, add the height of tide, keep a metre under the keel.\n", i)
	}
	return []Skill{
		{Name: "tide-tables", Description: "Compute high and low tide times from a harmonic constants file. Use when the user asks about tides.",
			Body: "# Tide tables\n\nMarker: TIDE-BODY-41c7.\n\nSum the constituents hour by hour.\n"},
		{Name: "harbour-charts", Description: "Read depth soundings from a harbour chart and plan a safe approach. Use when the user asks about depths or moorings.",
			Body: b.String()},
		{Name: "sail-trim", Description: "Trim the sails for the wind when leaving the harbour. Use when the user asks how to set sails.",
			Body: "# Sail trim\n\nMarker: TRIM-BODY-2b6f.\n\nEase the sheets until the luff just lifts.\n"},
	}
}

// TestBridgeLargeBodyMidRun (Pi16, Pi073): in real Pi, a large body of an earlier run is
// not kept on its rank when another skill is loaded mid-run
// (cacheAware.largeBodyChars, on by default): the bridge reports the body's
// size with its load, and the session records it due with the rule's
// reason. With largeBodyChars 0, rank keeps it and nothing is recorded.
func TestBridgeLargeBodyMidRunPi16(t *testing.T) {
	t.Parallel()
	scenarioLargeBodyMidRun(t, Pi16(t))
}

func TestBridgeLargeBodyMidRunPi073(t *testing.T) {
	t.Parallel()
	scenarioLargeBodyMidRun(t, Pi073(t))
}

func scenarioLargeBodyMidRun(t *testing.T, pi PiInstall) {
	for _, tc := range []struct {
		name, config string
		due          bool
	}{
		{"defaults", "", true},
		{"largeBodyChars 0", `{"cacheAware": {"largeBodyChars": 0}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, prov, _ := bridgeEnvWith(t, pi, Steps(
				[]Reply{load("harbour-charts"), Say("Two metres at low water.")},
				[]Reply{load("sail-trim"), Say("Ease the mainsheet a little.")},
			), tc.config, largeSkills()...)
			res := env.RunOK(t, RunOpts{Approve: pi.TrustGated, Prompts: []string{
				"What depth is there at the harbour entrance at low water?",
				"How should I trim the sails for a 15-knot wind when we leave?",
			}})
			checkNoBridgeErrors(t, res)
			if n := CountInMessages(prov.Requests()[1], "CHARTS-BODY-7d21"); n != 1 {
				t.Fatalf("the large body is in request 1 %d times, want 1", n)
			}
			var dropped []map[string]any
			for _, r := range records(t, MustReadSession(t, res.SessionFile)) {
				if r["skill"] == "harbour-charts" && (r["action"] == "due" || r["action"] == "archive") {
					dropped = append(dropped, r)
				}
			}
			if !tc.due {
				if len(dropped) != 0 {
					t.Fatalf("harbour-charts dropped with largeBodyChars 0: %v", dropped)
				}
				return
			}
			if len(dropped) == 0 {
				t.Fatal("harbour-charts was not dropped when sail-trim was loaded mid-run")
			}
			reason, _ := dropped[0]["reason"].(map[string]any)
			text, _ := reason["text"].(string)
			if reason["code"] != "superseded-mid-run" || !strings.Contains(text, `superseded by skill "sail-trim"`) ||
				!strings.Contains(text, "characters is not kept on rank, largeBodyChars 8000") {
				t.Errorf("harbour-charts dropped for %v, want superseded-mid-run by sail-trim, not kept on rank", reason)
			}
		})
	}
}
