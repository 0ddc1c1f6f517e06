package lifecycle

import (
	"fmt"

	"github.com/skill-lifecycle/skill-lifecycle/models"
)

// EventType names an event in Event.
type EventType string

// Event types.
const (
	EvPrompt   EventType = "prompt"    // Text
	EvLoad     EventType = "load"      // Load
	EvResource EventType = "resource"  // Resource
	EvRunStart EventType = "run-start" //
	EvRunEnd   EventType = "run-end"   //
	EvPin      EventType = "pin"       // Skill
	EvUnpin    EventType = "unpin"     // Skill
	EvEnable   EventType = "enable"    // On
	EvRequest  EventType = "request"   // Request
	// EvLoads is the loads of one assistant message, in call order.
	EvLoads         EventType = "loads"          // Loads
	EvModelSelected EventType = "model-selected" // Selection
	EvModelFailed   EventType = "model-failed"   // ModelRef, Text (the reason)
	EvModelReset    EventType = "model-reset"    //
)

// Event is one event as data, for hosts that queue or log events (replay,
// tests). Apply hands it to the matching method.
type Event struct {
	Type    EventType `json:"type"`
	Text    string    `json:"text,omitempty"`
	Load    *Load     `json:"load,omitempty"`
	Skill   string    `json:"skill,omitempty"`
	On      bool      `json:"on,omitempty"`
	Request *Request  `json:"request,omitempty"`
	Loads   []Load    `json:"loads,omitempty"`
	// Resource is a file of a skill's folder the model read (resource).
	Resource *Resource `json:"resource,omitempty"`
	// Selection is the model the host is on (model-selected).
	Selection *models.Selection `json:"selection,omitempty"`
	// ModelRef is the model a switch to failed (model-failed).
	ModelRef *models.ModelRef `json:"modelRef,omitempty"`
}

// Apply hands ev to the engine method of its type. An unknown type or a
// load event without its Load is an error and changes nothing.
func (e *Engine) Apply(ev Event) ([]Decision, error) {
	switch ev.Type {
	case EvPrompt:
		return e.UserPrompt(ev.Text), nil
	case EvLoad:
		if ev.Load == nil {
			return nil, fmt.Errorf("lifecycle: load event without load")
		}
		return e.SkillLoaded(*ev.Load), nil
	case EvResource:
		if ev.Resource == nil {
			return nil, fmt.Errorf("lifecycle: resource event without resource")
		}
		return e.ResourceRead(*ev.Resource), nil
	case EvRunStart:
		return e.RunStart(), nil
	case EvRunEnd:
		return e.RunEnd(), nil
	case EvPin:
		return e.Pin(ev.Skill), nil
	case EvUnpin:
		return e.Unpin(ev.Skill), nil
	case EvEnable:
		return e.SetEnabled(ev.On), nil
	case EvRequest:
		var r Request
		if ev.Request != nil {
			r = *ev.Request
		}
		return e.BeforeRequest(r), nil
	case EvLoads:
		return e.SkillsLoaded(ev.Loads), nil
	case EvModelSelected:
		if ev.Selection == nil {
			return nil, fmt.Errorf("lifecycle: model-selected event without selection")
		}
		return e.ModelSelected(*ev.Selection), nil
	case EvModelFailed:
		if ev.ModelRef == nil {
			return nil, fmt.Errorf("lifecycle: model-failed event without modelRef")
		}
		return e.ModelSwitchFailed(*ev.ModelRef, ev.Text), nil
	case EvModelReset:
		return e.ModelReset(), nil
	}
	return nil, fmt.Errorf("lifecycle: unknown event type %q", ev.Type)
}
