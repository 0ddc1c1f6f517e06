package lifecycle

import (
	"fmt"

	"github.com/skill-lifecycle/skill-lifecycle/models"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// EventType names an event in Event.
type EventType string

// Event types. Each says which fields of Event it reads.
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
	// EvForget drops a load that never reached the context.
	EvForget EventType = "forget" // ID
	// EvRevive takes back body ID, due for archive, because the agent
	// loaded its skill again.
	EvRevive EventType = "revive" // ID
	// EvRestore replaces the state by the one Records describe;
	// EvRecords applies Records on top of the state.
	EvRestore EventType = "restore" // Records, RequestCount
	EvRecords EventType = "records" // Records
	// EvCompact records a compaction and the bodies sent again after it.
	EvCompact EventType = "compact" // Compaction, Reattached
	// EvWorld replaces the installed skills, the configuration or the
	// host's model registry (the fields given).
	EvWorld EventType = "world" // Catalog, Config, Registry
)

// Event is one host event as data. Apply hands it to the engine: it is
// the engine's one door; the other exported methods are queries.
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
	// ID is the body a forget drops or a revive takes back.
	ID string `json:"id,omitempty"`
	// Records are what a restore rebuilds the state from, oldest first;
	// RequestCount is the number of model requests made on the branch so
	// far, when the host knows it (the records only hold it as of the
	// last decision that noted it).
	Records      []Record `json:"records,omitempty"`
	RequestCount *int     `json:"requestCount,omitempty"`
	// Compaction is the compaction made (compact); Reattached what the
	// host sent again after it (normally PlanCompaction's kept items, as
	// read from disk).
	Compaction *Compaction `json:"compaction,omitempty"`
	Reattached []Reattach  `json:"reattached,omitempty"`
	// Catalog, Config and Registry replace the engine's (world); nil
	// leaves it as it is.
	Catalog  *Catalog         `json:"-"`
	Config   *rules.Config    `json:"-"`
	Registry *models.Registry `json:"-"`
}

// Apply hands ev to the engine and returns what it decided, in order.
// An unknown type or an event without the field its type reads is an
// error and changes nothing. A restore's unusable records are not an
// error: RestoreProblems names them.
func (e *Engine) Apply(ev Event) ([]Decision, error) {
	missing := func(field string) error {
		return fmt.Errorf("lifecycle: %s event without %s", ev.Type, field)
	}
	switch ev.Type {
	case EvPrompt:
		return e.onPrompt(ev.Text), nil
	case EvLoad:
		if ev.Load == nil {
			return nil, missing("load")
		}
		return e.onLoad(*ev.Load), nil
	case EvLoads:
		return e.onLoads(ev.Loads), nil
	case EvResource:
		if ev.Resource == nil {
			return nil, missing("resource")
		}
		return e.onResource(*ev.Resource), nil
	case EvRunStart:
		return e.onRunStart(), nil
	case EvRunEnd:
		return e.onRunEnd(), nil
	case EvPin:
		return e.onPin(ev.Skill), nil
	case EvUnpin:
		return e.onUnpin(ev.Skill), nil
	case EvEnable:
		return e.onEnable(ev.On), nil
	case EvRequest:
		var r Request
		if ev.Request != nil {
			r = *ev.Request
		}
		return e.onRequest(r), nil
	case EvModelSelected:
		if ev.Selection == nil {
			return nil, missing("selection")
		}
		return e.onModelSelected(*ev.Selection), nil
	case EvModelFailed:
		if ev.ModelRef == nil {
			return nil, missing("modelRef")
		}
		return e.onModelFailed(*ev.ModelRef, ev.Text), nil
	case EvModelReset:
		return e.onModelReset(), nil
	case EvForget:
		return e.onForget(ev.ID), nil
	case EvRevive:
		return e.onRevive(ev.ID), nil
	case EvRestore:
		e.problems = e.onRestore(ev.Records)
		if ev.RequestCount != nil {
			e.setRequestCount(*ev.RequestCount)
		}
		return nil, nil
	case EvRecords:
		e.problems = e.applyRecords(ev.Records)
		return nil, nil
	case EvCompact:
		if ev.Compaction == nil {
			return nil, missing("compaction")
		}
		return e.onCompact(*ev.Compaction, ev.Reattached), nil
	case EvWorld:
		if ev.Catalog != nil {
			e.onCatalog(*ev.Catalog)
		}
		if ev.Config != nil {
			e.setConfig(*ev.Config)
		}
		if ev.Registry != nil {
			e.setRegistry(*ev.Registry)
		}
		return nil, nil
	}
	return nil, fmt.Errorf("lifecycle: unknown event type %q", ev.Type)
}

// RestoreProblems names the records the last restore (or records event)
// could not use, or used only in part.
func (e *Engine) RestoreProblems() []Problem { return append([]Problem(nil), e.problems...) }
