package lifecycle

import (
	"maps"
	"slices"
	"sort"

	"github.com/skill-lifecycle/skill-lifecycle/models"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Engine holds the state of the loaded bodies of one session and turns
// events into decisions. It is deterministic, does no I/O and reads no
// clock; it is not safe for concurrent use.
type Engine struct {
	cat      Catalog
	info     map[string]*SkillInfo
	cfg      rules.Config
	entry    string
	entrySrc string

	bodies []Body
	byID   map[string]int
	byRes  map[string]bool // ids of the files tied to a body
	// Per-skill lists of copies (copies.go).
	bySkill map[string][]int
	open    map[string][]int
	holders map[string][]int
	nlive   map[string]int
	pins    map[string]bool
	enabled *bool
	topic   []string
	run     int
	inRun   bool

	// requests is the number of model requests so far (Request.Number,
	// or counted); deferred the timing verdicts of the bodies the last
	// request kept due (for Deferred; not restored).
	requests int
	deferred []rules.Timing

	// problems are the records the last restore could not use.
	problems []Problem

	// life is what the session learned of the cache lifetime from the
	// provider's usage; last what the previous request was, to read the
	// usage reported for it (not restored: learned again).
	life rules.Lifetime
	last lastRequest

	// Model tiers: the parsed `models` key, its diagnostics, the host's
	// registry and the tier machine's state.
	mcfg   models.Config
	mdiags []rules.Diagnostic
	reg    models.Registry
	mstate models.State

	// What a request asks of the bodies, kept between events (held.go).
	dues     []int
	arch     map[string]string
	touched  []int
	archFull bool
}

// New returns an engine for the installed skills in cat under cfg, with no
// body loaded.
func New(cat Catalog, cfg rules.Config) *Engine {
	e := &Engine{}
	e.setCatalog(cat)
	e.cfg = cfg.Clone()
	e.resolveEntry()
	e.parseModels()
	e.reset()
	return e
}

func (e *Engine) reset() {
	e.bodies = nil
	e.byID = map[string]int{}
	e.byRes = map[string]bool{}
	e.reindex()
	e.pins = map[string]bool{}
	e.enabled = nil
	e.topic = nil
	e.run = 0
	e.inRun = false
	e.requests = 0
	e.deferred = nil
	e.last = lastRequest{}
	e.mstate = models.State{}
}

func (e *Engine) setCatalog(cat Catalog) {
	e.cat = cat
	e.cat.Skills = slices.Clone(cat.Skills)
	e.info = make(map[string]*SkillInfo, len(e.cat.Skills))
	for i := range e.cat.Skills {
		s := &e.cat.Skills[i]
		if _, dup := e.info[s.Name]; !dup {
			e.info[s.Name] = s
		}
	}
}

// resolveEntry finds the entry skill: the configured entrySkill when
// installed, else the first declared (metadata.role: entry, by name), else
// the inferred one with inferEntrySkill.
func (e *Engine) resolveEntry() {
	e.entry, e.entrySrc = "", ""
	if n := e.cfg.EntrySkill; n != "" && e.info[n] != nil {
		e.entry, e.entrySrc = n, "configured"
		return
	}
	var declared []string
	for _, s := range e.cat.Skills {
		if s.Role == skills.RoleEntry {
			declared = append(declared, s.Name)
		}
	}
	if len(declared) > 0 {
		sort.Strings(declared)
		e.entry, e.entrySrc = declared[0], "declared"
		return
	}
	if n := e.cat.InferredEntry; e.cfg.InferEntrySkill && n != "" && e.info[n] != nil {
		e.entry, e.entrySrc = n, "inferred"
	}
}

// Entry returns the entry skill and how it was found ("configured",
// "declared", "inferred"); "" and "" when there is none.
func (e *Engine) Entry() (name, source string) { return e.entry, e.entrySrc }

// Config returns the configuration in force.
func (e *Engine) Config() rules.Config { return e.cfg.Clone() }

// Enabled reports whether archiving is on (SetEnabled, else the config).
func (e *Engine) Enabled() bool {
	if e.enabled != nil {
		return *e.enabled
	}
	return e.cfg.Enabled
}

// InRun reports whether an agent run is in progress.
func (e *Engine) InRun() bool { return e.inRun }

// PinOf says whether, and why, skill's bodies are pinned now.
func (e *Engine) PinOf(skill string) rules.PinSource {
	if p, ok := e.pins[skill]; ok {
		if p {
			return rules.PinUser
		}
		return rules.NotPinned
	}
	if e.cfg.IsPinned(skill) {
		return rules.PinConfig
	}
	if e.cfg.PinEntrySkill && skill != "" && skill == e.entry {
		return rules.PinEntry
	}
	return rules.NotPinned
}

// HelperOf says why skill is a helper ("metadata.role: helper" or
// "helperSkills"), or "" when it is not one.
func (e *Engine) HelperOf(skill string) string {
	if s := e.info[skill]; s != nil && s.Role == skills.RoleHelper {
		return "metadata.role: helper"
	}
	if e.cfg.IsHelper(skill) {
		return "helperSkills"
	}
	return ""
}

func (e *Engine) effectiveConfig() rules.Config {
	c := e.cfg
	c.Enabled = e.Enabled()
	return c
}

func (e *Engine) rulesBody(b Body) rules.Body {
	rb := rules.Body{ID: b.ID, Skill: b.Skill, Run: b.Run, Pinned: e.PinOf(b.Skill), Due: b.Due != nil, Size: b.Size}
	if s := e.info[b.Skill]; s != nil {
		rb.Calls = s.Calls
	}
	return rb
}

// judgeable returns the indices of the live bodies the rules judge, oldest
// first: a superseded copy waiting for cache-aware archiving is not judged
// again (only the latest copy of a skill is kept), nor a routed entry body
// (the next request weighs it, once).
func (e *Engine) judgeable() []int {
	// The open lists hold every live copy not due as superseded (and
	// archived copies, which are dropped here).
	var out []int
	for skill, list := range e.open {
		kept := slices.DeleteFunc(list, func(i int) bool { return e.bodies[i].Archived })
		if len(kept) == 0 {
			delete(e.open, skill)
			continue
		}
		e.open[skill] = kept
		out = append(out, kept...)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	return slices.DeleteFunc(out, func(i int) bool {
		b := e.bodies[i]
		return b.Due != nil && (b.Due.Reason.Code == rules.ArchiveSuperseded || b.Due.Reason.Code == rules.ArchiveRouted)
	})
}

func (e *Engine) archive(i int, r rules.Reason) Decision {
	e.setArchived(i, true)
	b := &e.bodies[i]
	b.Due, b.Timing = nil, nil
	rr := r
	b.Reason = &rr
	b.Placeholder = rules.Placeholder(b.Skill)
	return Decision{V: RecordVersion, Action: ActArchive, ID: b.ID, Skill: b.Skill, Reason: &rr, Placeholder: b.Placeholder,
		Resources: resourceChanges(b.Resources, true)}
}

// cacheAware reports whether dropped bodies wait for cache-aware archiving.
func (e *Engine) cacheAware() bool { return e.cfg.CacheAware.Enabled && e.Enabled() }

// drop applies a verdict that body i goes: archived at once, or, with
// cache-aware archiving, marked due (a body already due keeps its mark).
// maxKeep's cap is the user's hard limit and is never deferred.
func (e *Engine) drop(i int, r rules.Reason) []Decision {
	if !e.cacheAware() || r.Code == rules.ArchiveOverMaxKeep {
		return []Decision{e.archive(i, r)}
	}
	b := &e.bodies[i]
	if b.Due != nil {
		return nil
	}
	run := e.run
	if !e.inRun {
		run = e.run + 1
	}
	b.Due = &Due{Reason: r, Run: run, Request: e.requests}
	e.dues = append(e.dues, i)
	rr := r
	return []Decision{{V: RecordVersion, Action: ActDue, ID: b.ID, Skill: b.Skill, Reason: &rr, Run: run, Request: e.requests}}
}

// keepVerdict applies a verdict that body i stays: a due body is no
// longer due when the verdict is a judgement that keeps it (rules.Revives).
func (e *Engine) keepVerdict(i int, r rules.Reason) []Decision {
	b := &e.bodies[i]
	if b.Due == nil || !rules.Revives(r.Code) {
		return nil
	}
	return []Decision{e.undue(i, r)}
}

func (e *Engine) undue(i int, r rules.Reason) Decision {
	b := &e.bodies[i]
	if supersededDue(*b) {
		e.reopened(i)
	}
	b.Due = nil
	rr := r
	return Decision{V: RecordVersion, Action: ActUndue, ID: b.ID, Skill: b.Skill, Reason: &rr}
}

// apply turns verdicts on the bodies idx into decisions.
func (e *Engine) apply(idx []int, vs []rules.Verdict) []Decision {
	var ds []Decision
	for k, v := range vs {
		if v.Keep {
			ds = append(ds, e.keepVerdict(idx[k], v.Reason)...)
		} else {
			ds = append(ds, e.drop(idx[k], v.Reason)...)
		}
	}
	return ds
}

// onPrompt judges the live bodies against a user prompt (rules.JudgePrompt)
// and archives those that go (with cache-aware archiving: marks them due).
func (e *Engine) onPrompt(text string) []Decision {
	idx, c := e.promptCase(text)
	out := rules.JudgePrompt(c)
	ds := e.apply(idx, out.Verdicts)
	if out.Judged {
		t := nonNil(out.Topic)
		if e.topic == nil || !slices.Equal(t, e.topic) {
			e.topic = t
			ds = append(ds, Decision{V: RecordVersion, Action: ActTopic, Topic: slices.Clone(t)})
		}
	}
	return ds
}

// promptCase gathers the live bodies (their indices, oldest first) and
// what rules.JudgePrompt needs to judge them against text.
func (e *Engine) promptCase(text string) ([]int, rules.PromptCase) {
	idx := e.judgeable()
	c := rules.PromptCase{Config: e.effectiveConfig(), Prompt: text, Topic: e.topic, EntrySource: e.entrySrc, Ranker: e.cat.Ranker}
	c.Bodies = make([]rules.Body, len(idx))
	for k, i := range idx {
		c.Bodies[k] = e.rulesBody(e.bodies[i])
	}
	return idx, c
}

// onLoad records a body arriving. An earlier live copy of the same
// skill is archived (only the latest copy is kept); during an agent run,
// with evictOnSkillLoad, the other bodies are judged against the new
// skill (rules.JudgeLoad). A load whose ID is already known, or without an
// ID or skill, is ignored.
func (e *Engine) onLoad(l Load) []Decision {
	return e.onLoads([]Load{l})
}

// onLoads records the bodies that arrived together: the skill tool
// calls of one assistant message, in call order (or one /skill:name). Each
// is handled as SkillLoaded describes, in order; then the model tiers see
// the accepted loads as one batch (docs/models.md: the last switch of a
// message wins, and only that one is handed to the host).
func (e *Engine) onLoads(ls []Load) []Decision {
	var ds []Decision
	var accepted []Load
	for _, l := range ls {
		d, ok := e.loadOne(l)
		ds = append(ds, d...)
		if ok {
			accepted = append(accepted, l)
		}
	}
	if len(accepted) > 0 {
		ds = append(ds, e.modelLoads(accepted)...)
	}
	return ds
}

// loadOne records one body; ok is false when the load is ignored.
func (e *Engine) loadOne(l Load) (ds []Decision, ok bool) {
	if l.ID == "" || l.Skill == "" {
		return nil, false
	}
	if _, dup := e.byID[l.ID]; dup {
		return nil, false
	}
	if e.byRes[l.ID] {
		return nil, false
	}
	return e.bodyLoaded(l), true
}

func (e *Engine) bodyLoaded(l Load) []Decision {
	run := e.run
	if !e.inRun {
		// A body that arrives between runs (a /skill: expansion) belongs
		// to the run its prompt starts.
		run = e.run + 1
	}
	b := Body{ID: l.ID, Skill: l.Skill, Size: l.Size, Kind: l.Kind, Hash: l.Hash, Run: run}
	newest := e.addBody(b)
	e.takeResources(newest)
	ds := []Decision{{V: RecordVersion, Action: ActLoad, ID: b.ID, Skill: b.Skill, Size: b.Size, Kind: b.Kind, Hash: b.Hash, Run: b.Run}}
	if !e.Enabled() {
		return ds
	}
	// The earlier live copies of the skill are superseded. Those already
	// due as superseded are not in the open list: with cacheAware,
	// dropping them again changes nothing.
	for _, i := range e.listed(e.open[l.Skill], newest) {
		r := rules.Superseded(l.Skill, l.ID)
		if d := e.bodies[i].Due; d != nil && d.Reason.Code != rules.ArchiveSuperseded {
			// Due for another reason: the newer copy supersedes it.
			e.bodies[i].Due = nil
		}
		ds = append(ds, e.drop(i, r)...)
	}
	// Every earlier copy is now archived or due as superseded.
	e.open[l.Skill] = append(e.open[l.Skill][:0], newest)
	ds = append(ds, e.judgeOnLoad(b, l)...)
	return append(ds, e.routed(l.Skill)...)
}

// judgeOnLoad judges the other live bodies against b, just loaded mid-run
// (evictOnSkillLoad).
func (e *Engine) judgeOnLoad(b Body, l Load) []Decision {
	if !e.inRun || !e.cfg.EvictOnSkillLoad {
		return nil
	}
	newest := e.byID[b.ID]
	var idx []int
	for _, i := range e.judgeable() {
		if i != newest {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	c := rules.LoadCase{Config: e.effectiveConfig(), New: e.rulesBody(b), NewText: l.Skill,
		NewHelper: e.HelperOf(l.Skill), Run: e.run, EntrySource: e.entrySrc, Ranker: e.cat.Ranker}
	if s := e.info[l.Skill]; s != nil {
		c.NewText = s.Name + " " + s.Description
	}
	c.Bodies = make([]rules.Body, len(idx))
	for k, i := range idx {
		c.Bodies[k] = e.rulesBody(e.bodies[i])
	}
	return e.apply(idx, rules.JudgeLoad(c))
}

// routed marks the entry skill's body due once it has routed: skill, which
// the entry's body names, was just loaded in the run that loaded that body
// (cacheAware.releaseRoutedEntry). The next request weighs it
// (rules.PlanArchives). Each copy is weighed once, for a body pinned by
// pinEntrySkill alone: a copy the agent loads at a later task routes
// again, and is weighed again.
func (e *Engine) routed(skill string) []Decision {
	if !e.inRun || !e.effectiveConfig().ReleasesRoutedEntry() || e.entry == "" || skill == e.entry || e.PinOf(e.entry) != rules.PinEntry {
		return nil
	}
	if s := e.info[e.entry]; s == nil || !slices.Contains(s.Names, skill) {
		return nil
	}
	j := -1
	for _, i := range e.bySkill[e.entry] {
		b := e.bodies[i]
		if b.Run != e.run {
			continue
		}
		if b.Routed {
			return nil // this run's copy was weighed
		}
		if !b.Archived && b.Due == nil {
			j = i
		}
	}
	if j < 0 {
		return nil
	}
	e.bodies[j].Routed = true
	return e.drop(j, rules.Routed(e.entry, skill))
}

// onRunStart marks the start of an agent run.
func (e *Engine) onRunStart() []Decision {
	e.run++
	e.inRun = true
	ds := []Decision{{V: RecordVersion, Action: ActRun, Run: e.run}}
	return append(ds, e.modelStep(e.runStep(e.tiers().RunStart))...)
}

// onRunEnd marks the end of the agent run. A model put on for the run only
// (a run-scoped tier, a helper's switch) is restored (ActModelRestore).
func (e *Engine) onRunEnd() []Decision {
	e.inRun = false
	return e.modelStep(e.runStep(e.tiers().RunEnd))
}

// onPin pins skill for this session (/skills-pin): its bodies are never
// archived. When its latest copy is archived, that copy is unarchived,
// even if an older copy is still live: that one is superseded by it, due
// for archive, and goes as any superseded copy does (keeping it instead
// would leave the skill with no live copy once it went).
func (e *Engine) onPin(skill string) []Decision {
	if skill == "" {
		return nil
	}
	var ds []Decision
	if p, ok := e.pins[skill]; !ok || !p {
		e.pins[skill] = true
		ds = append(ds, Decision{V: RecordVersion, Action: ActPin, Skill: skill})
	}
	for i, b := range e.bodies {
		if b.Skill == skill && b.Due != nil && b.Due.Reason.Code != rules.ArchiveSuperseded {
			ds = append(ds, e.undue(i, rules.Reason{Code: rules.KeepPinned, Text: "pinned with /skills-pin"}))
		}
	}
	last := -1
	for i, b := range e.bodies {
		if b.Skill == skill && !compacted(b) { // a compacted copy is gone: nothing to send again
			last = i
		}
	}
	if last >= 0 && e.bodies[last].Archived {
		e.setArchived(last, false)
		b := &e.bodies[last]
		b.Reason, b.Placeholder, b.Timing = nil, "", nil
		ds = append(ds, Decision{V: RecordVersion, Action: ActUnarchive, ID: b.ID, Skill: skill,
			Resources: resourceChanges(b.Resources, false),
			Reason:    &rules.Reason{Code: rules.KeepPinned, Text: "pinned with /skills-pin: the latest copy is restored"}})
	}
	return ds
}

// onUnpin removes a pin for this session (/skills-unpin), including one from
// the configuration or the entry skill's.
func (e *Engine) onUnpin(skill string) []Decision {
	if skill == "" {
		return nil
	}
	if p, ok := e.pins[skill]; ok && !p {
		return nil
	}
	e.pins[skill] = false
	return []Decision{{V: RecordVersion, Action: ActUnpin, Skill: skill}}
}

// onEnable switches archiving on or off for this session (/skills-on,
// /skills-off). Switching off archives nothing more; bodies already
// archived stay archived (the model loads them again when it needs them).
func (e *Engine) onEnable(on bool) []Decision {
	if e.enabled != nil && *e.enabled == on {
		return nil
	}
	e.enabled = &on
	v := on
	ds := []Decision{{V: RecordVersion, Action: ActEnabled, On: &v}}
	if !on {
		ds = append(ds, e.undueAll(rules.Reason{Code: rules.KeepDisabled, Text: "archiving is switched off"})...)
	}
	return ds
}

func (e *Engine) undueAll(r rules.Reason) []Decision {
	var ds []Decision
	for _, i := range e.dueBodies() {
		ds = append(ds, e.undue(i, r))
	}
	return ds
}

// setConfig replaces the configuration (a reload). It decides nothing at
// once; the next events use it.
func (e *Engine) setConfig(cfg rules.Config) []Decision {
	e.cfg = cfg.Clone()
	e.resolveEntry()
	e.parseModels()
	e.reindex() // whether superseded copies wait for archive may have changed
	return nil
}

// onCatalog replaces the installed skills (a re-index). It decides
// nothing at once.
func (e *Engine) onCatalog(cat Catalog) []Decision {
	e.setCatalog(cat)
	e.resolveEntry()
	return nil
}

// onForget drops body id from the engine's state, as if it had never been
// loaded: a load the host announced (a skill tool call, recorded when the
// tool ran so that what it decides applies from the next request) whose
// result never reached the context the host sends (the sidecar died or
// answered late, the result was lost). The files that went with it go
// to the skill's latest live copy, if any, else are left alone. The
// decisions the load took (an older copy superseded, a model tier) stay:
// the model loads the skill again when it needs it. An unknown id is
// ignored.
func (e *Engine) onForget(id string) []Decision {
	i, ok := e.byID[id]
	if !ok {
		return nil
	}
	skill := e.bodies[i].Skill
	e.forget(i)
	return []Decision{{V: RecordVersion, Action: ActForget, ID: id, Skill: skill}}
}

func (e *Engine) forget(i int) {
	b := e.bodies[i]
	e.bodies = slices.Delete(e.bodies, i, i+1)
	delete(e.byID, b.ID)
	for id, j := range e.byID {
		if j > i {
			e.byID[id] = j - 1
		}
	}
	e.reindex() // the per-skill lists hold indices
	for _, r := range b.Resources {
		delete(e.byRes, r.ID)
	}
	if j := e.liveIndex(b.Skill); j >= 0 {
		for _, r := range b.Resources {
			e.attach(j, r)
		}
	}
}

// Archived returns what the host must replace now: body id → placeholder.
func (e *Engine) Archived() map[string]string {
	m := map[string]string{}
	for _, b := range e.bodies {
		if b.Archived {
			m[b.ID] = b.Placeholder
			for _, r := range b.Resources {
				m[r.ID] = rules.ResourcePlaceholder(r.Skill, r.Path)
			}
		}
	}
	return m
}

// Known reports whether id names a body the engine holds, or a file tied
// to one: a load or file event for it changes nothing.
func (e *Engine) Known(id string) bool {
	_, ok := e.byID[id]
	return ok || e.byRes[id]
}

// Loaded returns the live (not archived) bodies, oldest load first.
func (e *Engine) Loaded() []Body {
	var out []Body
	for _, b := range e.bodies {
		if !b.Archived {
			out = append(out, cloneBody(b))
		}
	}
	return out
}

// LiveCopy returns the latest live (not archived) copy of skill's body, if
// any: the copy the model can see now.
func (e *Engine) LiveCopy(skill string) (Body, bool) {
	if i := e.liveIndex(skill); i >= 0 {
		return cloneBody(e.bodies[i]), true
	}
	return Body{}, false
}

// Bodies returns every loaded body, archived or not, in load order.
func (e *Engine) Bodies() []Body {
	out := make([]Body, len(e.bodies))
	for i, b := range e.bodies {
		out[i] = cloneBody(b)
	}
	return out
}

// State returns a copy of everything Restore rebuilds.
func (e *Engine) State() State {
	s := State{Bodies: e.Bodies(), Pins: maps.Clone(e.pins), Topic: slices.Clone(e.topic), Run: e.run, Models: e.ModelState()}
	s.Models.InRun = false
	if e.topic != nil && s.Topic == nil {
		s.Topic = []string{}
	}
	if e.enabled != nil {
		v := *e.enabled
		s.Enabled = &v
	}
	return s
}

func cloneBody(b Body) Body {
	if b.Reason != nil {
		r := *b.Reason
		b.Reason = &r
	}
	if b.Due != nil {
		d := *b.Due
		b.Due = &d
	}
	if b.Timing != nil {
		t := *b.Timing
		b.Timing = &t
	}
	b.Resources = slices.Clone(b.Resources)
	return b
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
