package protocol

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// packSkills lists testdata/pack as a host would.
func packSkills(t testing.TB) []HostSkill {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "pack"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("testdata/pack: %v", err)
	}
	var out []HostSkill
	for _, e := range entries {
		p := filepath.Join(dir, e.Name(), "SKILL.md")
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s, _ := skills.Parse(p, data)
		out = append(out, HostSkill{Name: s.Name, Description: s.Description, Path: p})
	}
	if len(out) < 5 {
		t.Fatalf("testdata/pack holds %d skills, want at least 5", len(out))
	}
	return out
}

// packServer starts a server initialized with testdata/pack in an empty
// project, with userConfig as the user's skill-lifecycle.json ("" for none).
func packServer(t testing.TB, userConfig string) *harness {
	t.Helper()
	h := startServer(t)
	cwd := t.TempDir()
	if userConfig != "" {
		if err := os.MkdirAll(filepath.Join(cwd, "agent"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cwd, "agent", "skill-lifecycle.json"), []byte(userConfig), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := InitializeParams{ProtocolVersion: Version, Cwd: cwd, AgentDir: filepath.Join(cwd, "agent"), Trusted: ptrTrue(), Skills: packSkills(t)}
	var res InitializeResult
	if err := h.call(MethodInitialize, p, &res); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return h
}

// records returns the decisions the server asked the host to append so
// far, and forgets them.
func (r *recorder) records(t testing.TB) []lifecycle.Decision {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []lifecycle.Decision
	for _, n := range r.notes {
		if n.Method != NotifyAppendEntry {
			continue
		}
		var p struct {
			CustomType string             `json:"customType"`
			Data       lifecycle.Decision `json:"data"`
		}
		if err := json.Unmarshal(*n.Params, &p); err != nil || p.CustomType != EntryType {
			t.Fatalf("bad appendEntry %s: %v", *n.Params, err)
		}
		out = append(out, p.Data)
	}
	r.notes = nil
	return out
}

func actions(ds []lifecycle.Decision) []string {
	var out []string
	for _, d := range ds {
		out = append(out, string(d.Action)+":"+d.Skill)
	}
	return out
}

// waitRecords polls until n records arrived (notifications are delivered
// asynchronously to the client's handler, but before the response).
func waitRecords(t testing.TB, r *recorder, n int) []lifecycle.Decision {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r.mu.Lock()
		got := 0
		for _, x := range r.notes {
			if x.Method == NotifyAppendEntry {
				got++
			}
		}
		r.mu.Unlock()
		if got >= n || time.Now().After(deadline) {
			return r.records(t)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestArchiveAfterUnrelatedPrompt(t *testing.T) {
	h := packServer(t, `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	load := BeforeRequestParams{Loads: []LoadRef{{ID: "call-1", Skill: "write-sql-migration", Kind: lifecycle.ByTool, Size: 4000}}}

	if err := h.call(MethodRunStart, struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := h.call(MethodUserPrompt, UserPromptParams{Text: "add a migration that creates an index on users.email in Postgres"}, nil); err != nil {
		t.Fatal(err)
	}
	var br BeforeRequestResult
	if err := h.call(MethodBeforeRequest, load, &br); err != nil {
		t.Fatal(err)
	}
	if len(br.Archive) != 0 {
		t.Fatalf("fresh load archived at once: %+v", br.Archive)
	}
	if err := h.call(MethodRunEnd, struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	got := actions(waitRecords(t, h.rec, 3))
	if !cmp.Equal(got, []string{"run:", "topic:", "load:write-sql-migration"}) {
		t.Errorf("records after the first run = %v", got)
	}

	// A related prompt keeps the body.
	if err := h.call(MethodUserPrompt, UserPromptParams{Text: "also add a migration that drops the legacy sessions table and backfills the column"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := h.call(MethodBeforeRequest, load, &br); err != nil {
		t.Fatal(err)
	}
	if len(br.Archive) != 0 {
		t.Errorf("related prompt archived the body: %+v", br.Archive)
	}
	h.rec.records(t)

	// An unrelated prompt archives it in the very next request.
	if err := h.call(MethodUserPrompt, UserPromptParams{Text: "write the release notes and changelog for version 2.3 from the merged pull requests"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := h.call(MethodBeforeRequest, load, &br); err != nil {
		t.Fatal(err)
	}
	if len(br.Archive) != 1 || br.Archive[0].ID != "call-1" || !strings.Contains(br.Archive[0].Placeholder, "write-sql-migration") {
		t.Fatalf("unrelated prompt: archive = %+v", br.Archive)
	}
	recs := waitRecords(t, h.rec, 1)
	var archived *lifecycle.Decision
	for i := range recs {
		if recs[i].Action == lifecycle.ActArchive {
			archived = &recs[i]
		}
	}
	if archived == nil || archived.ID != "call-1" || archived.Reason == nil || archived.Reason.Text == "" {
		t.Fatalf("no archive record with a reason: %+v", recs)
	}

	// A new server restored from the records applies the same replacement.
	h2 := packServer(t, `{"minKeep": 0}`)
	var all []json.RawMessage
	for _, d := range append([]lifecycle.Decision{
		{V: 1, Action: lifecycle.ActRun, Run: 1},
		{V: 1, Action: lifecycle.ActLoad, ID: "call-1", Skill: "write-sql-migration", Kind: lifecycle.ByTool, Run: 1},
	}, *archived) {
		b, _ := json.Marshal(d)
		all = append(all, b)
	}
	all = append(all, json.RawMessage(`"not a record"`))
	var rr SessionRestoreResult
	if err := h2.call(MethodSessionRestore, SessionRestoreParams{Records: all}, &rr); err != nil {
		t.Fatal(err)
	}
	if rr.Archived != 1 || rr.Restored != 3 || len(rr.Problems) != 1 || rr.Problems[0].Index != 3 {
		t.Errorf("restore = %+v", rr)
	}
	var br2 BeforeRequestResult
	if err := h2.call(MethodBeforeRequest, load, &br2); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(br.Archive, br2.Archive); diff != "" {
		t.Errorf("restored server answers differently (-before +after):\n%s", diff)
	}
}

func TestBeforeRequestParams(t *testing.T) {
	h := packServer(t, "")
	cases := []struct {
		params any
		field  string
	}{
		{map[string]any{"loads": []any{map[string]any{"skill": "x", "kind": "tool"}}}, "loads[0].id"},
		{map[string]any{"loads": []any{map[string]any{"id": "a", "kind": "tool"}}}, "loads[0].skill"},
		{map[string]any{"loads": []any{map[string]any{"id": "a", "skill": "x", "kind": "telepathy"}}}, "loads[0].kind"},
		{map[string]any{"loads": "many"}, "loads"},
		{map[string]any{"loads": []any{map[string]any{"id": "a", "skill": "x", "kind": "tool", "size": "big"}}}, "size"},
	}
	for _, c := range cases {
		err := h.call(MethodBeforeRequest, c.params, nil)
		if rpcCode(err) != CodeInvalidParams || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%v: got %v, want InvalidParams naming %s", c.params, err, c.field)
		}
	}
}

func TestCommands(t *testing.T) {
	h := packServer(t, "")
	var br BeforeRequestResult
	if err := h.call(MethodBeforeRequest, BeforeRequestParams{Loads: []LoadRef{{ID: "c1", Skill: "add-go-test", Kind: lifecycle.ByTool, Size: 100}}}, &br); err != nil {
		t.Fatal(err)
	}
	run := func(name, args string) CommandResult {
		t.Helper()
		var r CommandResult
		if err := h.call(MethodCommand, CommandParams{Name: name, Args: args}, &r); err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return r
	}
	list := run("skills-list", "")
	for _, want := range []string{"triage-web-task [entry", "format-commit-message [helper]", "add-go-test [loaded]", "archiving on"} {
		if !strings.Contains(list.Text, want) {
			t.Errorf("skills-list lacks %q:\n%s", want, list.Text)
		}
	}
	ex := run("skills-explain", "write the release notes for version 2.3")
	for _, want := range []string{"1. write-release-notes", "add-go-test: "} {
		if !strings.Contains(ex.Text, want) {
			t.Errorf("skills-explain lacks %q:\n%s", want, ex.Text)
		}
	}
	run("skills-pin", "add-go-test")
	if l := run("skills-list", ""); !strings.Contains(l.Text, "add-go-test [pinned (user), loaded]") {
		t.Errorf("after pin:\n%s", l.Text)
	}
	run("skills-unpin", "add-go-test")
	run("skills-off", "")
	if l := run("skills-list", ""); !strings.Contains(l.Text, "archiving off") {
		t.Errorf("after off:\n%s", l.Text)
	}
	got := actions(waitRecords(t, h.rec, 4))
	want := []string{"load:add-go-test", "pin:add-go-test", "unpin:add-go-test", "enabled:"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	for _, bad := range []struct{ name, args string }{{"skills-pin", ""}, {"skills-pin", "nope"}, {"skills-explain", ""}} {
		if err := h.call(MethodCommand, CommandParams{Name: bad.name, Args: bad.args}, nil); rpcCode(err) != CodeInvalidParams || !strings.Contains(err.Error(), "args") {
			t.Errorf("%s %q: got %v", bad.name, bad.args, err)
		}
	}
}

func TestConfigTrust(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name       string
		trusted    *bool
		user       string
		wantOn     bool // archiving on (the project file sets enabled: false)
		wantIgnore bool // a diagnostic says the project file is ignored
		wantDiag   string
	}{
		{name: "trusted", trusted: &yes, wantOn: false},
		{name: "untrusted", trusted: &no, wantOn: true, wantIgnore: true},
		{name: "no notion of trust, default", trusted: nil, wantOn: true, wantIgnore: true},
		{name: "no notion of trust, user says yes", trusted: nil, user: `{"trustProjectConfig": true}`, wantOn: false},
		{name: "no notion of trust, user says no", trusted: nil, user: `{"trustProjectConfig": false}`, wantOn: true, wantIgnore: true},
		{name: "trusted, user says no", trusted: &yes, user: `{"trustProjectConfig": false}`, wantOn: false},
		{name: "invalid user file", trusted: &yes, user: `{"topK": "many"}`, wantOn: false, wantDiag: "skill-lifecycle.json:1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := startServer(t)
			cwd := t.TempDir()
			agent := filepath.Join(cwd, "agent")
			for dir, body := range map[string]string{agent: c.user, filepath.Join(cwd, ".pi"): `{"enabled": false}`} {
				if body == "" {
					continue
				}
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "skill-lifecycle.json"), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var res InitializeResult
			p := InitializeParams{ProtocolVersion: Version, Cwd: cwd, AgentDir: agent, Trusted: c.trusted, Skills: packSkills(t)}
			if err := h.call(MethodInitialize, p, &res); err != nil {
				t.Fatal(err)
			}
			diags := strings.Join(res.Diagnostics, "\n")
			if got := strings.Contains(diags, "skill-lifecycle.json is ignored: "); got != c.wantIgnore {
				t.Errorf("ignored-project diagnostic = %v, want %v; diagnostics:\n%s", got, c.wantIgnore, diags)
			}
			if c.wantDiag != "" && !strings.Contains(diags, c.wantDiag) {
				t.Errorf("diagnostics lack %q:\n%s", c.wantDiag, diags)
			}
			var l CommandResult
			if err := h.call(MethodCommand, CommandParams{Name: "skills-list"}, &l); err != nil {
				t.Fatal(err)
			}
			if on := strings.Contains(l.Text, "archiving on"); on != c.wantOn {
				t.Errorf("archiving on = %v, want %v:\n%s", on, c.wantOn, l.Text)
			}
		})
	}
}

// TestSkillLoadRecordsTheLoad: the skill tool's load is known to the engine
// as soon as the tool answers; the later before_request does not record it
// again.
func TestSkillLoadRecordsTheLoad(t *testing.T) {
	h := packServer(t, "")
	var res SkillLoadResult
	if err := h.call(MethodSkillLoad, SkillLoadParams{Name: "add-go-test", CallID: "call-9"}, &res); err != nil {
		t.Fatal(err)
	}
	recs := waitRecords(t, h.rec, 1)
	if len(recs) != 1 || recs[0].Action != lifecycle.ActLoad || recs[0].ID != "call-9" || recs[0].Hash != res.Hash {
		t.Fatalf("records after skill/load = %+v", recs)
	}
	var br BeforeRequestResult
	load := BeforeRequestParams{Loads: []LoadRef{{ID: "call-9", Skill: "add-go-test", Kind: lifecycle.ByTool, Size: int64(len(res.Text))}}}
	if err := h.call(MethodBeforeRequest, load, &br); err != nil {
		t.Fatal(err)
	}
	if got := actions(h.rec.records(t)); len(got) != 0 {
		t.Errorf("before_request recorded the load again: %v", got)
	}
	// Without a call id (a host that does not give one) nothing is recorded.
	if err := h.call(MethodSkillLoad, SkillLoadParams{Name: "add-go-test"}, &res); err != nil {
		t.Fatal(err)
	}
	if got := actions(h.rec.records(t)); len(got) != 0 {
		t.Errorf("skill/load without callId recorded %v", got)
	}
}

// notes returns the notifications of the given method sent so far (and
// keeps them).
func (r *recorder) of(method string) []json.RawMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []json.RawMessage
	for _, n := range r.notes {
		if n.Method == method && n.Params != nil {
			out = append(out, *n.Params)
		}
	}
	return out
}

// TestModelTiers: a skill's tier switches the model when the skill tool
// answers (host/setModel before the response), and a run-scoped tier puts
// the model back at run end; a failed switch is reported.
func TestModelTiers(t *testing.T) {
	h := startServer(t)
	cwd := t.TempDir()
	agent := filepath.Join(cwd, "agent")
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := `{"models": {"tiers": {"small": {"provider": "p", "model": "small", "scope": "run"}}}}`
	if err := os.WriteFile(filepath.Join(agent, "skill-lifecycle.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p := InitializeParams{ProtocolVersion: Version, Cwd: cwd, AgentDir: agent, Trusted: ptrTrue(), Skills: packSkills(t),
		Models: []HostModel{
			{Provider: "p", ID: "big", Input: price(15), Output: price(75)},
			{Provider: "p", ID: "small", Input: price(1), Output: price(5)},
		},
		CurrentModel: &ModelRef{Provider: "p", ID: "big"}, ThinkingLevel: "off"}
	var res InitializeResult
	if err := h.call(MethodInitialize, p, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) != 0 {
		t.Errorf("diagnostics: %v", res.Diagnostics)
	}
	setModels := func() []SetModelParams {
		var out []SetModelParams
		for _, raw := range h.rec.of(NotifySetModel) {
			var sm SetModelParams
			if err := json.Unmarshal(raw, &sm); err != nil {
				t.Fatal(err)
			}
			out = append(out, sm)
		}
		return out
	}
	if err := h.call(MethodRunStart, struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	var sl SkillLoadResult
	if err := h.call(MethodSkillLoad, SkillLoadParams{Name: "write-release-notes", CallID: "c1"}, &sl); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]SetModelParams{{Provider: "p", ID: "small"}}, setModels()); diff != "" {
		t.Fatalf("after loading a small-tier skill (-want +got):\n%s", diff)
	}
	// The host reports the switch it made (the echo).
	if err := h.call(MethodModelChanged, ModelChangedParams{Model: ModelRef{Provider: "p", ID: "small"}, ThinkingLevel: "off", Source: "set"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := h.call(MethodRunEnd, struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	want := []SetModelParams{{Provider: "p", ID: "small"}, {Provider: "p", ID: "big", ThinkingLevel: "off"}}
	if diff := cmp.Diff(want, setModels()); diff != "" {
		t.Errorf("after the run (-want +got):\n%s", diff)
	}
	var kinds []string
	for _, d := range h.rec.records(t) {
		if strings.HasPrefix(string(d.Action), "model") {
			kinds = append(kinds, string(d.Action))
		}
	}
	if !contains(kinds, "model") || !contains(kinds, "model-restore") || !contains(kinds, "model-state") {
		t.Errorf("model records = %v", kinds)
	}

	// A switch the host could not make is reported to the user.
	if err := h.call(MethodModelSwitchFailed, ModelSwitchFailedParams{Provider: "p", ID: "small", Reason: "no credentials"}, nil); err != nil {
		t.Fatal(err)
	}
	var warned bool
	for _, raw := range h.rec.of(NotifyNotify) {
		if strings.Contains(string(raw), "no credentials") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("failed switch not reported: %s", h.rec.of(NotifyNotify))
	}
	var cmdRes CommandResult
	if err := h.call(MethodCommand, CommandParams{Name: "skills-model"}, &cmdRes); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cmdRes.Text, "write-release-notes:") || !strings.Contains(cmdRes.Text, "Current model: p/big") {
		t.Errorf("skills-model:\n%s", cmdRes.Text)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// rpcStep is one call of a scripted conversation with the sidecar.
type rpcStep struct {
	method string
	params any
}

// startConfigured starts a sidecar whose agent folder holds cfg as
// skill-lifecycle.json, and initializes it with the pack's skills and p's
// models (the rest of p is filled in).
func startConfigured(t *testing.T, cfg string, p InitializeParams) *harness {
	t.Helper()
	h := startServer(t)
	cwd := t.TempDir()
	agent := filepath.Join(cwd, "agent")
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agent, "skill-lifecycle.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p.ProtocolVersion, p.Cwd, p.AgentDir, p.Trusted, p.Skills = Version, cwd, agent, ptrTrue(), packSkills(t)
	if err := h.call(MethodInitialize, p, &InitializeResult{}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return h
}

// run makes the calls in order, failing the test at the first error.
func (h *harness) run(t *testing.T, steps []rpcStep) {
	t.Helper()
	for _, s := range steps {
		if err := h.call(s.method, s.params, nil); err != nil {
			t.Fatalf("%s: %v", s.method, err)
		}
	}
}

// TestModelPricesReachTheEngine: the same due body, at the head of a long
// request with a warm cache, stays under a model with Anthropic's cache
// prices (the rewrite costs more than it saves) and goes under one whose
// cache reads cost as much as input (the rewrite is free).
func TestModelPricesReachTheEngine(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		name        string
		read, write float64
		archived    bool
	}{
		{"Anthropic's cache prices: kept", 0.3, 3.75, false},
		{"no cache discount: archived", 3, 3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := startConfigured(t, `{"minKeep": 0, "cacheAware": {"comebackBase": 0, "comebackLikely": 0, "maxDueShare": 1000}}`,
				InitializeParams{Models: []HostModel{{Provider: "p", ID: "m", Input: f(3), Output: f(15), CacheRead: f(c.read), CacheWrite: f(c.write)}},
					CurrentModel: &ModelRef{Provider: "p", ID: "m"}})
			load := func(total int64) BeforeRequestParams {
				return BeforeRequestParams{Total: total, SincePreviousMs: 1000,
					Loads: []LoadRef{{ID: "call-1", Skill: "write-sql-migration", Kind: lifecycle.ByTool, Size: 4000, Offset: 1000}}}
			}
			h.run(t, []rpcStep{
				{MethodUserPrompt, UserPromptParams{Text: "add a migration that creates an index on users.email in Postgres"}},
				{MethodRunStart, struct{}{}},
				{MethodBeforeRequest, load(20000)},
				{MethodRunEnd, struct{}{}},
				{MethodUserPrompt, UserPromptParams{Text: "write the release notes and changelog for version 2.3 from the merged pull requests"}},
				{MethodRunStart, struct{}{}},
			})
			var br BeforeRequestResult
			if err := h.call(MethodBeforeRequest, load(60000), &br); err != nil {
				t.Fatal(err)
			}
			if got := len(br.Archive) == 1; got != c.archived {
				t.Errorf("archived %v (%+v), want %v", got, br.Archive, c.archived)
			}
		})
	}
}

// TestUsageReachesTheEngine: the usage the host reports for a request
// after a long pause teaches the engine the cache lifetime, so a later
// pause archives a due body as certainly cold; without the usage (or with
// a malformed one) the hedge keeps it.
func TestUsageReachesTheEngine(t *testing.T) {
	warm := &UsageParams{Input: 100, CacheRead: 15000, CacheWrite: 4900}
	cold := &UsageParams{Input: 100, CacheWrite: 19900}
	for _, c := range []struct {
		name     string
		after    *UsageParams // the usage of the request after the first pause
		archived bool
	}{
		{"a cold cache reported after the pause: the next pause archives", cold, true},
		{"no usage reported: hedged, kept", nil, false},
		{"a warm cache reported: kept", warm, false},
		{"a negative figure is no usage: kept", &UsageParams{Input: -5, CacheWrite: 19900}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := startConfigured(t, `{"minKeep": 0, "cacheAware": {"comebackBase": 0, "comebackLikely": 0, "maxDueShare": 1000, "coldConfidence": 0}}`, InitializeParams{})
			req := func(sinceMs int64, u *UsageParams) BeforeRequestParams {
				return BeforeRequestParams{Total: 80000, SincePreviousMs: sinceMs, PreviousUsage: u,
					Loads: []LoadRef{{ID: "call-1", Skill: "write-sql-migration", Kind: lifecycle.ByTool, Size: 4000, Offset: 1000}}}
			}
			h.run(t, []rpcStep{
				{MethodUserPrompt, UserPromptParams{Text: "add a migration that creates an index on users.email in Postgres"}},
				{MethodRunStart, struct{}{}},
				{MethodBeforeRequest, req(0, nil)},
				{MethodBeforeRequest, req(1000, cold)}, // the first request: nothing to judge
				{MethodBeforeRequest, req(400000, warm)},
				{MethodBeforeRequest, req(1000, c.after)},
				{MethodRunEnd, struct{}{}},
				{MethodUserPrompt, UserPromptParams{Text: "write the release notes and changelog for version 2.3 from the merged pull requests"}},
				{MethodRunStart, struct{}{}},
				{MethodBeforeRequest, req(1000, warm)},
			})
			var br BeforeRequestResult
			if err := h.call(MethodBeforeRequest, req(400000, warm), &br); err != nil {
				t.Fatal(err)
			}
			if got := len(br.Archive) == 1; got != c.archived {
				t.Errorf("archived %v (%+v), want %v", got, br.Archive, c.archived)
			}
			// /skills-explain says what was learned.
			var ex CommandResult
			if err := h.call(MethodCommand, CommandParams{Name: "skills-explain", Args: "write the release notes"}, &ex); err != nil {
				t.Fatal(err)
			}
			if learned := strings.Contains(ex.Text, "a pause of 6m40s found it cold"); learned != c.archived {
				t.Errorf("skills-explain says the pause found the cache cold: %v, want %v:\n%s", learned, c.archived, ex.Text)
			}
		})
	}
}

// A file of a skill's folder that the host lists (kind "resource") after
// the skill's body is replaced with that body.
func TestResourceGoesWithItsBody(t *testing.T) {
	h := packServer(t, `{"minKeep": 0, "cacheAware": {"enabled": false}}`)
	loads := BeforeRequestParams{Loads: []LoadRef{
		{ID: "call-1", Skill: "write-sql-migration", Kind: lifecycle.ByTool, Size: 4000},
		{ID: "call-2", Skill: "write-sql-migration", Kind: "resource", Path: "references/migration-checklist.md", Size: 1500},
	}}
	for _, step := range []struct {
		prompt string
		want   []string
	}{
		{"add a migration that creates an index on users.email in Postgres", nil},
		{"write the release notes and changelog for version 2.3 from the merged pull requests", []string{"call-1", "call-2"}},
	} {
		if err := h.call(MethodUserPrompt, UserPromptParams{Text: step.prompt}, nil); err != nil {
			t.Fatal(err)
		}
		var br BeforeRequestResult
		if err := h.call(MethodBeforeRequest, loads, &br); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range br.Archive {
			got = append(got, a.ID)
		}
		if !cmp.Equal(got, step.want) {
			t.Fatalf("after %q: replaced %v, want %v", step.prompt, got, step.want)
		}
		if step.want == nil {
			var l CommandResult
			if err := h.call(MethodCommand, CommandParams{Name: "skills-list"}, &l); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(l.Text, "write-sql-migration [loaded, with 1 file of its folder]") {
				t.Errorf("skills-list does not count the file:\n%s", l.Text)
			}
		}
		if len(br.Archive) == 2 && br.Archive[1].Placeholder != rules.ResourcePlaceholder("write-sql-migration", "references/migration-checklist.md") {
			t.Errorf("the file's placeholder is %q", br.Archive[1].Placeholder)
		}
	}
	var bad BeforeRequestResult
	err := h.call(MethodBeforeRequest, BeforeRequestParams{Loads: []LoadRef{{ID: "x", Skill: "a", Kind: "asset"}}}, &bad)
	if err == nil || !strings.Contains(err.Error(), "resource") {
		t.Errorf("unknown kind: error %v, want one naming the kinds", err)
	}
}

// TestListRoutedEntry checks that /skills-list says why the pinned entry
// skill's body is archived once it has routed (cacheAware.releaseRoutedEntry).
func TestListRoutedEntry(t *testing.T) {
	h := packServer(t, "")
	var all []json.RawMessage
	for _, d := range []lifecycle.Decision{
		{V: 1, Action: lifecycle.ActRun, Run: 1},
		{V: 1, Action: lifecycle.ActLoad, ID: "call-1", Skill: "triage-web-task", Kind: lifecycle.ByTool, Run: 1},
		{V: 1, Action: lifecycle.ActDue, ID: "call-1", Skill: "triage-web-task", Run: 1, Request: 2, Reason: &rules.Reason{Code: rules.ArchiveRouted}},
		{V: 1, Action: lifecycle.ActArchive, ID: "call-1", Skill: "triage-web-task", Request: 2, Reason: &rules.Reason{Code: rules.ArchiveRouted}},
	} {
		b, _ := json.Marshal(d)
		all = append(all, b)
	}
	var rr SessionRestoreResult
	if err := h.call(MethodSessionRestore, SessionRestoreParams{Records: all}, &rr); err != nil {
		t.Fatal(err)
	}
	var l CommandResult
	if err := h.call(MethodCommand, CommandParams{Name: "skills-list"}, &l); err != nil {
		t.Fatal(err)
	}
	if want := "pinned (entry), archived once it had routed]"; !strings.Contains(l.Text, want) {
		t.Errorf("skills-list lacks %q:\n%s", want, l.Text)
	}
}

// TestModelLinesVerbose: a tier switch and its restore are each a
// host/line (the transcript's model-change line) with verbose on, the
// default, and none with verbose:false; the switch happens either way.
func TestModelLinesVerbose(t *testing.T) {
	for _, tc := range []struct {
		verbose string
		lines   int
	}{{"", 2}, {`, "verbose": false`, 0}} {
		h := startServer(t)
		cwd := t.TempDir()
		agent := filepath.Join(cwd, "agent")
		if err := os.MkdirAll(agent, 0o755); err != nil {
			t.Fatal(err)
		}
		cfg := `{"models": {"tiers": {"small": {"provider": "p", "model": "small", "scope": "run"}}}` + tc.verbose + `}`
		if err := os.WriteFile(filepath.Join(agent, "skill-lifecycle.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		p := InitializeParams{ProtocolVersion: Version, Cwd: cwd, AgentDir: agent, Trusted: ptrTrue(), Skills: packSkills(t),
			Models:       []HostModel{{Provider: "p", ID: "big", Input: price(15)}, {Provider: "p", ID: "small", Input: price(1)}},
			CurrentModel: &ModelRef{Provider: "p", ID: "big"}, ThinkingLevel: "off"}
		if err := h.call(MethodInitialize, p, &InitializeResult{}); err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			method string
			params any
		}{
			{MethodRunStart, struct{}{}},
			{MethodSkillLoad, SkillLoadParams{Name: "write-release-notes", CallID: "c1"}},
			{MethodModelChanged, ModelChangedParams{Model: ModelRef{Provider: "p", ID: "small"}, ThinkingLevel: "off", Source: "set"}},
			{MethodRunEnd, struct{}{}},
		}
		for _, s := range steps {
			if err := h.call(s.method, s.params, nil); err != nil {
				t.Fatal(err)
			}
		}
		if n := len(h.rec.of(NotifySetModel)); n != 2 {
			t.Errorf("config %s: %d host/setModel, want 2", cfg, n)
		}
		var lines []string
		for _, raw := range h.rec.of(NotifyLine) {
			var l LineParams
			if err := json.Unmarshal(raw, &l); err != nil {
				t.Fatal(err)
			}
			if l.Kind == "model" {
				lines = append(lines, l.Text)
			}
		}
		if len(lines) != tc.lines || len(h.rec.of(NotifyNotify)) != 0 {
			t.Errorf("config %s: model lines %q and notifications %s, want %d lines and no notification", cfg, lines, h.rec.of(NotifyNotify), tc.lines)
		}
	}
}
