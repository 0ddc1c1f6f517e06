package lifecycle

import "fmt"

// EventType names an event in Event.
type EventType string

// Event types.
const (
	EvPrompt   EventType = "prompt"    // Text
	EvLoad     EventType = "load"      // Load
	EvRunStart EventType = "run-start" //
	EvRunEnd   EventType = "run-end"   //
	EvPin      EventType = "pin"       // Skill
	EvUnpin    EventType = "unpin"     // Skill
	EvEnable   EventType = "enable"    // On
	EvRequest  EventType = "request"   // Request
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
	}
	return nil, fmt.Errorf("lifecycle: unknown event type %q", ev.Type)
}
