package replay

import (
	"maps"
	"slices"

	"github.com/skill-lifecycle/skill-lifecycle/host"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/relevance"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/session"
)

// Strategy decides which bodies are archived. Replay tells it what
// happens in the session (user prompts, skill loads, runs starting and
// ending, requests about to be sent) and asks, before each request, which
// bodies are archived: load id -> the placeholder text that replaces the
// body in the context.
type Strategy interface {
	Observe(ev Event)
	Archived() map[string]string
}

// Event is one thing replay tells a strategy: an engine event, and for a
// request also what the bridge would tell the sidecar of it.
type Event struct {
	lifecycle.Event
	// Host is the request as the bridge describes it in before_request
	// (request events): its loads in context order, their offsets and
	// sizes without replacements, its timing and usage.
	Host *host.BeforeRequestParams
	// Model is the model the request goes to (request events).
	Model host.ModelRef
}

// StrategySpec names a strategy and makes a fresh one for each session
// branch. Bridge says the strategy stands for the skill-lifecycle bridge:
// on a session recorded without the extension, its requests are rebuilt as
// the bridge would have sent them (its listing, its skill tool, loads
// through the tool; bridge.go).
type StrategySpec struct {
	Name   string
	New    func() Strategy
	Bridge bool
	// Comebacks, when set, is the comeback model (comebackModel): the
	// archived skills the agent loads again at the first request of a
	// turn with this prompt (see comebacks in replay.go). archived says
	// which skills' bodies are archived; helpersOnly, that the recorded
	// turn's tool calls are all helpers' steps; all brings back every one
	// the prompt asks for (Options.AllComebacks).
	Comebacks func(prompt string, archived func(skill string) bool, helpersOnly, all bool) []string
	// Helper, when set, says which skills are helpers (a step other
	// skills call): a shell command taking that step uses the helper
	// (walk.doesStep).
	Helper func(skill string) bool
	// search, when set, makes this a foresight strategy (ForesightSpec).
	search *foresight
}

// KeepAllName is the baseline strategy's name.
const KeepAllName = "keep-all"

// KeepAll archives nothing: the 100% baseline.
type KeepAll struct{}

// Observe ignores the event.
func (KeepAll) Observe(Event) {}

// Archived is always empty.
func (KeepAll) Archived() map[string]string { return nil }

// KeepAllSpec is the baseline strategy.
func KeepAllSpec() StrategySpec {
	return StrategySpec{Name: KeepAllName, New: func() Strategy { return KeepAll{} }}
}

// EngineStrategy drives a host session over a world, exactly as the
// sidecar does: a skill tool load goes through the "already loaded" gate
// when it arrives (host.Session.ToolLoad), every request is described as
// the bridge describes it (host.Session.BeforeRequest: the loads and files
// it carries, found again each time, offsets mapped past the placeholders),
// and the engine behind it decides. The archived set is asked of the
// engine again only after a decision that can change it.
type EngineStrategy struct {
	world   *host.World
	sess    *host.Session
	notes   map[string]string // load id -> the "already loaded" note that answered it
	arch    map[string]string
	dirty   bool
	current host.ModelRef              // the model the session was last told
	log     func([]lifecycle.Decision) // when set, sees every decision
}

// NewEngineStrategy runs a session over w. The session opens with the
// models of the branch (open), before its first event.
func NewEngineStrategy(w *host.World) *EngineStrategy {
	return &EngineStrategy{world: w, notes: map[string]string{}, dirty: true}
}

// open starts the session with the host's model registry (the branch's
// models at replay's prices) and the branch's characters a token, so
// that the engine's reasons state costs in dollars.
func (s *EngineStrategy) open(models []host.HostModel, charsPerToken float64) {
	s.sess = host.New(s.world, host.InitializeParams{Models: models}, s, host.Options{CharsPerToken: charsPerToken})
}

// Record, Notify and SetModel make the strategy the session's sink.
func (s *EngineStrategy) Record(d lifecycle.Decision) {
	if d.ChangesArchived() {
		s.dirty = true
	}
	if s.log != nil {
		s.log([]lifecycle.Decision{d})
	}
}

// Notify ignores a line for the user.
func (s *EngineStrategy) Notify(string, string) {}

// Line ignores a line for the transcript.
func (s *EngineStrategy) Line(host.LineParams) {}

// SetModel ignores a model switch: replay follows the session's models.
func (s *EngineStrategy) SetModel(host.SetModelParams) {}

// Observe hands the event to the session as the bridge would: prompts
// and runs at once, a skill tool load through the gate, the other loads
// and the files of skills' folders with the request that carries them.
func (s *EngineStrategy) Observe(ev Event) {
	if s.sess == nil {
		s.open(nil, 0)
	}
	switch ev.Type {
	case lifecycle.EvPrompt:
		_, _ = s.sess.UserPrompt(host.UserPromptParams{Text: ev.Text})
	case lifecycle.EvRunStart:
		s.sess.RunStart()
	case lifecycle.EvRunEnd:
		s.sess.RunEnd()
	case lifecycle.EvLoad:
		if l := ev.Load; l.Kind == lifecycle.ByTool {
			if note, ok := s.sess.ToolLoad(l.ID, l.Skill, l.Hash, l.Size); ok {
				s.notes[l.ID], s.dirty = note, true
			}
		}
	case lifecycle.EvRequest:
		if ev.Host == nil {
			return
		}
		if ev.Model.ID != "" && ev.Model != s.current {
			s.current = ev.Model
			_ = s.sess.ModelChanged(host.ModelChangedParams{Model: ev.Model})
		}
		_, _ = s.sess.BeforeRequest(*ev.Host)
	}
}

// Compact hands the session a compaction; the region it answers with is
// what the bridge sends after the summary.
func (s *EngineStrategy) Compact(p host.SessionCompactParams) host.SessionCompactResult {
	if s.sess == nil {
		s.open(nil, 0)
	}
	res, _ := s.sess.Compact(p)
	return res
}

// setLog makes every later decision go to log too (nil: no longer).
func (s *EngineStrategy) setLog(log func([]lifecycle.Decision)) { s.log = log }

// Deferred is what the engine said of the bodies its last request kept
// due (lifecycle.Engine.Deferred).
func (s *EngineStrategy) Deferred() []rules.Timing {
	if s.sess == nil {
		return nil
	}
	return s.sess.Engine().Deferred()
}

// Archived is the engine's archived set, with the "already loaded" notes
// in place of the loads they answered (shared; do not modify).
func (s *EngineStrategy) Archived() map[string]string {
	if s.dirty && s.sess != nil {
		arch := s.sess.Engine().Archived()
		if len(s.notes) > 0 {
			arch = maps.Clone(arch)
			maps.Copy(arch, s.notes)
		}
		s.arch, s.dirty = arch, false
	}
	return s.arch
}

// Deduped reports whether load id was answered "already loaded": it is no
// body, so it is neither a reload nor the skill's latest copy.
func (s *EngineStrategy) Deduped(id string) bool {
	_, ok := s.notes[id]
	return ok
}

// Notes are the "already loaded" notes: the text of the results they
// answered, not replacements (shared; do not modify).
func (s *EngineStrategy) Notes() map[string]string { return s.notes }

// EngineSpec is a strategy running the engine with w's configuration
// over its skills, through a host session (EngineStrategy).
func EngineSpec(name string, w *host.World) StrategySpec {
	e := lifecycle.New(w.Catalog, w.Config)
	return StrategySpec{Name: name, Bridge: true, Comebacks: comebackModel(w.Catalog, w.Config, e),
		Helper: func(s string) bool { return e.HelperOf(s) != "" },
		New:    func() Strategy { return NewEngineStrategy(w) }}
}

// comebackModel is the comeback model of a strategy that runs e (built
// with cfg over cat): the skills a prompt asks for (WantedBy, with e's
// entry skill), of which PickComebacks picks the archived ones to load
// again, knowing e's helpers. nil without a ranker.
func comebackModel(cat lifecycle.Catalog, cfg rules.Config, e *lifecycle.Engine) func(string, func(string) bool, bool, bool) []string {
	entry, _ := e.Entry()
	helper := func(s string) bool { return e.HelperOf(s) != "" }
	wanted := WantedBy(cat.Ranker, cfg, entry, helper)
	if wanted == nil {
		return nil
	}
	return func(prompt string, archived func(string) bool, helpersOnly, all bool) []string {
		out := PickComebacks(wanted(prompt), archived, helper, helpersOnly, all)
		if all {
			// The upper end: a helper is a step any skill's work may
			// call, whatever the prompt says.
			for _, sk := range cat.Skills {
				if helper(sk.Name) && archived(sk.Name) && !slices.Contains(out, sk.Name) {
					out = append(out, sk.Name)
				}
			}
		}
		return out
	}
}

// WantedBy is the first half of the comeback model: the skills a prompt
// asks for, best ranked first. They are the skills the relevance rules
// would keep for it (among the ranker's cfg.TopK, or within
// cfg.RelativeScore of the best score) that also score at least
// cfg.MinSignal themselves: a skill the prompt is about, not one merely
// not worth archiving. Keyword rules are not used. nil ranker: none.
// PickComebacks is the other half.
//
// The entry skill (entry, "" for none) routes a task to the skill that
// does it; when the prompt asks for another skill as well, the agent goes
// to that one directly and does not come back to the router (a router
// tells it as much: "if you know the skill, load it directly"). So entry
// is asked for only when it is the only skill the prompt asks for.
//
// A helper (helper; nil: none known) is named after the one step it does
// ("format-commit-message": commit), a word other skills' descriptions
// use too, so the prompt that names the step ranks it low ("Commit the
// changelog": 1.78 under minSignal 2). A helper is asked for when the
// prompt's words that match it include a word of its name.
func WantedBy(r rules.Ranker, cfg rules.Config, entry string, helper func(string) bool) func(prompt string) []string {
	if r == nil {
		return nil
	}
	return func(prompt string) []string {
		rk := r.Rank(prompt, cfg.MinSignal)
		if !rk.Signal || len(rk.Results) == 0 {
			return nil
		}
		var out []string
		hasEntry := false
		for i, x := range rk.Results {
			if x.Score >= cfg.MinSignal && (i < cfg.TopK || x.Score >= cfg.RelativeScore*rk.Best) {
				if x.Skill == entry {
					hasEntry = true
					continue
				}
				out = append(out, x.Skill)
			} else if helper != nil && helper(x.Skill) && namesStep(x) {
				out = append(out, x.Skill)
			}
		}
		if hasEntry && len(out) == 0 {
			out = []string{entry}
		}
		return out
	}
}

// namesStep reports whether a ranked skill matched a word of its own name.
func namesStep(x relevance.Result) bool {
	name := relevance.Terms(x.Skill)
	return slices.ContainsFunc(x.Terms, func(t string) bool { return slices.Contains(name, t) })
}

// PickComebacks is the second half of the comeback model: of the skills a
// prompt asks for (asked, best first; WantedBy), the archived ones the
// agent loads again before the turn's work. A turn is one task, done by
// the best ranked of the skills asked for that is no helper: the agent
// comes back to it when its body is archived, and to no other (when it is
// in context, or the session shows no load of it, the task needs no
// archived body; any other skill it then needs shows in the session as an
// orphan use). A helper (a step other skills call, such as writing a
// commit message) the prompt asks for comes back as well, since the
// prompt names that step. With helpersOnly (the recorded turn did
// nothing but helpers' steps: it only committed) the turn is the
// helpers' alone and no skill that does the work comes back, whatever
// work the prompt names. With all, every archived skill the prompt asks
// for comes back: the upper end of replay's band (Options.AllComebacks).
// A nil helper knows no helpers.
func PickComebacks(asked []string, archived, helper func(skill string) bool, helpersOnly, all bool) []string {
	var out []string
	worker := helpersOnly && helper != nil
	for _, s := range asked {
		isHelper := helper != nil && helper(s)
		switch {
		case all || isHelper:
			if archived(s) {
				out = append(out, s)
			}
		case !worker:
			worker = true
			if archived(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// EntryObserver is implemented by strategies that also follow the
// session's own entries as the branch is walked (Recorded).
type EntryObserver interface {
	ObserveEntry(e *session.Entry)
}

// RecordedName is the name of the strategy that applies recorded decisions.
const RecordedName = "recorded"

// Recorded applies the decisions the bridge recorded in the session
// (custom entries of host.RecordType), where they were recorded, through
// an engine as a restore applies them: what the extension actually did
// when the session ran.
type Recorded struct {
	eng     *lifecycle.Engine
	pending []lifecycle.Record
	arch    map[string]string
}

// Observe ignores engine events.
func (r *Recorded) Observe(Event) {}

// ObserveEntry takes a recorded decision.
func (r *Recorded) ObserveEntry(e *session.Entry) {
	if d, ok := recordOf(e); ok {
		r.pending = append(r.pending, d)
	}
}

// Archived is the recorded archived set so far (a new map after each
// change: callers compare sets by content).
func (r *Recorded) Archived() map[string]string {
	if len(r.pending) > 0 {
		if r.eng == nil {
			r.eng = lifecycle.New(lifecycle.Catalog{}, rules.Default())
		}
		_, _ = r.eng.Apply(lifecycle.Event{Type: lifecycle.EvRecords, Records: r.pending})
		r.pending = nil
		r.arch = r.eng.Archived()
	}
	return r.arch
}

// RecordedSpec is the strategy that applies the session's own records.
func RecordedSpec() StrategySpec {
	return StrategySpec{Name: RecordedName, New: func() Strategy { return &Recorded{} }}
}

// recordOf reads a decision recorded by the bridge.
func recordOf(e *session.Entry) (lifecycle.Decision, bool) {
	if e.Type != session.TypeCustom || e.CustomType != host.RecordType || e.Data == "" {
		return lifecycle.Decision{}, false
	}
	return decodeRecord(e.Data)
}

// decodeRecord decodes a record's data (apart from recordOf, whose
// decision would otherwise be allocated for every entry it looks at).
func decodeRecord(data string) (lifecycle.Decision, bool) {
	d, err := host.DecodeRecord([]byte(data))
	return d, err == nil && d.Action != ""
}
