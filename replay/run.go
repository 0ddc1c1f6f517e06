package replay

import (
	"encoding/json"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/replay/pricing"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/session"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

type runOut struct {
	totals                                pricing.Totals
	reloads, orphans, comebacks, archives int
	notes                                 []DecisionNote
}

// run replays the branch under one strategy. A foresight strategy first
// searches the branch for its plan.
func (b *branch) run(spec StrategySpec, cal Calibration, branchIdx int, series *[]Point) runOut {
	if f := spec.search; f != nil {
		var scratch []Point
		limit := math.MaxInt // the largest request a plan may send, in tokens
		price := func(st Strategy) float64 {
			scratch = scratch[:0]
			t := b.runWith(spec, st, cal, branchIdx, &scratch, false).totals
			if t.PeakPromptTokens > limit {
				return math.Inf(1)
			}
			return t.Total
		}
		var allowed, start map[string]moment
		if f.relevance != nil {
			at := &archiveMoments{Strategy: f.relevance.New(), first: map[string]moment{}}
			scratch = scratch[:0]
			ro := b.runWith(*f.relevance, at, cal, branchIdx, &scratch, false)
			allowed = at.first
			if f.peakShare > 0 {
				// Archiving nothing is out of bounds: the search
				// starts from relevance-only's own plan.
				limit = int(float64(ro.totals.PeakPromptTokens) * f.peakShare)
				start = allowed
			}
		}
		return b.runWith(spec, f.strategy(f.search(price, allowed, start), nil), cal, branchIdx, series, false)
	}
	return b.runWith(spec, spec.New(), cal, branchIdx, series, b.r.opts.Decisions)
}

// decisionSource is a strategy that can report the engine's decisions
// (EngineStrategy).
type decisionSource interface {
	setLog(func([]lifecycle.Decision))
	Deferred() []rules.Timing
}

// deduper is a strategy that answers some loads with the "already
// loaded" note: such a load is no copy of the body.
type deduper interface{ Deduped(id string) bool }

// runWith replays the branch under st, a strategy of spec; with notes,
// it also keeps the engine's decisions (runOut.notes).
func (b *branch) runWith(spec StrategySpec, st Strategy, cal Calibration, branchIdx int, series *[]Point, notes bool) runOut {
	r := b.newRun(spec, st, cal, branchIdx, series, notes)
	if o, ok := st.(opener); ok {
		o.open(b.models(), cal.CharsPerToken)
	}
	if r.logging {
		r.src.setLog(r.note)
		defer r.src.setLog(nil)
	}
	cb := session.NewContextBuilder(b.br)
	for !cb.Done() {
		e := cb.Peek()
		m := e.Message
		if m != nil && e.Type == session.TypeMessage {
			switch m.Role {
			case session.RoleUser:
				r.user(e, m)
			case session.RoleAssistant:
				r.assistant(cb, e, m)
			}
		}
		cb.Step()
		if e.Type == session.TypeCompaction {
			r.compaction(cb, e)
		}
		if r.eo != nil {
			r.eo.ObserveEntry(e)
		}
		if m != nil && m.Role == session.RoleToolResult {
			r.toolResult(e)
		}
	}
	if r.inRun {
		st.Observe(ev(lifecycle.Event{Type: lifecycle.EvRunEnd}))
	}
	r.out.totals = r.meter.Totals
	return r.out
}

// loadMeta is what a request's description says of a load besides its
// position.
type loadMeta struct {
	skill string
	kind  lifecycle.LoadKind
	path  string
}

// walk is one replay of a branch under one strategy: the state the walk
// over the branch carries from entry to entry.
type walk struct {
	b       *branch
	spec    StrategySpec
	st      Strategy
	cal     Calibration
	eo      EntryObserver
	dd      deduper
	src     decisionSource
	logging bool // the engine's decisions are kept (runOut.notes)
	meter   *pricing.Meter
	bv      *bridgeView
	loads   map[*session.Entry][]load
	rb      *reqBuilder
	out     runOut
	series  *[]Point
	branch  int // index of the branch in the report

	inserts    map[*session.Entry][]*session.Message // reload pairs, before the entries they precede
	insVersion int
	last       map[string]load // skill -> latest load
	inRun      bool
	prevT      time.Time
	prevModel  string
	archived   map[string]bool // ids counted as archived
	meta       map[string]loadMeta
	skillOf    map[string]string // load id -> skill, for the decision notes
	nReload    int

	prevSegs, prevTail    []pricing.Segment
	prevLen, number       int
	compactions, prevSize int // prevSize: the previous request as sent, in the units the engine is told
	turn                  int // user turns so far
	keptIn                map[string]int
	recorded              int         // recorded requests priced so far
	reloadsBefore         int         // out.reloads at the previous point of the series
	prevUsage             rules.Usage // the usage replay priced for the previous request
	havePrevUsage         bool
	prompt                string
	wantComebacks         bool
	turnCalls             []*call // the recorded turn's tool calls
}

func (b *branch) newRun(spec StrategySpec, st Strategy, cal Calibration, branchIdx int, series *[]Point, notes bool) *walk {
	r := &walk{b: b, spec: spec, st: st, cal: cal, series: series, branch: branchIdx, loads: b.info.loads,
		meter:   pricing.NewMeter(pricing.Options{TTL: b.r.opts.TTL, CharsPerToken: cal.CharsPerToken, Prices: b.r.prices}),
		inserts: map[*session.Entry][]*session.Message{}, last: map[string]load{}, archived: map[string]bool{},
		skillOf: map[string]string{}, keptIn: map[string]int{}}
	r.eo, _ = st.(EntryObserver)
	r.meta = map[string]loadMeta{}
	r.dd, _ = st.(deduper)
	r.src, r.logging = st.(decisionSource)
	r.logging = r.logging && notes
	if spec.Bridge && b.bv != nil {
		r.bv, r.loads = b.bv, b.bv.loads
	}
	for _, ls := range r.loads {
		for _, l := range ls {
			r.meta[l.ID] = loadMeta{l.Skill, l.Kind, l.Path}
		}
	}
	for _, rs := range b.info.resources {
		for _, res := range rs {
			r.meta[res.ID] = loadMeta{res.Skill, host.KindResource, res.Path}
		}
	}
	for _, blocks := range b.regions {
		for _, blk := range blocks {
			r.meta[blk.id] = loadMeta{blk.skill, lifecycle.ByReattach, ""}
		}
	}
	header := pricing.Segment{Hash: 0x9e3779b97f4a7c15, Len: cal.HeaderChars}
	if r.bv != nil {
		header.Len = max(0, header.Len+r.bv.HeaderDelta)
	}
	r.rb = b.newBuilder(header, bridgeBase(header.Len, r.bv != nil || b.recordedWithBridge()), r.bv)
	return r
}

// note keeps the engine's decisions (notes): each applies to the next
// request.
func (r *walk) note(ds []lifecycle.Decision) {
	for _, d := range ds {
		if n, ok := noteOf(d); ok {
			n.Request, n.Turn = r.number+1, max(r.turn, 1)
			r.out.notes = append(r.out.notes, n)
		}
	}
}

// observeLoad tells the strategy of a body arriving.
func (r *walk) observeLoad(l load) {
	if r.logging {
		r.skillOf[l.ID] = l.Skill
	}
	if p, ok := r.last[l.Skill]; ok {
		if _, gone := r.st.Archived()[p.ID]; gone {
			r.out.reloads++
		}
	}
	var hash string
	if l.Body != "" {
		hash = lifecycle.HashBody(l.Body) // for the already-loaded dedupe
	}
	size := int64(l.Size)
	if l.Body != "" {
		size = int64(skills.UTF16Len(l.Body)) // as the bridge counts it
	}
	r.st.Observe(ev(lifecycle.Event{Type: lifecycle.EvLoad, Load: &lifecycle.Load{ID: l.ID, Skill: l.Skill, Size: size, Kind: l.Kind, Hash: hash}}))
	if r.dd != nil && r.dd.Deduped(l.ID) {
		return // answered "already loaded": not a copy of the body
	}
	r.last[l.Skill] = l
}

// user is a user message: the run before it ends, the prompt is judged,
// its /skill: loads arrive and a run starts.
func (r *walk) user(e *session.Entry, m *session.Message) {
	r.turn++
	if r.inRun {
		r.st.Observe(ev(lifecycle.Event{Type: lifecycle.EvRunEnd}))
	}
	r.st.Observe(ev(lifecycle.Event{Type: lifecycle.EvPrompt, Text: promptText(m)}))
	for _, l := range r.loads[e] {
		r.observeLoad(l)
	}
	r.st.Observe(ev(lifecycle.Event{Type: lifecycle.EvRunStart}))
	r.inRun = true
	r.prompt = promptText(m)
	r.turnCalls = r.b.turnCalls[e]
	r.wantComebacks = r.spec.Comebacks != nil && !r.b.r.opts.NoComebacks
}

// assistant is a response: the request that made it, after the reloads
// the agent makes first (comebacks, orphan uses).
func (r *walk) assistant(cb *session.ContextBuilder, e *session.Entry, m *session.Message) {
	b := r.b
	t := requestTime(e)
	// Comebacks: the turn's prompt asks for a skill whose body is
	// archived; the agent loads it again first, unless the session shows
	// it loading a skill of its choice there.
	for _, c := range b.info.calls[e] {
		if c.LoadOf != "" {
			r.wantComebacks = false
		}
	}
	if r.wantComebacks {
		arch := r.st.Archived()
		archived := func(skill string) bool {
			l, ok := r.last[skill]
			_, gone := arch[l.ID]
			return ok && gone
		}
		for _, skill := range r.spec.Comebacks(r.prompt, archived, r.helpersOnly(), b.r.opts.AllComebacks) {
			r.out.comebacks++
			r.reload(cb, e, t, m, r.last[skill])
		}
		r.wantComebacks = false
	}
	// Orphan uses: a tool call touching the folder of a skill whose body
	// is archived. The model reloads it first.
	for _, c := range b.info.calls[e] {
		arch := r.st.Archived()
		if len(arch) == 0 {
			break
		}
		for _, skill := range slices.Sorted(maps.Keys(r.last)) {
			l := r.last[skill]
			if _, gone := arch[l.ID]; !gone || c.LoadOf == skill {
				continue
			}
			if !touches(c, b.folders(skill)) && !r.doesStep(c, skill) {
				continue
			}
			r.out.orphans++
			r.reload(cb, e, t, m, l)
			break
		}
	}
	outTok := outputTokens(m, r.cal)
	if r.bv != nil {
		outTok = r.bv.outputTokens(e, r.cal)
	}
	r.price(cb, e, t, m.Provider, m.Model, outTok)
	r.recorded++
}

// helpersOnly reports whether the recorded turn's work is helpers' steps
// alone: it made tool calls, and each is the step of a helper of the pack
// (doesStep), such as a turn that only commits. Its prompt may name the
// work the commit is about ("Commit the index migration."), but the
// session shows the agent doing none of that work in the turn.
func (r *walk) helpersOnly() bool {
	p := r.b.r.opts.Pack
	if len(r.turnCalls) == 0 || p == nil || r.spec.Helper == nil {
		return false
	}
	for _, c := range r.turnCalls {
		step := false
		for name := range p.Names {
			if r.doesStep(c, name) {
				step = true
				break
			}
		}
		if !step {
			return false
		}
	}
	return true
}

// doesStep reports whether tool call c is the step helper skill does: a
// shell command that names it by a word of the helper's name ("git
// commit" for format-commit-message). A helper is named after its step,
// and the agent loads it to take that step.
func (r *walk) doesStep(c *call, skill string) bool {
	if c.Name != "bash" || r.spec.Helper == nil || !r.spec.Helper(skill) {
		return false
	}
	var a struct {
		Command string `json:"command"`
	}
	if json.Unmarshal([]byte(c.Args), &a) != nil || a.Command == "" {
		return false
	}
	name := relevance.Terms(skill)
	return slices.ContainsFunc(relevance.Terms(a.Command), func(t string) bool { return slices.Contains(name, t) })
}

// toolResult is a tool result: the bodies and files it brings.
func (r *walk) toolResult(e *session.Entry) {
	for _, l := range r.loads[e] {
		r.observeLoad(l)
	}
	for _, res := range r.b.info.resources[e] {
		r.st.Observe(ev(lifecycle.Event{Type: lifecycle.EvResource, Resource: &lifecycle.Resource{ID: res.ID, Skill: res.Skill, Path: res.Path, Size: int64(res.Size)}}))
	}
}

// reload adds the request in which the model loads l's skill again
// before entry e, and the tool call and result it makes.
func (r *walk) reload(cb *session.ContextBuilder, e *session.Entry, t time.Time, m *session.Message, l load) {
	r.nReload++
	pair := reloadPair(l, r.nReload)
	r.price(cb, e, t, m.Provider, m.Model, int(math.Ceil(float64(outputChars(pair[0]))/r.cal.CharsPerToken)))
	r.inserts[e] = append(r.inserts[e], pair...)
	r.insVersion++
	rl := l
	rl.ID = pair[0].Blocks[0].ID
	r.b.loadIDs[rl.ID] = true
	r.meta[rl.ID] = loadMeta{rl.Skill, rl.Kind, rl.Path}
	r.observeLoad(rl)
}

// price tells the strategy of the request about to be sent before entry
// e, and prices it as the strategy has it sent.
func (r *walk) price(cb *session.ContextBuilder, e *session.Entry, t time.Time, provider, model string, outTok int) {
	b, st, spec, rb := r.b, r.st, r.spec, r.rb
	key := provider + "/" + model
	info := requestInfo{Number: r.number + 1, ModelChanged: r.prevModel != "" && key != r.prevModel,
		Compacted: cb.Compactions != r.compactions}
	// The engine is told what the bridge tells it: the time since the
	// previous request and a model change, and a cold cache only after
	// a compaction. A pause past the lifetime is the engine's to weigh
	// (cacheAware.coldConfidence), as live; the pricing applies the
	// lifetime whatever the engine believes.
	info.Cold = info.Compacted
	if !r.prevT.IsZero() && !t.IsZero() {
		info.Since = t.Sub(r.prevT)
	}
	// The request as it stands before the engine decides: its size,
	// its bodies, and where it first differs from the previous one.
	arch := st.Archived()
	segs, tail := rb.request(cb, arch, r.notes(), r.inserts, r.insVersion, e)
	info.Total = pricing.Length(segs) + pricing.Length(tail)
	info.Bodies = rb.positions()
	info.Previous = r.prevSize
	if spec.Bridge {
		// The bridge measures its own characters of the context
		// (bridgeSize), not the request's JSON.
		info.Total, info.Bodies = rb.btotal, rb.bridgePositions()
	}
	if r.prevSegs != nil && !spec.Bridge {
		if lcp := pricing.CommonPrefixSplit(r.prevSegs, r.prevTail, segs, tail); lcp < r.prevLen-b.trail.Len {
			info.ChangedFrom = lcp
		}
	}
	// The engine's session knows the model's cache prices from its
	// registry (the branch's models at the table's prices, branch.models)
	// and the model from Model, as the bridge tells the sidecar, and the
	// price of a character of input from the calibration (its reasons
	// state costs in dollars).
	req := info.request()
	// The usage the provider reported for the previous request is
	// replay's own pricing of it: what a provider with this lifetime
	// would have said.
	var usage *host.UsageParams
	if r.havePrevUsage {
		u := r.prevUsage
		req.PreviousUsage = &u
		usage = &host.UsageParams{CacheRead: float64(u.CacheRead), CacheWrite: float64(u.CacheWrite)}
	}
	st.Observe(Event{Event: lifecycle.Event{Type: lifecycle.EvRequest, Request: req},
		Host: r.hostRequest(info, usage), Model: host.ModelRef{Provider: provider, ID: model}})
	if r.logging {
		for _, t := range r.src.Deferred() {
			if tn, ok := r.keptIn[t.ID]; ok && tn == r.turn {
				continue
			}
			r.keptIn[t.ID] = r.turn
			r.out.notes = append(r.out.notes, DecisionNote{Request: r.number + 1, Turn: max(r.turn, 1), Action: "kept",
				Skill: r.skillOf[t.ID], ID: t.ID, Code: string(t.Code), Text: t.Text})
		}
	}
	if next := st.Archived(); !sameArch(arch, next) {
		arch = next
		segs, tail = rb.request(cb, arch, r.notes(), r.inserts, r.insVersion, e)
	}
	archivedBefore := r.out.archives
	for id := range arch {
		if !r.archived[id] && !b.resIDs[id] && (r.dd == nil || !r.dd.Deduped(id)) {
			r.archived[id] = true
			r.out.archives++
		}
	}
	c := r.meter.Price(pricing.Request{Time: t, Provider: provider, Model: model, Segments: segs, Tail: tail, OutputTokens: outTok})
	if b.r.opts.Series {
		*r.series = append(*r.series, Point{Branch: r.branch, Seq: b.seq0 + r.recorded, Tokens: c.PromptTokens, Time: t,
			CostUSD: c.Total, Archived: r.out.archives - archivedBefore, Reloaded: r.out.reloads - r.reloadsBefore})
		r.reloadsBefore = r.out.reloads
	}
	r.prevT, r.prevModel = t, key
	r.prevUsage, r.havePrevUsage = rules.Usage{CacheRead: int64(c.CacheReadTokens), CacheWrite: int64(c.CacheWriteTokens)}, true
	r.prevSegs, r.prevTail, r.prevLen = segs, tail, c.PromptChars
	r.prevSize = c.PromptChars // Length(segs) + Length(tail)
	if spec.Bridge {
		r.prevSize = rb.btotal
	}
	r.number, r.compactions = info.Number, cb.Compactions
}

// compactor is a strategy whose session takes compactions and answers
// with the region to send after the summary (EngineStrategy).
type compactor interface {
	Compact(p host.SessionCompactParams) host.SessionCompactResult
}

// compaction tells the strategy of compaction e, just applied: the loads
// still in the context are the visible ones, and the region its session
// answers with is sent right after the summary, as the bridge sends it
// (before the next entry). A session recorded with the bridge holds its
// own region there already.
func (r *walk) compaction(cb *session.ContextBuilder, e *session.Entry) {
	c, ok := r.st.(compactor)
	if !ok {
		return
	}
	res := c.Compact(host.SessionCompactParams{ID: e.ID, Visible: r.visible(cb)})
	next := cb.Peek()
	if res.Text == "" || next == nil || (next.Type == session.TypeCustomMessage && next.CustomType == host.ReattachType) {
		return
	}
	m := &session.Message{Role: session.RoleUser, Blocks: []session.Block{{Type: "text", Text: res.Text}}}
	blocks := regionBlocks(res.Text, e.ID)
	r.b.regions[m] = blocks
	for _, blk := range blocks {
		r.meta[blk.id] = loadMeta{blk.skill, lifecycle.ByReattach, ""}
		// The skill's latest copy now (the agent has it: no comeback).
		r.last[blk.skill] = load{ID: blk.id, Skill: blk.skill, Kind: lifecycle.ByReattach, Size: skills.UTF16Len(blk.text), Body: blk.text}
	}
	r.inserts[next] = append(r.inserts[next], m)
	r.insVersion++
}

// visible lists the loads in the context after a compaction, as the
// bridge lists them: the results, /skill: blocks and re-attached bodies
// of the messages kept, and of the messages replay inserted before them.
func (r *walk) visible(cb *session.ContextBuilder) []string {
	var ids []string
	add := func(key any, m *session.Message, e *session.Entry) {
		if blocks := r.b.regions[key]; len(blocks) > 0 {
			for _, blk := range blocks {
				ids = append(ids, blk.id)
			}
			return
		}
		switch {
		case m.Role == session.RoleToolResult:
			ids = append(ids, r.b.info.idOf(e, m))
		case e != nil:
			for _, l := range r.loads[e] {
				ids = append(ids, l.ID)
			}
		}
	}
	for _, cm := range cb.Messages() {
		for _, m := range r.inserts[cm.Entry] {
			add(m, m, nil)
		}
		if cm.Kind != session.FromCompaction {
			add(cm.Entry, cm.Message, cm.Entry)
		}
	}
	return ids
}

// ev wraps an engine event for a strategy.
func ev(e lifecycle.Event) Event { return Event{Event: e} }

// opener is a strategy that starts a host session with the branch's
// models before its first event (EngineStrategy).
type opener interface {
	open(models []host.HostModel, charsPerToken float64)
}

// noter is a strategy that answers loads with notes that are the text
// of their results, not replacements (EngineStrategy).
type noter interface{ Notes() map[string]string }

// notes are the strategy's notes, if any.
func (r *walk) notes() map[string]string {
	if n, ok := r.st.(noter); ok {
		return n.Notes()
	}
	return nil
}

// hostRequest is the request as the bridge describes it to the sidecar
// (before_request): the bodies and files it carries, in order, with
// their offsets and sizes without replacements (rb.raw), its timing and
// the usage of the previous request. Answers of "already loaded" are not
// loads.
func (r *walk) hostRequest(info requestInfo, usage *host.UsageParams) *host.BeforeRequestParams {
	raw := r.rb.raw
	p := &host.BeforeRequestParams{Loads: make([]host.LoadRef, 0, len(raw.bodies)), Total: int64(raw.total),
		PreviousSize: int64(raw.prev), SincePreviousMs: info.Since.Milliseconds(), CacheCold: info.Cold,
		ModelChanged: info.ModelChanged, PreviousUsage: usage}
	for _, b := range raw.bodies {
		m, ok := r.meta[b.ID]
		if !ok || (r.dd != nil && r.dd.Deduped(b.ID)) {
			continue
		}
		p.Loads = append(p.Loads, host.LoadRef{ID: b.ID, Skill: m.skill, Kind: m.kind, Size: int64(b.Size), Path: m.path, Offset: int64(b.Offset)})
	}
	return p
}

// noteOf is the DecisionNote of an engine decision worth reading in a
// replay: not the bookkeeping of loads, runs, topics and model state.
func noteOf(d lifecycle.Decision) (DecisionNote, bool) {
	n := DecisionNote{Action: string(d.Action), Skill: d.Skill, ID: d.ID}
	switch d.Action {
	case lifecycle.ActLoad, lifecycle.ActResource, lifecycle.ActRun, lifecycle.ActTopic, lifecycle.ActModelState:
		return n, false
	case lifecycle.ActCacheLifetime:
		if l := d.CacheLifetime; l != nil {
			n.Text = l.Describe()
			if n.Text == "" && l.Reports {
				n.Text = "the provider reports cache reads; nothing learned of the lifetime yet"
			}
		}
	case lifecycle.ActModel, lifecycle.ActModelRestore, lifecycle.ActModelReport, lifecycle.ActModelNote:
		if d.Model != nil {
			n.Text = d.Model.Message
		}
	case lifecycle.ActEnabled:
		n.Text = "archiving switched off"
		if d.On != nil && *d.On {
			n.Text = "archiving switched on"
		}
	}
	if d.Reason != nil {
		n.Code, n.Text = string(d.Reason.Code), d.Reason.Text
	}
	if t := d.Timing; t != nil {
		n.Code = string(t.Code)
		if n.Text != "" && t.Text != "" {
			n.Text += "; "
		}
		n.Text += t.Text
	}
	if k := len(d.Resources); k > 0 {
		n.Text += " (with " + lifecycle.FilesOfFolder(k) + ")"
	}
	return n, true
}

// folders lists where a skill's files live: the folders its loads named,
// and <dir>/<name> for each pack or orphan folder.
func (b *branch) folders(skill string) []string {
	fs := append([]string(nil), b.info.folders[skill]...)
	if p := b.r.opts.Pack; p != nil {
		for _, d := range p.Dirs {
			fs = append(fs, path.Join(d, skill))
		}
	}
	return fs
}

// reloadIDPrefix starts the tool call id of every reload replay adds.
const reloadIDPrefix = "skill-lifecycle-reload-"

// isReload reports whether a load's id is one of replay's reloads.
func isReload(id string) bool { return strings.HasPrefix(id, reloadIDPrefix) }

// reloadPair is the tool call and result a model following the protocol
// makes to load an archived skill again: the same way it was loaded.
func reloadPair(l load, n int) []*session.Message {
	id := reloadIDPrefix + strconv.Itoa(n)
	name, args := "skill", map[string]string{"name": l.Skill}
	if l.Kind == lifecycle.ByRead && l.Path != "" {
		name, args = "read", map[string]string{"path": l.Path}
	}
	raw, _ := json.Marshal(args)
	call := &session.Message{Role: session.RoleAssistant, StopReason: "toolUse",
		Blocks: []session.Block{{Type: "toolCall", ID: id, Name: name, Arguments: string(raw)}}}
	result := &session.Message{Role: session.RoleToolResult, ToolCallID: id, ToolName: name,
		Blocks: []session.Block{{Type: "text", Text: l.Body}}}
	return []*session.Message{call, result}
}
