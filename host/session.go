package host

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/guard"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/models"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Sink receives what a session sends the host besides its answers, in
// order, before the answer of the event that caused it.
type Sink interface {
	// Record is a decision to append to the session (host/appendEntry).
	Record(d lifecycle.Decision)
	// Notify is a line for the user, as terminal text (host/notify).
	Notify(level, message string)
	// SetModel asks the host to switch the model (host/setModel).
	SetModel(p SetModelParams)
	// Line is a line for the session's transcript (host/line): an
	// archive, a restore, a comeback or a model change (lines.go).
	Line(l LineParams)
}

// Session is the host model of one session: the world, the engine, and
// what the host has shown of the context (the loads pending since the
// skill tool ran, the bodies the last request carried). The sidecar and
// replay drive it alike; each method is one host event. It is not safe
// for concurrent use.
type Session struct {
	src       Source
	world     *World
	eng       *lifecycle.Engine
	sink      Sink
	models    []HostModel
	current   *ModelRef
	thinking  string
	retention string
	cpt       float64          // Options.CharsPerToken
	window    int              // the context window the listing is sized for (listing.go)
	watch     *skillWatch      // live re-index (reindex.go); nil: none
	watchc    chan *skillWatch // the watch while its first snapshot is taken
	reload    *worldLoad       // a world being loaded, nil: none (reindex.go)
	hints     bool             // Options.Hints
	// loadWorld loads the world after a change (nil: Load).
	loadWorld func(Source) *World
	// sectionDue: a skills/update answered before its world was read;
	// the user_prompt that finds it read brings the new listing.
	sectionDue bool
	// pending holds the loads recorded at skill/load (or taken back from
	// the records at session/restore) that no before_request has listed
	// yet: one the next request does not carry never reached the context
	// and is forgotten there.
	pending map[string]bool
	// carried holds the bodies the last request carried whole: only
	// those count as visible for "already loaded" (gate.go). nil before
	// the first request and after a restore.
	carried     map[string]bool
	view        lineView  // what the lines and the status have shown (lines.go)
	stats       StatsFunc // Options.Stats
	sessionFile string    // the host's session file, as the last command gave it
	// orphaned holds the archived copies whose skill's files the agent
	// used and was told of (toolresult.go), from the records too.
	orphaned map[string]bool
	// ctx is the context model of a host that sends its messages; nil
	// until the first and after a restore (the host sends all again).
	ctx *contextModel
	// arch is the engine's archived set, asked again only after an event
	// or a decision that can change it (archDirty).
	arch      map[string]string
	archDirty bool
	// archiveInto, when set, is the slice beforeRequest answers Archive
	// in (the context model's spare: no allocation a request).
	archiveInto []Replacement
	// phSizes are the last request's placeholder sizes, a load each
	// (placeholderSizes), phLen the size of each placeholder text.
	phSizes []int64
	phLen   map[string]int64
	// flat is what the last request kept of its loads for the next
	// (flat.go); keep is, for the next beforeRequest, how many of its
	// first loads the previous request carried as they are (the context
	// model's word), fromContext says the context model asks, and
	// archiveSame that the answer's Archive is the previous one's. epoch
	// counts the events after which flat no longer holds; noFlat (tests)
	// always takes the full walk.
	flat        *kept
	keep        int
	fromContext bool
	archiveSame bool
	epoch       int
	noFlat      bool
}

// Options of a session.
type Options struct {
	// Watch checks the skill files before each user prompt and re-reads
	// them when they changed (the sidecar).
	Watch bool
	// Hints answers user_prompt with the hint (hint.go) when the
	// configuration has it on (the sidecar; replay models no hint).
	Hints bool
	// CharsPerToken, when above 0, is how many characters make a token
	// (replay's calibration): the engine's reasons then state costs in
	// dollars, at the current model's input price. 0: in characters.
	CharsPerToken float64
	// Stats answers /skills-stats (the sidecar sets it to replay's
	// code); nil: the command says it is unavailable.
	Stats StatsFunc
}

// StatsFunc re-costs the session recorded in file with and without the
// extension, as `skill-lifecycle replay --recorded` does, with the skills
// of the folders given as its pack and cache lifetime ttl (0: replay's
// default); it returns the text /skills-stats shows.
type StatsFunc func(file string, folders []string, ttl time.Duration) (string, error)

// Open starts the session a host's initialize describes: it loads the
// world (Load) and tells the engine the host's current model.
func Open(p InitializeParams, sink Sink, o Options) (*Session, InitializeResult, error) {
	if p.Cwd == "" {
		return nil, InitializeResult{}, missing("cwd")
	}
	src := Source{Skills: p.Skills, Cwd: p.Cwd, AgentDir: p.AgentDir, Trusted: p.Trusted}
	if !warmedAhead() {
		warmHeap(len(p.Skills))
	}
	defer startupGC(len(p.Skills))()
	idx := newIndex(src.Skills)
	started := time.Now()
	var stated func(func(string) (skills.Stamp, bool))
	var known func(string) (skills.Stamp, bool)
	if o.Watch {
		stated = func(k func(string) (skills.Stamp, bool)) { known = k }
	}
	s := New(load(src, idx, stated), p, sink, o)
	s.src = src
	s.window = contextWindow(p.Models, p.CurrentModel)
	diags := append([]string{}, s.world.Diagnostics...)
	for _, d := range s.eng.ModelDiagnostics() {
		diags = append(diags, d.String())
	}
	res := InitializeResult{
		SystemPromptSection: s.world.listing(s.window).Section,
		Tool:                toolSpec(),
		Commands:            commandSpecs(),
		Diagnostics:         terminalLines(diags),
		ArchiveVia:          s.world.Config.ArchiveVia,
	}
	// What is made beside the session, once the answer is ready, waits
	// for the relevance index, which the first prompt waits for (at
	// 100,000 skills ~2 s of CPU after the answer): the start-up cache,
	// the body finder, the watch's first snapshot.
	s.world.saveCache()
	ready := s.world.Catalog.Ready()
	go func(w *World) {
		<-ready
		w.bodies() // ready for the first tool result
	}(s.world)
	if o.Watch {
		// The watch's first snapshot is taken after the answer, not
		// before it (at 100,000 skills its walk is 0.7 s of CPU), from
		// the stamps the reading saw; what changed since the reading
		// started is left for its first check.
		c := make(chan *skillWatch, 1)
		go func() {
			<-ready
			c <- newSkillWatch(src, idx.list, known, started)
		}()
		s.watchc = c
	}
	return s, res, nil
}

// New starts a session over world w, with the models, the current model
// and the retention tier p gives (its skills and folders are w's).
func New(w *World, p InitializeParams, sink Sink, o Options) *Session {
	s := &Session{world: w, sink: sink, models: p.Models, current: p.CurrentModel, thinking: p.ThinkingLevel, retention: p.CacheRetention, cpt: o.CharsPerToken, stats: o.Stats, hints: o.Hints}
	s.eng = lifecycle.New(w.Catalog, w.Config)
	reg := registryOf(p.Models)
	s.apply(lifecycle.Event{Type: lifecycle.EvWorld, Registry: &reg})
	s.hostModel()
	return s
}

// skillWatch is the session's watch (nil: none), once its first
// snapshot is taken.
func (s *Session) skillWatch() *skillWatch {
	if s.watchc != nil {
		s.watch, s.watchc = <-s.watchc, nil
	}
	return s.watch
}

// readyWatch is skillWatch, or nil when the first snapshot is not taken
// within watchWait (a large catalogue, a prompt soon after initialize).
func (s *Session) readyWatch() *skillWatch {
	if s.watchc != nil {
		w, ok := within(s.watchc, watchWait)
		if !ok {
			return nil
		}
		s.watch, s.watchc = w, nil
	}
	return s.watch
}

// Engine is the session's engine, for queries.
func (s *Session) Engine() *lifecycle.Engine { return s.eng }

// World is the session's world.
func (s *Session) World() *World { return s.world }

// apply hands ev to the engine, the engine's one door, and sends what it
// decided to the host.
func (s *Session) apply(ev lifecycle.Event) []lifecycle.Decision {
	// Every event is built here with the field its type reads: Apply
	// has no error to give.
	ds, _ := s.eng.Apply(ev)
	switch ev.Type {
	case lifecycle.EvRestore, lifecycle.EvRecords, lifecycle.EvWorld, lifecycle.EvCompact:
		s.archDirty = true
		s.epoch++
	}
	s.emit(ds)
	return ds
}

// archived is the engine's archived set (Engine.Archived), kept between
// the events that cannot change it. The caller must not change it.
func (s *Session) archived() map[string]string {
	if s.arch == nil || s.archDirty {
		s.arch, s.archDirty = s.eng.ArchivedView(), false
	}
	return s.arch
}

// touched notes for the kept loads (flat.go) the ids whose archived
// state d changes; a forget moves files it does not name.
func (s *Session) touched(d lifecycle.Decision) {
	if s.flat == nil {
		return
	}
	if d.Action == lifecycle.ActForget {
		s.epoch++
		return
	}
	s.flat.touch(d.ID)
	for _, r := range d.Resources {
		s.flat.touch(r.ID)
	}
}

// emit sends each decision to the host as a session entry, and carries
// out the model decisions: a switch or restore becomes host/setModel (and
// a line for the user), a model problem a warning.
func (s *Session) emit(ds []lifecycle.Decision) {
	for _, d := range ds {
		if d.ChangesArchived() {
			s.archDirty = true
			s.touched(d)
		}
		s.sink.Record(d)
		if d.Model == nil {
			continue
		}
		switch d.Action {
		case lifecycle.ActModel, lifecycle.ActModelRestore:
			if d.Model.Provider == "" || d.Model.Model == "" {
				continue
			}
			s.sink.SetModel(SetModelParams{Provider: d.Model.Provider, ID: d.Model.Model, ThinkingLevel: string(d.Model.Thinking)})
			if d.Model.Message != "" {
				s.modelLine(d.Model.Message)
			}
		case lifecycle.ActModelReport:
			s.tell("warning", "skill-lifecycle: "+d.Model.Message)
		}
	}
}

// tell sends the user a one-line message, with the control characters
// of any skill text in it made visible (skills.TerminalText).
func (s *Session) tell(level, msg string) { s.sink.Notify(level, skills.TerminalText(msg)) }

// hostModel tells the engine the host's current model (at start and
// after a restore), without recording it (hostModelDecisions).
func (s *Session) hostModel() {
	sel, ok := selection(s.current, s.thinking)
	if !ok {
		return
	}
	ds, _ := s.eng.Apply(lifecycle.Event{Type: lifecycle.EvModelSelected, Selection: &sel})
	s.archDirty = true // not every decision of ds is emitted
	s.epoch++
	s.emit(hostModelDecisions(ds))
}

// SkillsUpdate takes the host's new skill list (a reload): the world is
// loaded again whole, the engine keeps its bodies. A load that takes
// longer than updateWait goes on beside the session (reindex.go): the
// answer is then the listing in use, marked pending, and the first
// user_prompt after the load brings the new one.
func (s *Session) SkillsUpdate(p SkillsUpdateParams) (SkillsUpdateResult, error) {
	s.src.Skills = p.Skills
	s.startLoad(loadUpdate, skills.FileChanges{})
	_, ok := s.takeLoad(updateWait)
	s.sectionDue = !ok
	res := SkillsUpdateResult{SystemPromptSection: s.world.listing(s.window).Section, Pending: !ok}
	if ok {
		res.Diagnostics = terminalLines(s.world.Diagnostics)
	}
	return res, nil
}

// SkillLoad answers the skill tool. Under the "already-loaded" dedupe, a
// body the model sees whole is answered with a note (gate.go). With a
// callId, a body delivered is a load from now on (pending until the next
// request lists it).
func (s *Session) SkillLoad(p SkillLoadParams) (SkillLoadResult, error) {
	if p.Name == "" {
		return SkillLoadResult{}, missing("name")
	}
	res := s.world.Skills.loadSkill(p.Name)
	if !res.Found {
		if res.Name == "" {
			res.Text = s.world.unknown(strings.TrimSpace(p.Name))
		}
		return res, nil
	}
	if text, ok := s.ToolLoad(p.CallID, res.Name, res.Hash, utf16Len(res.Text)); ok {
		res.Text, res.AlreadyLoaded, res.Files = text, true, nil
	}
	return res, nil
}

// ToolLoad is a skill tool load of skill's body with content hash hash
// and size (UTF-16 units, as the host counts them), under id (the load
// id of its result; "" records nothing): the "already loaded" gate, then
// the load. It returns the note that answers the call instead of the
// body, with ok, when the identical body is visible.
func (s *Session) ToolLoad(id, skill, hash string, size int64) (note string, ok bool) {
	if s.world.Config.Dedupe == rules.DedupeAlreadyLoaded {
		if note, ok := s.alreadyLoaded(skill, hash); ok {
			return note, true
		}
	}
	if id == "" {
		return "", false
	}
	// The body is in the context from the tool result on: the engine
	// learns of it now, so that what the load decides (archiving others
	// mid-run, a model tier) applies from the next request. It stays
	// pending until a request carries it.
	ds := s.apply(lifecycle.Event{Type: lifecycle.EvLoad, Load: &lifecycle.Load{ID: id, Skill: skill, Size: size, Kind: lifecycle.ByTool, Hash: hash}})
	for _, d := range ds {
		if d.Action == lifecycle.ActLoad && d.ID == id {
			if s.pending == nil {
				s.pending = map[string]bool{}
			}
			s.pending[id] = true
		}
	}
	return "", false
}

// ToolCall says whether a host tool call is blocked (package guard).
func (s *Session) ToolCall(p ToolCallParams) (ToolCallResult, error) {
	if p.ToolName == "" {
		return ToolCallResult{}, missing("toolName")
	}
	if !s.world.Config.BlockDirectSkillReads {
		return ToolCallResult{}, nil
	}
	cwd := p.Cwd
	if cwd == "" {
		cwd = s.src.Cwd
	}
	v := guard.Check(p.ToolName, p.Input, cwd, s.world.Skills.SkillFile)
	if !v.Block {
		v = guard.LeavesFolder(p.ToolName, p.Input, cwd, s.world.Skills.folders())
	}
	return ToolCallResult{Block: v.Block, Reason: v.Reason, Skill: v.Skill}, nil
}

// UserPrompt judges the live bodies against the user's prompt, after the
// re-index of changed skill files (reindex.go), and answers the hint
// (hint.go).
func (s *Session) UserPrompt(p UserPromptParams) (UserPromptResult, error) {
	s.reindex(time.Now())
	s.apply(lifecycle.Event{Type: lifecycle.EvPrompt, Text: p.Text})
	res := s.hint(p.Text)
	if s.sectionDue && s.reload == nil {
		res.SystemPromptSection = s.world.listing(s.window).Section
		s.sectionDue = false
	}
	return res, nil
}

// RunStart marks the start of an agent run.
func (s *Session) RunStart() { s.apply(lifecycle.Event{Type: lifecycle.EvRunStart}) }

// RunEnd marks the end of an agent run.
func (s *Session) RunEnd() { s.apply(lifecycle.Event{Type: lifecycle.EvRunEnd}) }

// ModelChanged takes the model the user or the host selected.
func (s *Session) ModelChanged(p ModelChangedParams) error {
	if p.Model.Provider == "" || p.Model.ID == "" {
		return missing("model.provider and model.id")
	}
	s.current = &ModelRef{Provider: p.Model.Provider, ID: p.Model.ID}
	s.thinking = p.ThinkingLevel
	sel, _ := selection(s.current, p.ThinkingLevel)
	s.apply(lifecycle.Event{Type: lifecycle.EvModelSelected, Selection: &sel})
	return nil
}

// ModelSwitchFailed takes a switch the host could not make.
func (s *Session) ModelSwitchFailed(p ModelSwitchFailedParams) error {
	if p.Provider == "" || p.ID == "" {
		return missing("provider and id")
	}
	s.apply(lifecycle.Event{Type: lifecycle.EvModelFailed, ModelRef: &models.ModelRef{Provider: p.Provider, ID: p.ID}, Text: p.Reason})
	return nil
}

// Restore rebuilds the engine's state from the session's records (a
// resume, a fork, a move in the tree). The restored skill tool loads are
// pending, and nothing counts as visible, until the next request says
// what the context holds.
func (s *Session) Restore(p SessionRestoreParams) (SessionRestoreResult, error) {
	recs, orig, probs := DecodeRecords(p.Records)
	s.apply(lifecycle.Event{Type: lifecycle.EvRestore, Records: recs, RequestCount: p.RequestCount})
	for _, pr := range s.eng.RestoreProblems() {
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
	s.pending, s.carried, s.orphaned, s.ctx = nil, nil, orphansOf(recs), nil
	s.view.known, s.view.archived = false, nil
	for _, b := range s.eng.Loaded() {
		if b.Kind == lifecycle.ByTool {
			if s.pending == nil {
				s.pending = map[string]bool{}
			}
			s.pending[b.ID] = true
		}
	}
	n := len(s.eng.Archived())
	// The host restored its own model from the session: tell the engine
	// which one is in use now.
	s.hostModel()
	return SessionRestoreResult{Restored: len(p.Records) - skipped, Problems: probs, Archived: n}, nil
}

// DecodeRecords reads the data of the session's entries of RecordType:
// the records, the index in raw of each, and a problem for each that is
// not a decision.
func DecodeRecords(raw []json.RawMessage) (recs []lifecycle.Record, orig []int, probs []lifecycle.Problem) {
	recs = make([]lifecycle.Record, 0, len(raw))
	orig = make([]int, 0, len(raw))
	for i, r := range raw {
		d, err := DecodeRecord(r)
		if err != nil {
			probs = append(probs, lifecycle.Problem{Index: i, Message: fmt.Sprintf("record %d is not a decision: %v", i, err)})
			continue
		}
		recs = append(recs, d)
		orig = append(orig, i)
	}
	return recs, orig, probs
}

// DecodeRecord reads the data of one session entry of RecordType.
func DecodeRecord(data []byte) (lifecycle.Record, error) {
	var d lifecycle.Record
	err := json.Unmarshal(data, &d)
	return d, err
}

// RecordType is the customType of the session entries that hold the
// records (host/appendEntry), which session/restore takes back.
const RecordType = "skill-lifecycle"

// ParamError says what is wrong with a call's params: Field names the
// field ("loads[2].kind"), Problem what is wrong with it.
type ParamError struct{ Field, Problem string }

func (e *ParamError) Error() string { return e.Field + ": " + e.Problem }

func missing(field string) error { return &ParamError{field, "missing (required)"} }

// terminalLines is each of lines (diagnostics, one a line) made visible
// for the terminal (skills.TerminalText).
func terminalLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = skills.TerminalText(l)
	}
	return out
}
