package models

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// Selection is a model together with its thinking level. An unset level
// means the host's own choice (on a switch) or not known (for the current
// model).
type Selection struct {
	Model    ModelRef      `json:"model"`
	Thinking ThinkingLevel `json:"thinking,omitempty"`
}

// String writes "provider/id" or "provider/id (thinking high)".
func (s Selection) String() string {
	if s.Thinking == ThinkingUnset {
		return s.Model.String()
	}
	return fmt.Sprintf("%s (thinking %s)", s.Model, s.Thinking)
}

// Source says where a skill's tier came from.
type Source string

// Sources of a tier, in order of precedence.
const (
	FromSkillTiers Source = "skillTiers"
	FromMetadata   Source = "metadata.modelTier"
	FromDefault    Source = "default"
)

// Load is one skill loaded by the model (skill tool call) or the user
// (/skill:name).
type Load struct {
	Skill string `json:"skill"`
	// ModelTier is the skill's metadata.modelTier as written ("" if none).
	ModelTier string `json:"modelTier,omitempty"`
	// Role is the role the engine settled on (frontmatter, helperSkills,
	// entry inference). Entry and helper skills are never working callers.
	Role skills.Role `json:"role,omitempty"`
}

// ActionKind says what the host has to do with an Action.
type ActionKind string

// Action kinds.
const (
	// ActSwitch: set the model (and the thinking level, when set) now.
	ActSwitch ActionKind = "switch"
	// ActRestore: set the model back (end of a run-scoped tier or of a
	// helper's switch, or a reset).
	ActRestore ActionKind = "restore"
	// ActReport: tell the user about a failure or a misconfiguration; the
	// skill still loads on the current model. Each is given once a session.
	ActReport ActionKind = "report"
	// ActNote: a decision that needs no host call (a skill kept the model,
	// a pending restore was cancelled), to record and show when verbose.
	ActNote ActionKind = "note"
)

// Cause is why an Action was taken, in fields and in a sentence.
type Cause struct {
	Skill  string `json:"skill,omitempty"`
	Tier   string `json:"tier,omitempty"` // tier name, or "default" for a model written out
	Source Source `json:"source,omitempty"`
	Scope  Scope  `json:"scope,omitempty"`
	// Helper is set when the skill is a helper loaded by a working caller;
	// Policy and Caller (the caller's model) then say what was compared.
	Helper bool         `json:"helper,omitempty"`
	Policy HelperPolicy `json:"policy,omitempty"`
	Caller *Selection   `json:"caller,omitempty"`
	Reason string       `json:"reason"`
}

// Action is one decision returned by the state machine.
type Action struct {
	Kind ActionKind `json:"kind"`
	// To is the model to set (switch, restore); From the model before it,
	// when known.
	To   *Selection `json:"to,omitempty"`
	From *Selection `json:"from,omitempty"`
	// Cause is set on every kind; Message is a line a person can read.
	Cause   Cause  `json:"cause"`
	Message string `json:"message"`
}

// PendingRestore is the model to put back when the run ends.
type PendingRestore struct {
	To     Selection `json:"to"`
	Skill  string    `json:"skill"` // the load that made it pending
	Tier   string    `json:"tier,omitempty"`
	Helper bool      `json:"helper,omitempty"`
}

// SkillRecord is what the latest load of a skill did.
type SkillRecord struct {
	Tier    string `json:"tier,omitempty"`
	Source  Source `json:"source,omitempty"`
	Helper  bool   `json:"helper,omitempty"`
	Epoch   int    `json:"epoch"`   // State.ManualEpoch at that load
	Outcome string `json:"outcome"` // e.g. "switched to …", "kept …"
}

// Expectation is a switch or restore handed to the host and not yet
// confirmed, with what to put back if the host reports it failed.
type Expectation struct {
	To          Selection       `json:"to"`
	Kind        ActionKind      `json:"kind"`
	PrevCurrent *Selection      `json:"prevCurrent,omitempty"`
	PrevRestore *PendingRestore `json:"prevRestore,omitempty"`
	PrevCaller  *Selection      `json:"prevCaller,omitempty"`
}

// State is everything the tier machine remembers in a session. It is a
// plain value that marshals to JSON, so the engine can record it and
// restore it. The zero State is a fresh session with the model not yet known.
type State struct {
	// Current is the model in use as far as the machine knows.
	Current *Selection `json:"current,omitempty"`
	// Baseline is the model before the first switch of the session (what a
	// reset goes back to).
	Baseline *Selection `json:"baseline,omitempty"`
	// Restore is the model to put back when the run ends.
	Restore *PendingRestore `json:"restore,omitempty"`
	// CallerModel is the model after the latest working skill's load in the
	// current run; nil when no working skill was loaded in this run.
	CallerModel *Selection `json:"callerModel,omitempty"`
	// Callers lists the working skills loaded in the current run.
	Callers []string `json:"callers,omitempty"`
	InRun   bool     `json:"inRun,omitempty"`
	// ManualEpoch counts the model changes the user made by hand.
	ManualEpoch int                    `json:"manualEpoch,omitempty"`
	Skills      map[string]SkillRecord `json:"skills,omitempty"`
	// Failed holds the models the host could not switch to, with the reason;
	// they are not tried again in this session.
	Failed map[string]string `json:"failed,omitempty"`
	// Reported holds the keys of the reports already given.
	Reported map[string]bool `json:"reported,omitempty"`
	Expect   *Expectation    `json:"expect,omitempty"`
}

func (s State) clone() State {
	c := s
	c.Callers = slices.Clone(s.Callers)
	c.Skills = maps.Clone(s.Skills)
	c.Failed = maps.Clone(s.Failed)
	c.Reported = maps.Clone(s.Reported)
	return c
}

func ptr[T any](v T) *T { return &v }

// Tiers resolves skill loads into model switches under one configuration
// and registry. Its methods take a State and return the next State and the
// actions to carry out, in order; they never modify the State passed in.
type Tiers struct {
	Config   Config
	Registry Registry
}

// inactive says why no skill can switch the model, or "" when one can.
func (t Tiers) inactive() string {
	switch {
	case !t.Config.Enabled:
		return "model tiers are disabled (models.enabled is false): keeps the current model"
	case len(t.Config.Tiers) == 0:
		return "no tiers are defined in models.tiers: keeps the current model"
	}
	return ""
}

// onTarget reports whether cur already is the target (the thinking level
// only counts when the target sets one; both are compared after clamping).
func (t Tiers) onTarget(cur *Selection, to Selection) bool {
	if cur == nil || cur.Model != to.Model {
		return false
	}
	if to.Thinking == ThinkingUnset || cur.Thinking == to.Thinking {
		return true
	}
	if cur.Thinking == ThinkingUnset {
		return false
	}
	if m, ok := t.Registry.Find(to.Model); ok {
		return m.Clamp(cur.Thinking) == m.Clamp(to.Thinking)
	}
	return false
}

// resolved is a skill's tier before helper policy and host state apply.
type resolved struct {
	tier    string // tier name ("" when none)
	source  Source
	target  *Tier  // nil: keep the current model
	why     string // why there is no target, or how the target was found
	problem string // a misconfiguration to report once ("" if none)
	key     string // report key for problem
}

// resolve applies the precedence skillTiers → metadata.modelTier → default.
func (t Tiers) resolve(ld Load) resolved {
	c := t.Config
	name, source := "", Source("")
	if n, ok := c.SkillTiers[ld.Skill]; ok {
		name, source = n, FromSkillTiers
	} else if n := normTier(ld.ModelTier); n != "" {
		name, source = n, FromMetadata
	}
	if name != "" {
		if optOut(name) {
			return resolved{tier: name, source: source, why: fmt.Sprintf("%s is %q: keeps the current model", source, name)}
		}
		if tr, ok := c.Tiers[name]; ok {
			return resolved{tier: name, source: source, target: ptr(tr), why: fmt.Sprintf("tier %q from %s", name, source)}
		}
		prob := fmt.Sprintf("tier %q (%s of %s) is not defined in models.tiers", name, source, ld.Skill)
		if c.Default != nil {
			d := c.Default
			return resolved{tier: d.Name(), source: FromDefault, target: ptr(d.Tier),
				why:     fmt.Sprintf("tier %q from %s is not defined; falls back to the default %q", name, source, d.Name()),
				problem: prob + fmt.Sprintf("; using the default %q", d.Name()), key: "undefined-tier:" + name}
		}
		return resolved{tier: name, source: source, why: fmt.Sprintf("tier %q from %s is not defined and there is no default: keeps the current model", name, source),
			problem: prob + "; keeping the current model", key: "undefined-tier:" + name}
	}
	if c.Default == nil {
		return resolved{why: "no tier and no default: keeps the current model"}
	}
	if !c.ApplyToUnlabeledSkills {
		return resolved{why: "no tier, and applyToUnlabeledSkills is false: keeps the current model"}
	}
	d := c.Default
	return resolved{tier: d.Name(), source: FromDefault, target: ptr(d.Tier), why: fmt.Sprintf("no tier: the default %q", d.Name())}
}

// plan is what one load in a batch decided.
type plan struct {
	ld       Load
	switches bool
	to       Selection
	cause    Cause
}

// Load handles the skills loaded by one assistant message (or one
// /skill:name), in call order. While tiers are disabled or none are
// defined it returns no action at all. Loads are decided one at a time, so
// the last one that switches wins, but only that final switch is handed to
// the host (one setModel instead of several, and one prompt-cache break);
// the other loads' decisions come back as notes, in call order. A helper counts as loaded by a
// working caller when a working skill (neither entry nor helper) was loaded
// earlier in the run or is anywhere in the same batch.
func (t Tiers) Load(s State, loads []Load) (State, []Action) {
	s = s.clone()
	start := s.Current
	prev := Expectation{PrevCurrent: s.Current, PrevRestore: s.Restore, PrevCaller: s.CallerModel}
	var acts []Action
	var plans []plan
	var at []int // index in acts of each plan's placeholder
	for i, ld := range loads {
		worker := ld.Role != skills.RoleEntry && ld.Role != skills.RoleHelper
		var caller *Selection
		hasCaller := false
		if ld.Role == skills.RoleHelper {
			caller, hasCaller = s.CallerModel, len(s.Callers) > 0
			if !hasCaller {
				caller, hasCaller = t.laterCaller(&s, loads[i+1:], start)
			}
		}
		p, extra := t.decide(&s, ld, hasCaller, caller)
		acts = append(acts, extra...)
		if worker {
			s.CallerModel = s.Current
			if !slices.Contains(s.Callers, ld.Skill) {
				s.Callers = append(s.Callers, ld.Skill)
			}
		}
		switch {
		case p.switches:
			plans, at = append(plans, p), append(at, len(acts))
			acts = append(acts, Action{})
		case t.inactive() == "":
			acts = append(acts, note(p.cause))
		}
	}
	if len(plans) == 0 {
		return s, acts
	}
	last := len(plans) - 1
	final := plans[last]
	for i, p := range plans[:last] {
		c := p.cause
		c.Reason += fmt.Sprintf("; superseded by %s in the same message", final.ld.Skill)
		acts[at[i]] = Action{Kind: ActNote, To: ptr(p.to), Cause: c,
			Message: fmt.Sprintf("%s: would switch to %s (%s)", p.ld.Skill, p.to, c.Reason)}
	}
	if t.onTarget(start, final.to) {
		// The message ends on the model it started on: nothing to ask the host.
		c := final.cause
		c.Reason += "; already the model in use before this message"
		acts[at[last]] = note(c)
		s.Current = start
		return s, acts
	}
	if s.Baseline == nil && start != nil {
		s.Baseline = start
	}
	prev.To, prev.Kind = final.to, ActSwitch
	s.Expect = ptr(prev)
	acts[at[last]] = Action{Kind: ActSwitch, To: ptr(final.to), From: start, Cause: final.cause,
		Message: fmt.Sprintf("switch to %s: %s", final.to, final.cause.Reason)}
	return s, acts
}

func note(c Cause) Action {
	subject := c.Skill
	if subject == "" {
		subject = "model"
	}
	return Action{Kind: ActNote, Cause: c, Message: subject + ": " + c.Reason}
}

// laterCaller finds a working skill requested after a helper in the same
// message, and returns the model it would put the session on, judged from
// the model at the start of the message (nil when that is unknown).
func (t Tiers) laterCaller(s *State, rest []Load, start *Selection) (*Selection, bool) {
	for _, ld := range rest {
		if ld.Role == skills.RoleEntry || ld.Role == skills.RoleHelper {
			continue
		}
		if !t.Config.Enabled {
			return start, true
		}
		r := t.resolve(ld)
		if r.target == nil || !t.usable(s, r.target.Model) {
			return start, true
		}
		return &Selection{Model: r.target.Model, Thinking: r.target.ThinkingLevel}, true
	}
	return nil, false
}

// usable reports whether the host may be asked to switch to m.
func (t Tiers) usable(s *State, m ModelRef) bool {
	if t.Registry.Available() {
		if _, ok := t.Registry.Find(m); !ok {
			return false
		}
	}
	_, failed := s.Failed[m.String()]
	return !failed
}

// reportOnce returns a report action unless key was reported this session.
func (s *State) reportOnce(key string, c Cause, msg string) []Action {
	if s.Reported[key] {
		return nil
	}
	if s.Reported == nil {
		s.Reported = map[string]bool{}
	}
	s.Reported[key] = true
	return []Action{{Kind: ActReport, Cause: c, Message: msg}}
}

// decide handles one load against the simulated state s (updated in place
// when the load switches). hasCaller says ld is a helper with a working
// caller, and caller is that caller's model (nil when not known).
func (t Tiers) decide(s *State, ld Load, hasCaller bool, caller *Selection) (plan, []Action) {
	p := plan{ld: ld}
	helper := ld.Role == skills.RoleHelper && hasCaller
	callerName := "an unknown model"
	if caller != nil {
		callerName = caller.String()
	}
	record := func(outcome string) {
		if s.Skills == nil {
			s.Skills = map[string]SkillRecord{}
		}
		s.Skills[ld.Skill] = SkillRecord{Tier: p.cause.Tier, Source: p.cause.Source, Helper: helper, Epoch: s.ManualEpoch, Outcome: outcome}
	}
	if why := t.inactive(); why != "" {
		p.cause = Cause{Skill: ld.Skill, Reason: why}
		return p, nil
	}
	r := t.resolve(ld)
	p.cause = Cause{Skill: ld.Skill, Tier: r.tier, Source: r.source, Reason: r.why}
	if helper {
		p.cause.Helper, p.cause.Policy, p.cause.Caller = true, t.Config.HelperTierPolicy, caller
	}
	var acts []Action
	if r.problem != "" {
		acts = append(acts, s.reportOnce(r.key, p.cause, r.problem)...)
	}
	cur := "the current model"
	if s.Current != nil {
		cur = s.Current.String()
	}
	keep := func(why string) (plan, []Action) {
		p.cause.Reason = why
		record("kept " + cur)
		return p, acts
	}
	if r.target == nil {
		return keep(r.why)
	}
	to := Selection{Model: r.target.Model, Thinking: r.target.ThinkingLevel}
	scope := r.target.Scope
	if scope == "" {
		scope = ScopeSession
	}
	if t.Registry.Available() {
		if _, ok := t.Registry.Find(to.Model); !ok {
			acts = append(acts, s.reportOnce("unknown-model:"+to.Model.String(), p.cause,
				fmt.Sprintf("model %s (tier %q) is not in the host's model registry; %s loads on %s", to.Model, r.tier, ld.Skill, cur))...)
			return keep(r.why + fmt.Sprintf("; model %s is unknown to the host: keeps %s", to.Model, cur))
		}
	}
	if why, failed := s.Failed[to.Model.String()]; failed {
		return keep(r.why + fmt.Sprintf("; switching to %s failed earlier in this session (%s): keeps %s", to.Model, why, cur))
	}
	if rec, ok := s.Skills[ld.Skill]; ok && rec.Tier == r.tier && rec.Epoch < s.ManualEpoch && !t.onTarget(s.Current, to) {
		return keep(r.why + fmt.Sprintf("; loaded again at the same tier after the model was changed by hand: keeps %s", cur))
	}
	why := r.why
	if helper {
		scope = ScopeRun // the caller keeps working after the helper
		switch t.Config.HelperTierPolicy {
		case Keep:
			return keep(r.why + fmt.Sprintf("; helper of a working caller under policy keep: keeps %s", cur))
		case Always:
			why += fmt.Sprintf("; helper of a working caller on %s, policy always: applied for this run", callerName)
		default:
			cmp := Unknown
			if caller != nil {
				cmp = t.Registry.Compare(*caller, to)
			}
			switch cmp {
			case Cheaper:
				why += fmt.Sprintf("; helper of a working caller, %s is cheaper than the caller's %s (allow-downgrade): for this run", to, callerName)
			case NotCheaper:
				why += fmt.Sprintf("; helper of a working caller, %s is not cheaper than the caller's %s (allow-downgrade): runs on the caller's model", to, callerName)
				to = *caller
			default:
				return keep(why + fmt.Sprintf("; helper of a working caller, cannot tell whether %s is cheaper than the caller's %s (a price or thinking level is missing; allow-downgrade): keeps %s", to, callerName, cur))
			}
		}
	} else if scope == ScopeRun {
		why += ", this run only"
	}
	p.cause.Scope, p.cause.Reason = scope, why
	if t.onTarget(s.Current, to) {
		if scope == ScopeSession && s.Restore != nil {
			s.Restore = nil
			why += "; session scope cancels the restore pending at the end of the run"
		}
		p.cause.Reason = why + "; already on " + s.Current.String()
		record("already on " + s.Current.String())
		return p, acts
	}
	switch {
	case scope == ScopeSession:
		s.Restore = nil
	case s.Restore != nil:
		// The model from before the first run-scoped switch comes back.
	case s.Current != nil:
		s.Restore = &PendingRestore{To: *s.Current, Skill: ld.Skill, Tier: r.tier, Helper: helper}
	default:
		p.cause.Reason += "; the model in use before is unknown, so it cannot be restored"
	}
	s.Current = ptr(to)
	p.switches, p.to = true, to
	record("switched to " + to.String())
	return p, acts
}

// RunStart marks the start of an agent run. Loads made between the end of
// the previous run and this call (a /skill:name before the first request)
// already belong to this run.
func (t Tiers) RunStart(s State) (State, []Action) {
	s = s.clone()
	s.InRun = true
	return s, nil
}

// RunEnd ends the run: a pending restore (a run-scoped tier, or a helper's
// switch) puts back the model it saved, and the run's callers are
// forgotten.
func (t Tiers) RunEnd(s State) (State, []Action) {
	s = s.clone()
	var acts []Action
	if r := s.Restore; r != nil {
		c := Cause{Skill: r.Skill, Tier: r.Tier, Scope: ScopeRun, Helper: r.Helper}
		if r.Helper {
			c.Reason = fmt.Sprintf("end of the run: the caller's model comes back after helper %s", r.Skill)
		} else {
			c.Reason = fmt.Sprintf("end of the run: tier %q of %s was for that run only", r.Tier, r.Skill)
		}
		if t.onTarget(s.Current, r.To) {
			c.Reason += "; already on " + r.To.String()
			acts = append(acts, note(c))
		} else {
			s.Expect = &Expectation{To: r.To, Kind: ActRestore, PrevCurrent: s.Current, PrevCaller: s.CallerModel}
			acts = append(acts, Action{Kind: ActRestore, To: ptr(r.To), From: s.Current, Cause: c,
				Message: fmt.Sprintf("restore %s: %s", r.To, c.Reason)})
			s.Current = ptr(r.To)
		}
	}
	s.Restore, s.CallerModel, s.Callers, s.InRun = nil, nil, nil, false
	return s, acts
}

// ModelSelected tells the machine which model the host is on: at session
// start or resume, and on each model_select event. The echo of a switch or
// restore the machine asked for is recognised; any other change is the
// user's, which cancels a pending restore and counts as a manual change.
// An unset thinking level leaves the known level as it was.
func (t Tiers) ModelSelected(s State, sel Selection) (State, []Action) {
	s = s.clone()
	if e := s.Expect; e != nil && e.To.Model == sel.Model {
		if sel.Thinking == ThinkingUnset {
			sel.Thinking = e.To.Thinking
		}
		s.Current, s.Expect = ptr(sel), nil
		return s, nil
	}
	if s.Current == nil || s.Current.Model == sel.Model {
		if sel.Thinking == ThinkingUnset && s.Current != nil {
			sel.Thinking = s.Current.Thinking
		}
		s.Current = ptr(sel)
		return s, nil
	}
	var acts []Action
	if r := s.Restore; r != nil {
		c := Cause{Skill: r.Skill, Tier: r.Tier, Scope: ScopeRun, Helper: r.Helper,
			Reason: fmt.Sprintf("the model was changed by hand to %s: the restore of %s at the end of the run is cancelled", sel, r.To)}
		acts = append(acts, note(c))
	}
	s.Current, s.Restore, s.Expect = ptr(sel), nil, nil
	if len(s.Callers) > 0 {
		s.CallerModel = ptr(sel)
	}
	s.ManualEpoch++
	return s, acts
}

// SwitchFailed tells the machine that the host could not carry out a switch
// or restore to m (setModel returned false: no credentials; or it threw).
// The machine goes back to the state before that action, will not try m
// again this session, and reports the failure once.
func (t Tiers) SwitchFailed(s State, m ModelRef, reason string) (State, []Action) {
	s = s.clone()
	if s.Failed == nil {
		s.Failed = map[string]string{}
	}
	reason = strings.TrimSpace(reason)
	if reason == "" {
		reason = "the host refused the switch"
	}
	s.Failed[m.String()] = reason
	if e := s.Expect; e != nil && e.To.Model == m {
		s.Current, s.CallerModel, s.Expect = e.PrevCurrent, e.PrevCaller, nil
		if e.Kind == ActSwitch {
			s.Restore = e.PrevRestore
		}
	}
	cur := "the current model"
	if s.Current != nil {
		cur = s.Current.String()
	}
	c := Cause{Reason: fmt.Sprintf("could not switch to %s: %s", m, reason)}
	return s, s.reportOnce("switch-failed:"+m.String(), c,
		fmt.Sprintf("could not switch to %s (%s); skills keep running on %s", m, reason, cur))
}

// Reset puts back the model from before the first switch of the session
// (/skills-model reset) and cancels a pending restore. Like a change made
// by hand, skills loaded again at the same tier then keep that model.
func (t Tiers) Reset(s State) (State, []Action) {
	s = s.clone()
	s.Restore = nil
	if s.Baseline == nil || t.onTarget(s.Current, *s.Baseline) {
		return s, nil
	}
	c := Cause{Reason: "reset: the model from before the first switch of the session"}
	s.Expect = &Expectation{To: *s.Baseline, Kind: ActRestore, PrevCurrent: s.Current, PrevCaller: s.CallerModel}
	act := Action{Kind: ActRestore, To: s.Baseline, From: s.Current, Cause: c, Message: fmt.Sprintf("restore %s: %s", *s.Baseline, c.Reason)}
	s.Current = s.Baseline
	if len(s.Callers) > 0 {
		s.CallerModel = s.Baseline
	}
	s.ManualEpoch++
	return s, []Action{act}
}
