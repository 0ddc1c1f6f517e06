package models

// Explanation says which model a skill would run on, and why.
type Explanation struct {
	Skill string `json:"skill"`
	// Model is the model the skill would run on; Switch is set when that
	// takes a switch from the current model.
	Model  Selection `json:"model"`
	Switch bool      `json:"switch"`
	Cause  Cause     `json:"cause"`
	// Reports are the problems the load would report (an undefined tier, a
	// model the host does not know), even if already reported this session.
	Reports []string `json:"reports,omitempty"`
}

// Explain tells which model the skill of ld would run on if it were loaded
// now, starting from the current model. s is the session's state (the zero
// State for none); caller, when not nil, is the model of a working caller
// loaded in the same run, so that a helper is judged under the helper
// policy; when nil the skill is judged as having no working caller. It runs the same decision as Load, on a copy of s.
func (t Tiers) Explain(s State, ld Load, current Selection, caller *Selection) Explanation {
	s = s.clone()
	s.Current, s.Expect, s.Reported = ptr(current), nil, nil
	s.CallerModel, s.Callers = caller, nil
	if caller != nil {
		s.Callers = []string{"(caller)"}
	}
	e := Explanation{Skill: ld.Skill, Model: current}
	if why := t.inactive(); why != "" {
		e.Cause = Cause{Skill: ld.Skill, Reason: why}
		return e
	}
	_, acts := t.Load(s, []Load{ld})
	for _, a := range acts {
		switch a.Kind {
		case ActReport:
			e.Reports = append(e.Reports, a.Message)
		case ActSwitch:
			e.Model, e.Switch, e.Cause = *a.To, true, a.Cause
		case ActNote:
			if !e.Switch {
				e.Cause = a.Cause
			}
		}
	}
	return e
}
