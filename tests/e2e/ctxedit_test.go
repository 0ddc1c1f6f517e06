//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Archiving through Pi 1.6's context edits (archiveVia "context_edit",
// docs/pi-host.md "Context edits"): the provider receives what it receives
// with the context hook, request by request, while Pi's session records
// the placeholders as context_edit entries that follow its branches.

// gotoExtension is a test-only extension: /e2e-goto ID moves the session's
// leaf to entry ID (ctx.navigateTree, as /tree does, without a summary).
const gotoExtension = `export default function (pi: any) {
	pi.registerCommand("e2e-goto", {
		description: "navigate the session tree (e2e tests)",
		handler: async (args: string, ctx: any) => {
			await ctx.waitForIdle();
			const r = await ctx.navigateTree(args.trim(), { summarize: false });
			process.stdout.write("E2E-GOTO " + JSON.stringify(r) + "\n");
		},
	});
}
`

// ctxEdit is one context_edit entry of a session.
type ctxEdit struct {
	ID, Target, Text string
	Omit             bool
}

// contextEdits returns the session's context_edit entries, in order.
func contextEdits(t *testing.T, s *Session) []ctxEdit {
	t.Helper()
	var out []ctxEdit
	for _, e := range s.Entries {
		if e.Type != "context_edit" {
			continue
		}
		var v struct {
			TargetID    string `json:"targetId"`
			Replacement *struct {
				Content json.RawMessage `json:"content"`
			} `json:"replacement"`
		}
		if err := json.Unmarshal(e.Raw, &v); err != nil {
			t.Fatalf("%s:%d: %v", s.Path, e.Line, err)
		}
		ce := ctxEdit{ID: e.ID, Target: v.TargetID, Omit: v.Replacement == nil}
		if v.Replacement != nil {
			ce.Text = (&SessionMessage{Content: v.Replacement.Content}).Text()
		}
		out = append(out, ce)
	}
	return out
}

// entryWith returns the id of the session's message entry of role whose
// text holds s (the last one).
func entryWith(t *testing.T, s *Session, role, text string) string {
	t.Helper()
	id := ""
	for _, e := range s.Entries {
		if e.Type == "message" && e.Message != nil && e.Message.Role == role && strings.Contains(e.Message.Text(), text) {
			id = e.ID
		}
	}
	if id == "" {
		t.Fatalf("%s: no %s message holds %q", s.Path, role, text)
	}
	return id
}

// sentMessages returns each request's messages as sent, with the test's
// temporary folder written as <tmp>, so that runs in two environments
// compare.
func sentMessages(t *testing.T, env *Env, reqs []*Request) []string {
	t.Helper()
	base := filepath.Dir(env.AgentDir)
	var out []string
	for _, r := range reqs {
		out = append(out, strings.ReplaceAll(string(warmMessages(t, r)), base, "<tmp>"))
	}
	return out
}

const placeholderSQL = `[skill-lifecycle: the instructions of skill \"write-sql-migration\" were archived`

// ctxEditScript: a migration (the SQL skill), then a failing request with
// a commit (a mid-run load that archives the SQL body at once, with
// cache-aware archiving off), then follow-ups; "Add a down migration"
// loads the trace skill again mid-run.
func ctxEditScript(r *Request) Reply {
	last := r.LastUserText()
	switch {
	case strings.Contains(last, "index on orders") && r.Step == 0:
		return load("write-sql-migration")
	case strings.Contains(last, "index on orders"):
		return Say("Migration added.")
	case strings.Contains(last, "commit the fix") && r.Step == 0:
		return load("trace-failing-request")
	case strings.Contains(last, "commit the fix") && r.Step == 1:
		return load("format-commit-message")
	case strings.Contains(last, "commit the fix"):
		return Say("Fixed and committed.")
	case strings.Contains(last, "down migration") && r.Step == 0:
		return load("trace-failing-request")
	}
	return Say("Done.")
}

// runCtxEditSession runs the scenario of TestContextEditMatchesHook with
// archiveVia via: two prompts; a resume; /tree back to the end of the
// first prompt and a prompt there; /tree back to the first branch's end
// and a prompt there. It returns the environment, the provider and the
// requests' index at each step's start.
func runCtxEditSession(t *testing.T, via string) (*Env, *Provider, []int) {
	t.Helper()
	env, prov := packEnv(t, ctxEditScript, fmt.Sprintf(`{"cacheAware": {"enabled": false}, "archiveVia": %q}`, via))
	ext := filepath.Join(t.TempDir(), "goto.ts")
	if err := os.WriteFile(ext, []byte(gotoExtension), 0o644); err != nil {
		t.Fatal(err)
	}
	var marks []int
	run := func(o RunOpts) *Result {
		t.Helper()
		marks = append(marks, len(prov.Requests()))
		o.Approve = true
		res := env.RunOK(t, o)
		checkNoBridgeErrors(t, res)
		return res
	}
	run(RunOpts{Prompts: []string{
		"Add a migration with an index on orders.customer_id.",
		"Some requests to /orders fail with a 500 since this morning; find out why and commit the fix.",
	}})
	res := run(RunOpts{Continue: true, Prompts: []string{"Thanks, anything else?"}})
	s := MustReadSession(t, res.SessionFile)
	turn1 := entryWith(t, s, "assistant", "Migration added.")
	leaf := entryWith(t, s, "assistant", "Done.")
	res = run(RunOpts{Continue: true, Extensions: []string{ext}, Prompts: []string{"/e2e-goto " + turn1, "Add a down migration for it too."}})
	if !strings.Contains(res.Stdout+res.Stderr, `E2E-GOTO {"cancelled":false}`) {
		t.Fatalf("navigation failed:\nstdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
	}
	run(RunOpts{Continue: true, Extensions: []string{ext}, Prompts: []string{"/e2e-goto " + leaf, "One more thing: is the fix deployed?"}})
	return env, prov, marks
}

// TestContextEditMatchesHook: with archiveVia "context_edit" Pi 1.6's
// provider receives exactly what it receives with the context hook, in
// every request: after the archive, after a resume, after /tree back to
// before the archive (the body whole again, then archived again on that
// branch) and after /tree forward again (archived). The session records
// each archive as a context_edit entry replacing the skill's tool result
// with the placeholder, on the branch it was decided on; with the hook it
// records none.
func TestContextEditMatchesHook(t *testing.T) {
	t.Parallel()
	type out struct {
		env   *Env
		prov  *Provider
		marks []int
	}
	runs := map[string]out{}
	for _, via := range []string{"hook", "context_edit"} {
		env, prov, marks := runCtxEditSession(t, via)
		runs[via] = out{env, prov, marks}
	}
	hook, edit := runs["hook"], runs["context_edit"]
	hs, es := sentMessages(t, hook.env, hook.prov.Requests()), sentMessages(t, edit.env, edit.prov.Requests())
	if len(hs) != len(es) {
		t.Fatalf("hook: %d requests, context_edit: %d", len(hs), len(es))
	}
	for i := range hs {
		if hs[i] != es[i] {
			t.Errorf("request %d differs:\nhook:         %.2000s\ncontext_edit: %.2000s", i, hs[i], es[i])
		}
	}
	reqs := edit.prov.Requests()
	// Requests: 0-4 the two prompts (SQL archived from 3 on), 5 the
	// resume, 6-7 after /tree to the end of the first prompt (whole in 6,
	// archived again in 7 by the mid-run load), 8 after /tree forward.
	want := []int{0, 1, 1, 0, 0, 0, 1, 0, 0}
	if len(reqs) != len(want) {
		for i, r := range reqs {
			t.Logf("request %d: %q %s", i, r.LastUserText(), present(r, bodySQL, bodyTrace))
		}
		t.Fatalf("%d requests, want %d", len(reqs), len(want))
	}
	for i, n := range want {
		if got := CountInMessages(reqs[i], bodySQL); got != n {
			t.Errorf("request %d holds the SQL body %d times, want %d", i, got, n)
		}
		if got, wantP := CountInBody(reqs[i], placeholderSQL), map[bool]int{true: 1}[n == 0 && i > 0]; got != wantP {
			t.Errorf("request %d holds the SQL placeholder %d times, want %d", i, got, wantP)
		}
	}
	if got := hook.marks; fmt.Sprint(got) != fmt.Sprint([]int{0, 5, 6, 8}) {
		t.Errorf("runs started at requests %v", got)
	}

	s := MustReadSession(t, edit.env.LatestSession())
	if err := s.CheckTree(); err != nil {
		t.Error(err)
	}
	sql := entryWith(t, s, "toolResult", "# Write a SQL migration")
	edits := contextEdits(t, s)
	if len(edits) != 2 {
		t.Fatalf("context_edit entries: %+v, want 2 (one per branch)", edits)
	}
	parents := map[string]string{}
	for _, e := range s.Entries {
		if e.ParentID != nil {
			parents[e.ID] = *e.ParentID
		}
	}
	turn1 := entryWith(t, s, "assistant", "Migration added.")
	var branchOf []string
	for _, e := range edits {
		if e.Target != sql || e.Omit || !strings.HasPrefix(e.Text, "[skill-lifecycle: the instructions of skill \"write-sql-migration\" were archived") {
			t.Errorf("edit %+v: want the SQL tool result %s replaced by its placeholder", e, sql)
		}
		// The first child of turn1 on the edit's path names its branch.
		id, child := e.ID, ""
		for id != "" && id != turn1 {
			child, id = id, parents[id]
		}
		branchOf = append(branchOf, child)
	}
	if branchOf[0] == branchOf[1] {
		t.Errorf("both edits are on the branch starting at %s: want one per branch", branchOf[0])
	}
	if n := len(contextEdits(t, MustReadSession(t, hook.env.LatestSession()))); n != 0 {
		t.Errorf("the hook wrote %d context_edit entries", n)
	}
}

// summarizeExtension is compactExtension that also prints, for the
// messages Pi hands it to summarize, how many hold the SQL skill's body
// and how many its placeholder.
const summarizeExtension = `export default function (pi: any) {
	pi.on("session_before_compact", async (event: any) => {
		const p = event.preparation;
		const msgs = [...(p.messagesToSummarize ?? []), ...(p.turnPrefixMessages ?? [])];
		const text = (m: any) => typeof m.content === "string" ? m.content : (m.content ?? []).map((c: any) => c.text ?? "").join("");
		const count = (s: string) => msgs.filter((m: any) => text(m).includes(s)).length;
		process.stdout.write("E2E-SUMMARIZE body=" + count("# Write a SQL migration") + " placeholder=" + count("[skill-lifecycle: the instructions of skill \"write-sql-migration\" were archived") + "\n");
		return { compaction: { summary: "E2E-SUMMARY-7d1f: a migration, then a fix.", firstKeptEntryId: p.firstKeptEntryId, tokensBefore: p.tokensBefore } };
	});
	pi.registerCommand("e2e-compact", {
		description: "compact the session now (e2e tests)",
		handler: async (_args: string, ctx: any) => {
			await new Promise<void>((resolve, reject) => ctx.compact({ onComplete: () => resolve(), onError: (e: Error) => reject(e) }));
			process.stdout.write("E2E-COMPACTED\n");
		},
	});
}
`

// TestContextEditCompaction: Pi 1.6 compacts the context as the edits make
// it: with archiveVia "context_edit" the messages it summarizes hold the
// archived body's placeholder, with the hook the body itself. The requests
// after the compaction are the same either way.
func TestContextEditCompaction(t *testing.T) {
	t.Parallel()
	after := map[string][]string{}
	for _, tc := range []struct{ via, summarized string }{
		{"hook", "E2E-SUMMARIZE body=1 placeholder=0"},
		{"context_edit", "E2E-SUMMARIZE body=0 placeholder=1"},
	} {
		env, prov := packEnv(t, ctxEditScript, fmt.Sprintf(`{"cacheAware": {"enabled": false}, "archiveVia": %q}`, tc.via))
		setKeepRecent(t, env, 1)
		ext := filepath.Join(t.TempDir(), "compact.ts")
		if err := os.WriteFile(ext, []byte(summarizeExtension), 0o644); err != nil {
			t.Fatal(err)
		}
		res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{
			"Add a migration with an index on orders.customer_id.",
			"Some requests to /orders fail with a 500 since this morning; find out why and commit the fix.",
		}})
		checkNoBridgeErrors(t, res)
		before := len(prov.Requests())
		if n := CountInBody(prov.Requests()[before-1], placeholderSQL); n != 1 {
			t.Fatalf("%s: the SQL body was not archived before the compaction", tc.via)
		}
		cres := env.RunOK(t, RunOpts{Approve: true, Continue: true, Extensions: []string{ext}, Prompts: []string{"/e2e-compact"}})
		out := cres.Stdout + cres.Stderr
		if !strings.Contains(out, "E2E-COMPACTED") {
			t.Fatalf("%s: compaction did not complete:\n%s", tc.via, out)
		}
		if !strings.Contains(out, tc.summarized) {
			t.Errorf("%s: Pi summarized other messages than expected (want %q):\n%s", tc.via, tc.summarized, out)
		}
		res = env.RunOK(t, RunOpts{Approve: true, Continue: true, Prompts: []string{"Thanks, anything else?"}})
		checkNoBridgeErrors(t, res)
		reqs := prov.Requests()[before:]
		if len(reqs) != 1 || CountInMessages(reqs[0], "E2E-SUMMARY-7d1f") != 1 {
			t.Fatalf("%s: after the compaction %d requests, the first without the summary", tc.via, len(reqs))
		}
		if n := CountInMessages(reqs[0], bodySQL); n != 0 {
			t.Errorf("%s: the archived SQL body came back after the compaction", tc.via)
		}
		after[tc.via] = sentMessages(t, env, reqs)
	}
	if fmt.Sprint(after["hook"]) != fmt.Sprint(after["context_edit"]) {
		t.Errorf("the request after the compaction differs:\nhook:         %.3000s\ncontext_edit: %.3000s", after["hook"], after["context_edit"])
	}
}

// TestContextEditFailOpen: a session whose bodies were archived through
// context edits, resumed while the sidecar cannot run, sends every body
// as recorded, as without the extension: the bridge puts back what its
// edits replaced.
func TestContextEditFailOpen(t *testing.T) {
	t.Parallel()
	env, prov := packEnv(t, ctxEditScript, `{"cacheAware": {"enabled": false}, "archiveVia": "context_edit"}`)
	res := env.RunOK(t, RunOpts{Approve: true, Prompts: []string{
		"Add a migration with an index on orders.customer_id.",
		"Some requests to /orders fail with a 500 since this morning; find out why and commit the fix.",
	}})
	checkNoBridgeErrors(t, res)
	if n := len(contextEdits(t, MustReadSession(t, res.SessionFile))); n != 1 {
		t.Fatalf("%d context_edit entries, want 1", n)
	}
	before := len(prov.Requests())
	missing := filepath.Join(t.TempDir(), "no-such-skill-lifecycle")
	res = env.RunOK(t, RunOpts{Approve: true, Continue: true, Env: []string{BinEnv + "=" + missing}, Prompts: []string{"Thanks, anything else?"}})
	if !strings.Contains(res.Stderr, missing) {
		t.Errorf("the bridge did not say the binary is missing:\n%s", res.Stderr)
	}
	reqs := prov.Requests()[before:]
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if got := present(reqs[0], bodySQL, bodyTrace, bodyCommit); got != "Write a SQL migration=1 Trace a failing request=1 Format a commit message=1" {
		t.Errorf("without the sidecar the request carries %s, want every body", got)
	}
	if n := CountInBody(reqs[0], placeholderSQL); n != 0 {
		t.Errorf("without the sidecar the request holds the placeholder %d times", n)
	}
}

// TestContextEditPi073KeepsHook: Pi 0.73 has no context edits; with
// archiveVia "context_edit" the bridge archives through the context hook
// there, as by default.
func TestContextEditPi073KeepsHook(t *testing.T) {
	t.Parallel()
	env, prov := packEnvOn(t, Pi073(t), ctxEditScript, `{"cacheAware": {"enabled": false}, "archiveVia": "context_edit"}`)
	res := env.RunOK(t, RunOpts{Prompts: []string{
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
	if n := CountInBody(prov.Requests()[3], placeholderSQL); n != 1 {
		t.Errorf("request 3 holds the SQL placeholder %d times, want 1", n)
	}
	s := MustReadSession(t, res.SessionFile)
	for _, e := range s.Entries {
		if e.Type == "context_edit" {
			t.Errorf("Pi 0.73 session holds a context_edit entry at line %d", e.Line)
		}
	}
}
