package lifecycle

import (
	"encoding/json"
	"reflect"
	"slices"

	"github.com/skill-lifecycle/skill-lifecycle/models"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// parseModels reads the configuration's `models` key (models.ParseAt, at
// the file and line it was written on); an invalid key leaves model tiers
// inactive and keeps the diagnostics.
func (e *Engine) parseModels() {
	file := e.cfg.ModelsFile
	if file == "" {
		file = rules.FileName
	}
	e.mcfg, e.mdiags = models.ParseAt(e.cfg.Models, file, e.cfg.ModelsLine)
}

// ModelDiagnostics returns the problems found in the configuration's
// `models` key (key "models.…"; an error means the whole key is ignored
// and nothing switches).
func (e *Engine) ModelDiagnostics() []rules.Diagnostic {
	return slices.Clone(e.mdiags)
}

// ModelConfig returns the parsed `models` key in force.
func (e *Engine) ModelConfig() models.Config { return e.mcfg }

// SetRegistry gives the engine the host's model registry (models with
// prices and thinking levels). Without one no model is called unknown and
// no price is known (helpers under allow-downgrade then keep the model). It
// decides nothing at once and is not recorded: the host sets it again
// after a restart.
func (e *Engine) setRegistry(r models.Registry) { e.reg = r }

func (e *Engine) tiers() models.Tiers { return models.Tiers{Config: e.mcfg, Registry: e.reg} }

// ModelState returns a copy of the tier machine's state.
func (e *Engine) ModelState() models.State { return copyModelState(e.mstate) }

// copyModelState deep-copies s through its JSON form, which loses nothing.
func copyModelState(s models.State) models.State {
	b, err := json.Marshal(s)
	if err != nil {
		return s
	}
	var out models.State
	if json.Unmarshal(b, &out) != nil {
		return s
	}
	return out
}

// roleOf is the role the tier machine sees: the engine's entry skill is
// the entry; a helper by metadata.role or helperSkills is a helper;
// otherwise the declared role.
func (e *Engine) roleOf(skill string) skills.Role {
	if skill != "" && skill == e.entry {
		return skills.RoleEntry
	}
	if e.HelperOf(skill) != "" {
		return skills.RoleHelper
	}
	if s := e.info[skill]; s != nil {
		return s.Role
	}
	return skills.RoleNone
}

func (e *Engine) modelLoad(skill string) models.Load {
	ld := models.Load{Skill: skill, Role: e.roleOf(skill)}
	if s := e.info[skill]; s != nil {
		ld.ModelTier = s.ModelTier
	}
	return ld
}

// tiersActive reports whether a skill can switch the model at all
// (models.enabled and at least one tier). While not, loads and runs are
// not shown to the tier machine, so sessions without tiers record no
// model state beyond the model in use.
func (e *Engine) tiersActive() bool { return e.mcfg.Enabled && len(e.mcfg.Tiers) > 0 }

// modelLoads hands a batch of accepted loads to the tier machine.
func (e *Engine) modelLoads(ls []Load) []Decision {
	if !e.tiersActive() {
		return nil
	}
	batch := make([]models.Load, len(ls))
	for i, l := range ls {
		batch[i] = e.modelLoad(l.Skill)
	}
	return e.modelStep(func(s models.State) (models.State, []models.Action) { return e.tiers().Load(s, batch) })
}

// onModelSelected tells the engine which model the host is on: at session
// start or resume, and on every model change the host reports (Pi's
// model_select), including the echo of a switch the engine asked for. Any
// other change is the user's: it cancels a pending restore.
func (e *Engine) onModelSelected(sel models.Selection) []Decision {
	return e.modelStep(func(s models.State) (models.State, []models.Action) { return e.tiers().ModelSelected(s, sel) })
}

// onModelFailed tells the engine that the host could not switch to m
// (no credentials, or the call failed): the state before that switch comes
// back, m is not tried again this session, and the failure is reported once.
func (e *Engine) onModelFailed(m models.ModelRef, reason string) []Decision {
	return e.modelStep(func(s models.State) (models.State, []models.Action) { return e.tiers().SwitchFailed(s, m, reason) })
}

// onModelReset puts back the model from before the first switch of the
// session (/skills-model reset) and cancels any pending restore.
func (e *Engine) onModelReset() []Decision {
	return e.modelStep(e.tiers().Reset)
}

// modelStep runs one tier-machine transition, turns its actions into
// decisions and, when the state changed (whether a run is in progress
// aside), appends a model-state record so that Restore brings it back.
func (e *Engine) modelStep(f func(models.State) (models.State, []models.Action)) []Decision {
	if f == nil {
		return nil
	}
	next, acts := f(e.mstate)
	var ds []Decision
	for _, a := range acts {
		ds = append(ds, modelDecision(a))
	}
	before, after := e.mstate, next
	before.InRun, after.InRun = false, false
	e.mstate = next
	if !reflect.DeepEqual(normModelState(before), normModelState(after)) {
		st := copyModelState(next)
		st.InRun = false
		ds = append(ds, Decision{V: RecordVersion, Action: ActModelState, ModelState: &st})
	}
	return ds
}

// normModelState makes empty and nil maps and lists compare equal.
func normModelState(s models.State) models.State {
	return copyModelState(s)
}

// runStep is the tier machine's run transition f, or nil while tiers are
// inactive (a pending restore is still carried out).
func (e *Engine) runStep(f func(models.State) (models.State, []models.Action)) func(models.State) (models.State, []models.Action) {
	if !e.tiersActive() && e.mstate.Restore == nil && len(e.mstate.Callers) == 0 {
		return nil
	}
	return f
}

func modelDecision(a models.Action) Decision {
	d := Decision{V: RecordVersion, Skill: a.Cause.Skill,
		Model: &ModelChange{From: a.From, Cause: a.Cause, Message: a.Message}}
	if a.To != nil {
		d.Model.Provider, d.Model.Model, d.Model.Thinking = a.To.Model.Provider, a.To.Model.ID, a.To.Thinking
	}
	switch a.Kind {
	case models.ActSwitch:
		d.Action = ActModel
	case models.ActRestore:
		d.Action = ActModelRestore
	case models.ActReport:
		d.Action = ActModelReport
	default:
		d.Action = ActModelNote
	}
	return d
}

// ExplainModel says which model skill would run on if it were loaded now
// in this session, from the current model (models.Tiers.Explain): judged as
// a helper of a working caller when one was loaded in the current run. It
// changes nothing.
func (e *Engine) ExplainModel(skill string) models.Explanation {
	s := e.ModelState()
	cur := models.Selection{}
	if s.Current != nil {
		cur = *s.Current
	}
	var caller *models.Selection
	if len(s.Callers) > 0 {
		caller = s.CallerModel
		if caller == nil {
			caller = &cur
		}
	}
	return e.tiers().Explain(s, e.modelLoad(skill), cur, caller)
}

// ExplainModel says which model skill would run on under cfg (its `models`
// key) and the host's registry reg (the zero Registry when unknown), when
// the session is on current and, when callers are given, those skills were
// loaded earlier in the same run (so a helper is judged under the helper
// policy against the model they put the session on). The diagnostics are
// those of the `models` key. It drives a fresh engine, so the decision is
// the one a session would take.
func ExplainModel(cat Catalog, cfg rules.Config, reg models.Registry, skill string, current models.Selection, callers []string) (models.Explanation, []rules.Diagnostic) {
	e := New(cat, cfg)
	e.setRegistry(reg)
	e.onModelSelected(current)
	e.onRunStart()
	if len(callers) > 0 {
		ls := make([]Load, len(callers))
		for i, c := range callers {
			ls[i] = Load{ID: "caller-" + c, Skill: c, Kind: ByTool}
		}
		e.onLoads(ls)
		// The caller's switch is carried out by the host.
		if cur := e.mstate.Current; cur != nil {
			e.onModelSelected(*cur)
		}
	}
	return e.ExplainModel(skill), e.ModelDiagnostics()
}
