package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"

	"github.com/skill-lifecycle/skill-lifecycle/internal/regfile"
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/session"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Strategy decides which bodies are archived. Replay tells it what
// happens in the session (user prompts, skill loads, runs starting and
// ending, requests about to be sent) and asks, before each request, which
// bodies are archived: load id -> the placeholder text that replaces the
// body in the context.
type Strategy interface {
	Observe(ev lifecycle.Event)
	Archived() map[string]string
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
	// which skills' bodies are archived; all brings back every one the
	// prompt asks for (Options.AllComebacks).
	Comebacks func(prompt string, archived func(skill string) bool, all bool) []string
	// search, when set, makes this a foresight strategy (ForesightSpec).
	search *foresight
}

// KeepAllName is the baseline strategy's name.
const KeepAllName = "keep-all"

// KeepAll archives nothing: the 100% baseline.
type KeepAll struct{}

// Observe ignores the event.
func (KeepAll) Observe(lifecycle.Event) {}

// Archived is always empty.
func (KeepAll) Archived() map[string]string { return nil }

// KeepAllSpec is the baseline strategy.
func KeepAllSpec() StrategySpec {
	return StrategySpec{Name: KeepAllName, New: func() Strategy { return KeepAll{} }}
}

// EngineStrategy drives a lifecycle engine. The archived set is asked of
// the engine again only after a decision that can change it.
type EngineStrategy struct {
	Engine *lifecycle.Engine
	arch   map[string]string
	dirty  bool
	log    func([]lifecycle.Decision) // when set, sees every decision
}

// NewEngineStrategy wraps an engine.
func NewEngineStrategy(e *lifecycle.Engine) *EngineStrategy {
	return &EngineStrategy{Engine: e, dirty: true}
}

// Observe hands the event to the engine.
func (s *EngineStrategy) Observe(ev lifecycle.Event) {
	ds, _ := s.Engine.Apply(ev)
	if s.log != nil {
		s.log(ds)
	}
	for _, d := range ds {
		if d.ChangesArchived() {
			s.dirty = true
		}
	}
}

// setLog makes every later decision go to log too (nil: no longer).
func (s *EngineStrategy) setLog(log func([]lifecycle.Decision)) { s.log = log }

// Deferred is what the engine said of the bodies its last request kept
// due (lifecycle.Engine.Deferred).
func (s *EngineStrategy) Deferred() []rules.Timing { return s.Engine.Deferred() }

// Archived is the engine's archived set (shared; do not modify).
func (s *EngineStrategy) Archived() map[string]string {
	if s.dirty {
		s.arch, s.dirty = s.Engine.Archived(), false
	}
	return s.arch
}

// EngineSpec is a strategy running the engine with cfg over cat. With
// dedupe "already-loaded" a repeated identical load is answered with the
// skill tool's note (DedupeStrategy); with "archive-older" it is delivered
// and the older copy dropped.
func EngineSpec(name string, cat lifecycle.Catalog, cfg rules.Config) StrategySpec {
	comebacks := comebackModel(cat, cfg, lifecycle.New(cat, cfg))
	if cfg.Dedupe == rules.DedupeAlreadyLoaded {
		return StrategySpec{Name: name, Bridge: true, Comebacks: comebacks,
			New: func() Strategy { return NewDedupeStrategy(lifecycle.New(cat, cfg)) }}
	}
	return StrategySpec{Name: name, Bridge: true, Comebacks: comebacks,
		New: func() Strategy { return NewEngineStrategy(lifecycle.New(cat, cfg)) }}
}

// comebackModel is the comeback model of a strategy that runs e (built
// with cfg over cat): the skills a prompt asks for (WantedBy, with e's
// entry skill), of which PickComebacks picks the archived ones to load
// again, knowing e's helpers. nil without a ranker.
func comebackModel(cat lifecycle.Catalog, cfg rules.Config, e *lifecycle.Engine) func(string, func(string) bool, bool) []string {
	entry, _ := e.Entry()
	wanted := WantedBy(cat.Ranker, cfg, entry)
	if wanted == nil {
		return nil
	}
	helper := func(s string) bool { return e.HelperOf(s) != "" }
	return func(prompt string, archived func(string) bool, all bool) []string {
		return PickComebacks(wanted(prompt), archived, helper, all)
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
func WantedBy(r rules.Ranker, cfg rules.Config, entry string) func(prompt string) []string {
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
			}
		}
		if hasEntry && len(out) == 0 {
			out = []string{entry}
		}
		return out
	}
}

// PickComebacks is the second half of the comeback model: of the skills a
// prompt asks for (asked, best first; WantedBy), the archived ones the
// agent loads again before the turn's work. It comes back to one skill
// that does the work, the best ranked whose body is archived: a turn is
// one task, and the agent reloads the skill for it and goes on; any other
// skill it then needs shows in the session as an orphan use. A helper (a
// step other skills call, such as writing a commit message) the prompt
// asks for comes back as well, since the prompt names that step. With all,
// every archived skill the prompt asks for comes back: the upper end of
// replay's band (Options.AllComebacks). A nil helper knows no helpers.
func PickComebacks(asked []string, archived, helper func(skill string) bool, all bool) []string {
	var out []string
	worker := false
	for _, s := range asked {
		if !archived(s) {
			continue
		}
		switch {
		case all, helper != nil && helper(s):
			out = append(out, s)
		case !worker:
			out = append(out, s)
			worker = true
		}
	}
	return out
}

// MaxConfigSize bounds a configuration file LoadConfigFile reads, as the
// sidecar bounds the files it reads; a bigger file is refused unread.
const MaxConfigSize = 1 << 20

// LoadConfigFile reads a skill-lifecycle.json file as the only
// configuration (over the defaults). Warnings are returned; an error in
// the file, or a file over MaxConfigSize, is an error.
func LoadConfigFile(path string) (rules.Config, []string, error) {
	f, err := regfile.Open(path)
	if err != nil {
		return rules.Config{}, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigSize+1))
	if err != nil {
		return rules.Config{}, nil, err
	}
	if len(data) > MaxConfigSize {
		return rules.Config{}, nil, fmt.Errorf("%s: over %d bytes; too big for a configuration file, not read", path, MaxConfigSize)
	}
	frag, diags := rules.Parse(data, path)
	var warns []string
	for _, d := range diags {
		if d.Severity == skills.Error {
			return rules.Config{}, nil, fmt.Errorf("%s", d.String())
		}
		warns = append(warns, d.String())
	}
	return rules.Merge(frag, rules.Fragment{}, rules.Untrusted), warns, nil
}

// EntryObserver is implemented by strategies that also follow the
// session's own entries as the branch is walked (Recorded).
type EntryObserver interface {
	ObserveEntry(e *session.Entry)
}

// RecordsType is the customType of the entries the bridge appends for each
// engine decision.
const RecordsType = "skill-lifecycle"

// RecordedName is the name of the strategy that applies recorded decisions.
const RecordedName = "recorded"

// Recorded applies the archive and unarchive decisions the bridge recorded
// in the session (custom entries of type "skill-lifecycle"), where they
// were recorded: what the extension actually did when the session ran.
type Recorded struct {
	arch map[string]string
}

// Observe ignores engine events.
func (r *Recorded) Observe(lifecycle.Event) {}

// ObserveEntry applies a recorded decision.
func (r *Recorded) ObserveEntry(e *session.Entry) {
	d, ok := recordOf(e)
	if !ok {
		return
	}
	switch d.Action {
	case lifecycle.ActArchive:
		next := maps.Clone(r.arch)
		if next == nil {
			next = map[string]string{}
		}
		next[d.ID] = d.Placeholder
		for _, res := range d.Resources { // the files that go with the body
			next[res.ID] = res.Placeholder
		}
		r.arch = next // a new map: callers compare sets by content
	case lifecycle.ActUnarchive:
		if _, ok := r.arch[d.ID]; ok {
			next := maps.Clone(r.arch)
			delete(next, d.ID)
			for _, res := range d.Resources {
				delete(next, res.ID)
			}
			r.arch = next
		}
	}
}

// Archived is the recorded archived set so far.
func (r *Recorded) Archived() map[string]string { return r.arch }

// RecordedSpec is the strategy that applies the session's own records.
func RecordedSpec() StrategySpec {
	return StrategySpec{Name: RecordedName, New: func() Strategy { return &Recorded{} }}
}

// recordOf reads a decision recorded by the bridge.
func recordOf(e *session.Entry) (lifecycle.Decision, bool) {
	if e.Type != session.TypeCustom || e.CustomType != RecordsType || e.Data == "" {
		return lifecycle.Decision{}, false
	}
	return decodeRecord(e.Data)
}

// decodeRecord decodes a record's data (apart from recordOf, whose
// decision would otherwise be allocated for every entry it looks at).
func decodeRecord(data string) (lifecycle.Decision, bool) {
	var d lifecycle.Decision
	if json.Unmarshal([]byte(data), &d) != nil || d.ID == "" {
		return d, false
	}
	return d, d.ChangesArchived()
}
