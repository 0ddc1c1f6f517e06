package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/models"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
	"github.com/sourcegraph/jsonrpc2"
)

// maxConfigSize bounds a skill-lifecycle.json read; a bigger file is
// reported and ignored.
const maxConfigSize = 1 << 20

// UserPromptParams is the prompt the user sent (after the host expanded
// commands such as /skill:name).
type UserPromptParams struct {
	Text string `json:"text"`
}

// LoadRef is one skill body the host sees in the context it is about to
// send: its id (the tool call id, or for a /skill:name block an id the host
// derives from its user message), the skill, how it arrived and its size in
// characters. The body itself is never sent.
type LoadRef struct {
	ID    string             `json:"id"`
	Skill string             `json:"skill"`
	Kind  lifecycle.LoadKind `json:"kind"`
	Size  int64              `json:"size"`
	Hash  string             `json:"hash,omitempty"`
	// Path is, for a file of a skill's folder (kind "resource"), the path
	// the model read it by.
	Path string `json:"path,omitempty"`
	// Offset is the number of characters before the body in the request as
	// the host would send it without any replacement (system prompt
	// included); only meaningful when BeforeRequestParams.Total is set.
	Offset int64 `json:"offset,omitempty"`
}

// kindResource is the kind of a LoadRef that is no body but a file of a
// skill's folder other than SKILL.md (a reference, an asset) that the model
// read: it goes with the skill's body (lifecycle.Resource).
const kindResource lifecycle.LoadKind = "resource"

// BeforeRequestParams lists the loads in the next model request, in
// context order, with the files of skills' folders the model read.
type BeforeRequestParams struct {
	Loads []LoadRef `json:"loads"`
	// SincePreviousMs is the time since the previous model request (0 for
	// the first or when unknown); CacheCold says the provider's prompt
	// cache is known to be cold (a model switch, a compaction, an expired
	// cache lifetime).
	SincePreviousMs int64 `json:"sincePreviousMs,omitempty"`
	CacheCold       bool  `json:"cacheCold,omitempty"`
	// CacheWarm says the host kept the cache warm since the previous
	// request (Pi 1.6's idle refreshes): a long pause is then no sign of a
	// cold cache.
	CacheWarm bool `json:"cacheWarm,omitempty"`
	// CacheStopped says the host stopped keeping the cache warm during
	// the pause (Pi 1.6's cache_warming_decision "stop"): the lifetime
	// decides, counted from the last refresh when there was one.
	CacheStopped bool `json:"cacheStopped,omitempty"`
	// SinceWarmedMs is, with cacheWarm or cacheStopped, the time since the host's last
	// refresh (0: unknown): Pi stops refreshing silently after 30 idle
	// minutes, so an old refresh no longer keeps the cache warm.
	SinceWarmedMs int64 `json:"sinceWarmedMs,omitempty"`
	// ModelChanged says this request goes to another model than the
	// previous one.
	ModelChanged bool `json:"modelChanged,omitempty"`
	// Total is the size in characters of the whole request without any
	// replacement; 0 when the host does not give positions.
	Total int64 `json:"total,omitempty"`
	// ChangedFrom is the offset of the earliest part of the request that
	// differs from the previous one, when the host knows (0: none known),
	// in the request without replacements like Offset.
	ChangedFrom int64 `json:"changedFrom,omitempty"`
	// PreviousUsage is the token usage the provider reported for the
	// previous request (Pi: the last assistant message's usage), from
	// which the engine learns whether a pause left the cache cold.
	PreviousUsage *UsageParams `json:"previousUsage,omitempty"`
	// PreviousSize is the offset of the previous response in this request
	// without any replacement (what the previous request held), in the
	// units of Total; 0: unknown.
	PreviousSize int64 `json:"previousSize,omitempty"`
}

// UsageParams is a provider's token usage for one request, as the host
// reports it (numbers, not necessarily whole).
type UsageParams struct {
	Input      float64 `json:"input"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// usage converts u for the engine; nil when u is missing or holds a
// negative, non-finite or absurd figure.
func (u *UsageParams) usage() *rules.Usage {
	sane := func(v float64) bool { return v >= 0 && v <= 1e12 }
	if u == nil || !sane(u.Input) || !sane(u.CacheRead) || !sane(u.CacheWrite) {
		return nil
	}
	return &rules.Usage{Input: int64(u.Input), CacheRead: int64(u.CacheRead), CacheWrite: int64(u.CacheWrite)}
}

// Replacement is one body to replace by its placeholder.
type Replacement struct {
	ID          string `json:"id"`
	Placeholder string `json:"placeholder"`
}

// BeforeRequestResult says which of the listed loads to replace.
type BeforeRequestResult struct {
	Archive []Replacement `json:"archive"`
}

// SessionRestoreParams carries the data of every entry of EntryType on the
// session's current branch, oldest first.
type SessionRestoreParams struct {
	Records []json.RawMessage `json:"records"`
	// RequestCount is the number of model requests on the branch so far
	// (its assistant messages), when the host knows it.
	RequestCount *int `json:"requestCount,omitempty"`
}

// SessionRestoreResult reports the restore. Restored is the number of
// records applied, Problems names each record skipped or applied only in
// part (Applied: a newer version, applied as far as understood), one
// problem per record at most; so Restored is the number of records less
// the problems not Applied.
type SessionRestoreResult struct {
	Restored int                 `json:"restored"`
	Problems []lifecycle.Problem `json:"problems,omitempty"`
	// Archived is the number of bodies archived after the restore.
	Archived int `json:"archived"`
}

// ModelChangedParams reports a model the user or the host selected.
type ModelChangedParams struct {
	Model         ModelRef `json:"model"`
	ThinkingLevel string   `json:"thinkingLevel,omitempty"`
	// Source is how it changed ("set", "cycle", "restore"; empty when
	// unknown).
	Source string `json:"source,omitempty"`
}

// ModelSwitchFailedParams reports a switch the host could not make.
type ModelSwitchFailedParams struct {
	Provider string `json:"provider"`
	ID       string `json:"id"`
	Reason   string `json:"reason"`
}

// NotifyParams is a message for the user.
type NotifyParams struct {
	Level   string `json:"level"` // info, warning, error
	Message string `json:"message"`
}

// AppendEntryParams is a session entry for the host to append (never sent
// to the model).
type AppendEntryParams struct {
	CustomType string `json:"customType"`
	Data       any    `json:"data"`
}

// SetModelParams asks the host to switch the model.
type SetModelParams struct {
	Provider      string `json:"provider"`
	ID            string `json:"id"`
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
}

// world is everything the server derives from the host's skill list and the
// configuration files: the parsed skills, the engine's catalog and the
// configuration.
type world struct {
	parsed map[string]*skills.Skill
	cat    lifecycle.Catalog
	cfg    rules.Config
	diags  []string
}

// loadWorld parses the host's skills (lifecycle.CatalogOf builds the
// engine's catalog from them) and reads the configuration: the user's
// <agentDir>/skill-lifecycle.json and, when the project counts (trusted, or
// the user's trustProjectConfig for a host without trust),
// <cwd>/.pi/skill-lifecycle.json.
func loadWorld(p InitializeParams, list []HostSkill) world {
	w := world{parsed: map[string]*skills.Skill{}}
	var ss []skills.Skill
	for _, hs := range list {
		s, _, err := readSkill(hs)
		if err != nil {
			w.diags = append(w.diags, fmt.Sprintf("skill %q: %v", hs.Name, err))
			continue
		}
		// The host's name and description are the ones the model sees.
		s.Name, s.Description = hs.Name, hs.Description
		w.parsed[hs.Name] = s
		ss = append(ss, *s)
	}
	w.cat = lifecycle.CatalogOf(ss, nil)
	userFile := filepath.Join(p.AgentDir, rules.FileName)
	user, ud := readConfig(userFile, p.AgentDir != "")
	w.diags = append(w.diags, ud...)
	trust := rules.TrustUnknown
	if p.Trusted != nil {
		trust = rules.Untrusted
		if *p.Trusted {
			trust = rules.Trusted
		}
	}
	// The project's file is opened only once trust is settled: an
	// untrusted file is never read (a link to /dev/tty or a named pipe
	// committed as that file must not be opened at all), only noticed.
	projectFile := filepath.Join(p.Cwd, ".pi", rules.FileName)
	var project rules.Fragment
	if rules.ProjectCounts(user, trust) {
		var pd []string
		project, pd = readConfig(projectFile, true)
		w.diags = append(w.diags, pd...)
	} else if present(projectFile) {
		why := "the project is not trusted (in Pi 1.6: run pi with -a, or save a trust decision with /trust, docs/config.md)"
		if trust == rules.TrustUnknown {
			why = fmt.Sprintf("the host does not say whether the project is trusted, and %s does not set \"trustProjectConfig\": true (docs/config.md)", userFile)
		}
		w.diags = append(w.diags, fmt.Sprintf("%s is ignored: %s", projectFile, why))
	}
	w.cfg = rules.Merge(user, project, trust)
	return w
}

// present reports whether something is at path, without following a
// final link or opening anything.
func present(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// readConfig reads one configuration file; a missing file sets nothing,
// and anything but a regular file (a named pipe, a device) is refused
// unopened.
func readConfig(path string, want bool) (rules.Fragment, []string) {
	if !want {
		return rules.Fragment{}, nil
	}
	f, err := regfile.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return rules.Fragment{}, nil
		}
		if errors.Is(err, regfile.ErrNotRegular) {
			return rules.Fragment{}, []string{fmt.Sprintf("%v; the file is ignored", err)}
		}
		return rules.Fragment{}, []string{fmt.Sprintf("%s: %v; defaults apply", path, err)}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return rules.Fragment{}, []string{fmt.Sprintf("%s: %v; defaults apply", path, err)}
	}
	if len(data) > maxConfigSize {
		return rules.Fragment{}, []string{fmt.Sprintf("%s: over %d bytes; the file is ignored", path, maxConfigSize)}
	}
	frag, ds := rules.Parse(data, path)
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return frag, out
}

// emit sends each decision to the host as a session entry, and carries
// out the model decisions: a switch or restore becomes host/setModel (and
// a line for the user), a model problem a warning.
func (c *call) emit(ds []lifecycle.Decision) {
	for _, d := range ds {
		_ = c.conn.Notify(c.ctx, NotifyAppendEntry, AppendEntryParams{CustomType: EntryType, Data: d})
		if d.Model == nil {
			continue
		}
		switch d.Action {
		case lifecycle.ActModel, lifecycle.ActModelRestore:
			if d.Model.Provider == "" || d.Model.Model == "" {
				continue
			}
			_ = c.conn.Notify(c.ctx, NotifySetModel, SetModelParams{Provider: d.Model.Provider, ID: d.Model.Model, ThinkingLevel: string(d.Model.Thinking)})
			if d.Model.Message != "" {
				c.tell("info", "skill-lifecycle: "+d.Model.Message)
			}
		case lifecycle.ActModelReport:
			c.tell("warning", "skill-lifecycle: "+d.Model.Message)
		}
	}
}

// registryOf turns the host's model list into the tier machine's registry.
func registryOf(list []HostModel) models.Registry {
	infos := make([]models.ModelInfo, 0, len(list))
	for _, m := range list {
		if m.Provider == "" || m.ID == "" {
			continue
		}
		mi := models.ModelInfo{Provider: m.Provider, ID: m.ID, InputPrice: m.Input, OutputPrice: m.Output, Reasoning: m.Reasoning}
		for _, l := range m.Thinking {
			mi.ThinkingLevels = append(mi.ThinkingLevels, models.ThinkingLevel(l))
		}
		infos = append(infos, mi)
	}
	return models.NewRegistry(infos)
}

// selection is the host's current model as the tier machine sees it.
func selection(m *ModelRef, thinking string) (models.Selection, bool) {
	if m == nil || m.Provider == "" || m.ID == "" {
		return models.Selection{}, false
	}
	return models.Selection{Model: models.ModelRef{Provider: m.Provider, ID: m.ID}, Thinking: models.ThinkingLevel(thinking)}, true
}

func (c *call) userPrompt() (any, *jsonrpc2.Error) {
	var p UserPromptParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	c.s.mu.Lock()
	note := c.reindexLocked(time.Now())
	ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvPrompt, Text: p.Text})
	c.s.mu.Unlock()
	if note != "" {
		c.tell("info", note)
	}
	c.emit(ds)
	return struct{}{}, nil
}

// reindexLocked checks the skill files (at most every few seconds, see
// reindex.go) and, when they changed and settled, re-reads the skills so
// that ranking and the engine's catalog follow them; the listing in the
// system prompt stays until the host reloads. It returns the line to tell
// the user ("" for none). The caller holds s.mu.
func (c *call) reindexLocked(now time.Time) string {
	if c.s.watch == nil {
		return ""
	}
	ch, ok := c.s.watch.check(now, c.s.cat.skills)
	if !ok {
		return ""
	}
	w := loadWorld(c.s.init, c.s.cat.skills)
	c.s.world.parsed, c.s.world.cat = w.parsed, w.cat
	c.s.apply(lifecycle.Event{Type: lifecycle.EvWorld, Catalog: &w.cat})
	return changeMessage(describeChanges(ch, c.s.cat.skills))
}

func (c *call) beforeRequest() (any, *jsonrpc2.Error) {
	var p BeforeRequestParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	for i, l := range p.Loads {
		if l.ID == "" {
			return nil, required(c.method, fmt.Sprintf("loads[%d].id", i))
		}
		if l.Skill == "" {
			return nil, required(c.method, fmt.Sprintf("loads[%d].skill", i))
		}
		switch l.Kind {
		case lifecycle.ByTool, lifecycle.ByRead, lifecycle.ByCommand, lifecycle.ByReattach, kindResource:
		default:
			return nil, rpcError(CodeInvalidParams, "%s: loads[%d].kind: %q is not one of tool, read, command, reattach, resource", c.method, i, l.Kind)
		}
	}
	c.s.mu.Lock()
	var ds []lifecycle.Decision
	// A load recorded at skill/load (or restored) that this request does
	// not carry never reached the context: forgotten, with a record.
	listed := make([]string, 0, len(p.Loads))
	carried := make(map[string]bool, len(p.Loads))
	for _, l := range p.Loads {
		carried[l.ID] = true
		if l.Kind != kindResource {
			listed = append(listed, l.ID)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(c.s.pending)) {
		if !carried[id] {
			ds = append(ds, c.s.apply(lifecycle.Event{Type: lifecycle.EvForget, ID: id})...)
		}
	}
	c.s.pending = nil
	for _, l := range p.Loads {
		if l.Kind == kindResource {
			ds = append(ds, c.s.apply(lifecycle.Event{Type: lifecycle.EvResource, Resource: &lifecycle.Resource{ID: l.ID, Skill: l.Skill, Path: l.Path, Size: l.Size}})...)
			continue
		}
		ds = append(ds, c.s.apply(lifecycle.Event{Type: lifecycle.EvLoad, Load: &lifecycle.Load{ID: l.ID, Skill: l.Skill, Size: l.Size, Kind: l.Kind, Hash: l.Hash}})...)
	}
	r := requestOf(p, c.s.eng.Archived())
	r.Listed = listed
	r.Cache = modelCache(c.s.init.Models, c.s.init.CurrentModel, c.s.init.CacheRetention)
	ds = append(ds, c.s.apply(lifecycle.Event{Type: lifecycle.EvRequest, Request: &r})...)
	archived := c.s.eng.Archived()
	c.s.mu.Unlock()
	c.emit(ds)
	res := BeforeRequestResult{Archive: []Replacement{}}
	for _, l := range p.Loads {
		if ph, ok := archived[l.ID]; ok {
			res.Archive = append(res.Archive, Replacement{ID: l.ID, Placeholder: ph})
		}
	}
	return res, nil
}

func (c *call) sessionRestore() (any, *jsonrpc2.Error) {
	var p SessionRestoreParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	recs := make([]lifecycle.Record, 0, len(p.Records))
	orig := make([]int, 0, len(p.Records)) // index in p.Records of each of recs
	var probs []lifecycle.Problem
	for i, raw := range p.Records {
		var r lifecycle.Record
		if err := json.Unmarshal(raw, &r); err != nil {
			probs = append(probs, lifecycle.Problem{Index: i, Message: fmt.Sprintf("record %d is not a decision: %v", i, err)})
			continue
		}
		recs = append(recs, r)
		orig = append(orig, i)
	}
	c.s.mu.Lock()
	c.s.apply(lifecycle.Event{Type: lifecycle.EvRestore, Records: recs, RequestCount: p.RequestCount})
	probsFromEngine := c.s.eng.RestoreProblems()
	for _, pr := range probsFromEngine {
		if pr.Index >= 0 && pr.Index < len(orig) {
			pr.Index = orig[pr.Index]
		}
		probs = append(probs, pr)
	}
	skipped := 0
	for _, pr := range probs {
		if !pr.Applied {
			skipped++
		}
	}
	n := len(c.s.eng.Archived())
	// The restored skill tool loads count as pending: the records say a
	// load happened, not that its result reached the context (the sidecar
	// may have died before answering). The next request says.
	c.s.pending = nil
	for _, b := range c.s.eng.Loaded() {
		if b.Kind == lifecycle.ByTool {
			if c.s.pending == nil {
				c.s.pending = map[string]bool{}
			}
			c.s.pending[b.ID] = true
		}
	}
	// The host restored its own model from the session: tell the engine
	// which one is in use now.
	var ds []lifecycle.Decision
	if sel, ok := selection(c.s.init.CurrentModel, c.s.init.ThinkingLevel); ok {
		ds = hostModelDecisions(c.s.apply(lifecycle.Event{Type: lifecycle.EvModelSelected, Selection: &sel}))
	}
	c.s.mu.Unlock()
	c.emit(ds)
	return SessionRestoreResult{Restored: len(p.Records) - skipped, Problems: probs, Archived: n}, nil
}

// requestOf describes the coming request to the engine. The host gives
// offsets in the request as it would be without replacements; the bodies
// archived already are sent as their placeholders, so every later offset
// moves back by what each of them saves.
func requestOf(p BeforeRequestParams, archived map[string]string) lifecycle.Request {
	r := lifecycle.Request{
		SincePrevious: msDuration(p.SincePreviousMs),
		CacheCold:     p.CacheCold,
		CacheWarm:     p.CacheWarm,
		CacheStopped:  p.CacheStopped,
		SinceWarmed:   msDuration(p.SinceWarmedMs),
		ModelChanged:  p.ModelChanged,
		CharsPerUnit:  1,
		PreviousUsage: p.PreviousUsage.usage(),
	}
	if p.Total <= 0 {
		return r
	}
	var shift int64 // characters saved by replacements before the current body
	for _, l := range p.Loads {
		off := max(l.Offset-shift, 0)
		size := l.Size
		if ph, ok := archived[l.ID]; ok {
			size = int64(len(ph))
			shift += max(l.Size-size, 0)
		}
		r.Bodies = append(r.Bodies, lifecycle.BodyPosition{ID: l.ID, Offset: off, Size: size})
	}
	r.Total = max(p.Total-shift, 0)
	if p.PreviousSize > 0 && p.PreviousSize <= p.Total {
		r.Previous = sentOffset(p.PreviousSize, p.Loads, archived)
	}
	if p.ChangedFrom > 0 {
		r.ChangedFrom = max(sentOffset(p.ChangedFrom, p.Loads, archived), 1)
	}
	return r
}

// sentOffset maps offset x of the request without replacements (the
// host's view) to the request as it is sent: less what the bodies archived
// before x save; an offset inside an archived body falls at its
// placeholder.
func sentOffset(x int64, loads []LoadRef, archived map[string]string) int64 {
	cut := x
	for _, l := range loads {
		ph, ok := archived[l.ID]
		if !ok {
			continue
		}
		saved := max(l.Size-int64(len(ph)), 0)
		switch {
		case l.Offset+l.Size <= x:
			cut -= saved
		case l.Offset < x:
			// Inside the body: what of it lies past the placeholder's end
			// is gone.
			cut -= max(x-l.Offset-int64(len(ph)), 0)
		}
	}
	return max(cut, 0)
}

// modelCache is what the host said of the current model's prompt cache:
// its prices relative to its input price and its declared lifetime for
// the retention tier in use. nil when the host said nothing of it.
func modelCache(list []HostModel, cur *ModelRef, retention string) *rules.ModelCache {
	if cur == nil {
		return nil
	}
	for _, m := range list {
		if m.Provider != cur.Provider || m.ID != cur.ID {
			continue
		}
		mc := rules.ModelCache{Model: m.Provider + "/" + m.ID}
		if m.Input != nil && m.CacheRead != nil {
			w := 0.0
			if m.CacheWrite != nil {
				w = *m.CacheWrite
			}
			if r, w, ok := rules.ModelCachePrices(*m.Input, *m.CacheRead, w); ok {
				mc.ReadPrice, mc.WritePrice = r, w
			}
		}
		if pc := m.PromptCache; pc != nil {
			ttl := pc.Short
			if retention == "long" {
				ttl = pc.Long
			}
			if ttl > 0 && ttl <= rules.MaxCacheTTLSeconds {
				mc.TTLSeconds = ttl
			}
		}
		if mc.ReadPrice == 0 && mc.TTLSeconds == 0 {
			return nil
		}
		return &mc
	}
	return nil
}

// msDuration converts milliseconds, clamping negative values to zero.
func msDuration(ms int64) time.Duration {
	if ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

func (c *call) runStart() (any, *jsonrpc2.Error) {
	c.s.mu.Lock()
	ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvRunStart})
	c.s.mu.Unlock()
	c.emit(ds)
	return struct{}{}, nil
}

func (c *call) runEnd() (any, *jsonrpc2.Error) {
	c.s.mu.Lock()
	ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvRunEnd})
	c.s.mu.Unlock()
	c.emit(ds)
	return struct{}{}, nil
}

func (c *call) modelChanged() (any, *jsonrpc2.Error) {
	var p ModelChangedParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	if p.Model.Provider == "" || p.Model.ID == "" {
		return nil, required(c.method, "model.provider and model.id")
	}
	c.s.mu.Lock()
	c.s.init.CurrentModel = &ModelRef{Provider: p.Model.Provider, ID: p.Model.ID}
	c.s.init.ThinkingLevel = p.ThinkingLevel
	sel, _ := selection(c.s.init.CurrentModel, p.ThinkingLevel)
	ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvModelSelected, Selection: &sel})
	c.s.mu.Unlock()
	c.emit(ds)
	return struct{}{}, nil
}

func (c *call) modelSwitchFailed() (any, *jsonrpc2.Error) {
	var p ModelSwitchFailedParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	if p.Provider == "" || p.ID == "" {
		return nil, required(c.method, "provider and id")
	}
	c.s.mu.Lock()
	ds := c.s.apply(lifecycle.Event{Type: lifecycle.EvModelFailed, ModelRef: &models.ModelRef{Provider: p.Provider, ID: p.ID}, Text: p.Reason})
	c.s.mu.Unlock()
	c.emit(ds)
	return struct{}{}, nil
}
