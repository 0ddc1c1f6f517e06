package lifecycle

import (
	"time"

	"github.com/skill-lifecycle/skill-lifecycle/models"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
	"github.com/skill-lifecycle/skill-lifecycle/skills"
)

// LoadKind is how a body came into the context.
type LoadKind string

// Load kinds.
const (
	ByTool    LoadKind = "tool"    // the skill tool returned it
	ByRead    LoadKind = "read"    // the model read the SKILL.md directly
	ByCommand LoadKind = "command" // a /skill:name expansion in a user message
)

// Load is one skill body arriving in the context.
type Load struct {
	// ID names what holds the body: the tool call id (tool, read) or the
	// user message id (command). It is what Archived() is keyed by.
	ID    string   `json:"id"`
	Skill string   `json:"skill"`
	Size  int64    `json:"size"` // characters (or bytes) of the body, for figures
	Kind  LoadKind `json:"kind"`
	Hash  string   `json:"hash,omitempty"` // content hash of the body, for dedupe
}

// Resource is a file of a skill's folder other than its SKILL.md (a
// reference, an asset) that the model read into the context, by a tool
// call whose result holds it. The file belongs to the latest live copy of
// the skill's body and is archived and unarchived with it
// (archiveResources); read while no copy is live, it goes with the first
// copy live at a request that carries it.
type Resource struct {
	ID    string `json:"id"` // the read's tool call id
	Skill string `json:"skill"`
	Path  string `json:"path,omitempty"` // as the model read it, for the placeholder
	Size  int64  `json:"size,omitempty"`
}

// SkillInfo is what the engine knows of one installed skill.
type SkillInfo struct {
	Name        string
	Description string
	Role        skills.Role // declared with metadata.role
	// Calls lists the skills this skill's body tells the model to load
	// (relevance's cross-references; "Do not load X" is not a call).
	Calls []string
	// Names lists every skill this skill's body names (relevance's
	// cross-references), whether or not it says to load it.
	Names []string
	// ModelTier is the skill's metadata.modelTier as written ("" if none).
	ModelTier string
}

// Catalog is the installed skills as the engine sees them.
type Catalog struct {
	Skills []SkillInfo
	// InferredEntry is the entry skill inferred from cross-references
	// ("" when none); it counts only with inferEntrySkill and when no entry
	// is configured or declared.
	InferredEntry string
	// Inferred lists, folder by folder, the entry skill inferred in each
	// folder of skills that declares none.
	Inferred []string
	Ranker   rules.Ranker
}

// Action is what a decision does.
type Action string

// Actions. The host appends every decision to the session as a record;
// it acts on ActArchive (replace the body with Placeholder) and
// ActUnarchive (send the body again); the others are bookkeeping it may
// show (pins, switching on and off) or ignore.
const (
	ActLoad      Action = "load"      // a body was loaded (record only)
	ActResource  Action = "resource"  // file ID of Skill now goes with body Of (record only)
	ActForget    Action = "forget"    // body ID never reached the context: dropped (record only)
	ActArchive   Action = "archive"   // replace body ID with Placeholder from now on
	ActUnarchive Action = "unarchive" // stop replacing body ID
	ActPin       Action = "pin"       // the user pinned Skill
	ActUnpin     Action = "unpin"     // the user unpinned Skill
	ActEnabled   Action = "enabled"   // archiving switched on or off (On)
	ActRun       Action = "run"       // agent run number Run started (record only)
	ActTopic     Action = "topic"     // the topic reference for same-topic skips (record only)
	ActOrphan    Action = "orphan"    // the agent used the files of archived body ID's Skill; it was told (record only)
	ActHint      Action = "hint"      // a line after the prompt named Skill (record only)

	// Model tiers (docs/models.md). The host carries out ActModel and
	// ActModelRestore: set Model.Provider/Model.Model, then, when
	// Model.Thinking is set, the thinking level. ActModelReport is a
	// problem to show the user once; ActModelNote a decision that needs no
	// host call (shown when verbose). ActModelState carries the tier
	// machine's state for Restore (record only).
	// Cache-aware archiving (rules.CacheAware): a body the rules drop is
	// first marked due, and archived (ActArchive, with Timing) at a model
	// request when that pays; ActUndue is a due body kept after all.
	ActDue   Action = "due"   // body ID is due for archive (record; the host changes nothing yet)
	ActUndue Action = "undue" // body ID is no longer due (record)

	ActModel        Action = "model"         // switch to Model
	ActModelRestore Action = "model-restore" // put Model back
	ActModelReport  Action = "model-report"  // a model problem, reported once
	ActModelNote    Action = "model-note"    // a model decision with nothing to do
	ActModelState   Action = "model-state"   // the tier machine's state (record only)

	ActCacheLifetime Action = "cache-lifetime" // what the usage taught of the cache lifetime (record only)
)

// RecordVersion is the version of the Decision format written in V.
const RecordVersion = 1

// Decision is one thing the engine decided or noted. Every decision is
// also the record the host appends to the session (as JSON); Restore
// rebuilds the engine's state from the recorded list. Fields not used by an
// action are left out of the JSON.
type Decision struct {
	V      int      `json:"v"`
	Action Action   `json:"action"`
	ID     string   `json:"id,omitempty"`    // load, archive, unarchive
	Skill  string   `json:"skill,omitempty"` // load, archive, unarchive, pin, unpin
	Size   int64    `json:"size,omitempty"`  // load
	Kind   LoadKind `json:"kind,omitempty"`  // load
	Hash   string   `json:"hash,omitempty"`  // load
	// Path and Of are a resource's file and the body it goes with
	// (resource).
	Path string `json:"path,omitempty"`
	Of   string `json:"of,omitempty"`
	// Resources are the files that go (archive) or come back (unarchive)
	// with the body: the host replaces each by its Placeholder too.
	Resources []ResourceChange `json:"resources,omitempty"`
	// Run is the agent run a load belongs to (load) or that started (run).
	Run         int           `json:"run,omitempty"`
	Reason      *rules.Reason `json:"reason,omitempty"`      // archive, unarchive
	Placeholder string        `json:"placeholder,omitempty"` // archive
	On          *bool         `json:"on,omitempty"`          // enabled
	Topic       []string      `json:"topic,omitempty"`       // topic
	// Request is the number of model requests made so far (due, and
	// archive under cache-aware archiving).
	Request int `json:"request,omitempty"`
	// Timing is why a due body is archived at this request (archive under
	// cache-aware archiving), with the cost figures.
	Timing *rules.Timing `json:"timing,omitempty"`
	// Model is the model decision (model, model-restore, model-report,
	// model-note).
	Model *ModelChange `json:"model,omitempty"`
	// ModelState is the tier machine's state after the event (model-state).
	ModelState *models.State `json:"modelState,omitempty"`
	// CacheLifetime is what the session has learned of the provider's
	// cache lifetime from its usage (cache-lifetime).
	CacheLifetime *rules.Lifetime `json:"cacheLifetime,omitempty"`
	// Hint is the match a hint named Skill for (hint).
	Hint *HintScore `json:"hint,omitempty"`
}

// HintScore is why a hint named its skill: the skill's relevance score
// for the prompt and the runner-up's (0: none).
type HintScore struct {
	Score float64 `json:"score"`
	Next  float64 `json:"next,omitempty"`
}

// ChangesArchived reports whether d changes what the host replaces
// (Engine.Archived): an archive, an unarchive, or a forget (of a body
// that may have been archived).
func (d Decision) ChangesArchived() bool {
	return d.Action == ActArchive || d.Action == ActUnarchive || d.Action == ActForget
}

// ResourceChange is one file archived or unarchived with a body: its id,
// and for an archive the placeholder that replaces it.
type ResourceChange struct {
	ID          string `json:"id"`
	Placeholder string `json:"placeholder,omitempty"`
}

// ModelChange is a model decision as the host carries it out and the user
// reads it: the model to set (for model and model-restore), the one it
// replaces when known, and why.
type ModelChange struct {
	Provider string               `json:"provider,omitempty"`
	Model    string               `json:"model,omitempty"`
	Thinking models.ThinkingLevel `json:"thinking,omitempty"`
	From     *models.Selection    `json:"from,omitempty"`
	Cause    models.Cause         `json:"cause"`
	Message  string               `json:"message"`
}

// Record is a Decision as stored in the session.
type Record = Decision

// Request describes the model request about to be sent (BeforeRequest),
// as cache-aware archiving needs it. Offsets and sizes are in one unit,
// characters or tokens, as the host counts them (CharsPerUnit says which);
// they describe the request as it would be sent with the bodies archived
// so far (before this call's decisions).
type Request struct {
	// SincePrevious is the time since the previous model request; 0 when
	// unknown or for the first one.
	SincePrevious time.Duration `json:"sincePrevious,omitempty"`
	// CacheCold says the provider's prompt cache is known to be cold: after
	// compaction, or for the first request of a process that cannot know
	// better. (A host that stopped keeping it warm says CacheStopped: the
	// cache may still be warm until its lifetime has run.)
	CacheCold bool `json:"cacheCold,omitempty"`
	// CacheWarm says the host kept the prompt cache warm since the previous
	// request (Pi 1.6 refreshes it while idle: cache_warming_decision with
	// action "warm"), so a pause longer than the cache lifetime does not
	// make it cold. CacheCold wins when both are set.
	CacheWarm bool `json:"cacheWarm,omitempty"`
	// CacheStopped says the host decided to stop keeping the cache warm
	// during the pause (Pi 1.6's cache_warming_decision "stop", taken
	// shortly before the lifetime runs out): the cache is then cold for
	// certain once the pause, counted from the last refresh if any
	// (SinceWarmed), passes the lifetime, and still warm before.
	CacheStopped bool `json:"cacheStopped,omitempty"`
	// SinceWarmed is, with CacheWarm or CacheStopped, the time since the host last
	// refreshed the cache (0: unknown). Pi stops refreshing without a word
	// after 30 idle minutes, so a refresh older than the lifetime no
	// longer keeps the cache warm: the pause then counts from it.
	SinceWarmed time.Duration `json:"sinceWarmed,omitempty"`
	// ModelChanged says this request goes to another model than the
	// previous one (caches are per model: the cache is cold).
	ModelChanged bool `json:"modelChanged,omitempty"`
	// Number is this request's 1-based number in the session (the branch);
	// 0 lets the engine count (a count that restarts from the records
	// after a restore).
	Number int `json:"number,omitempty"`
	// Bodies gives the position of each skill body in the request, by load
	// id. A due body missing from a non-empty list is not in the context
	// (compacted away) and is archived at no cost; with an empty list the
	// positions are unknown.
	Bodies []BodyPosition `json:"bodies,omitempty"`
	// Index, when set, is where each id of Bodies is in it, every id
	// once: the engine looks the bodies it weighs up there instead of
	// walking Bodies (a host that keeps it between requests).
	Index map[string]int `json:"-"`
	// Total is the size of the whole request.
	Total int64 `json:"total,omitempty"`
	// Previous is the size of the previous request as it was sent, in
	// the units of Total (Pi's bridge: where the previous response starts
	// in this request's context). The usage the provider reports for this
	// request (PreviousUsage of the next one) is read against it. 0:
	// unknown; the engine then uses the size of the previous request it
	// saw itself, if any (none after a restart).
	Previous int64 `json:"previous,omitempty"`
	// ChangedFrom is the offset of the earliest part of the request that
	// differs from the previous request, when the host knows of such a
	// change (0: none known).
	ChangedFrom int64 `json:"changedFrom,omitempty"`
	// CharsPerUnit is how many characters one unit is (0 or 1: the unit
	// is the character; about 4 for tokens), to size placeholders.
	CharsPerUnit float64 `json:"charsPerUnit,omitempty"`
	// Cache is what the host knows of the prompt cache of the model this
	// request goes to (its prices, its declared lifetime); with
	// cacheAware.fromModel it wins over the configured figures. nil:
	// nothing known.
	Cache *rules.ModelCache `json:"cache,omitempty"`
	// PreviousUsage is the usage the provider reported for the previous
	// request (Pi: the usage of the last assistant message), from which
	// the engine learns whether a pause left the cache cold
	// (cacheAware.learnFromUsage). nil: not known.
	PreviousUsage *rules.Usage `json:"previousUsage,omitempty"`
}

// BodyPosition is where one body sits in a request: Offset units before
// it, Size units long.
type BodyPosition struct {
	ID     string `json:"id"`
	Offset int64  `json:"offset"`
	Size   int64  `json:"size"`
}

// Due is a body's mark while it waits for cache-aware archiving.
type Due struct {
	// Reason is the relevance decision that dropped it.
	Reason rules.Reason `json:"reason"`
	// Run is the user turn in which it became due; Request the number of
	// requests made before.
	Run     int `json:"run"`
	Request int `json:"request"`
}

// Body is the state of one loaded body.
type Body struct {
	ID          string        `json:"id"`
	Skill       string        `json:"skill"`
	Size        int64         `json:"size"`
	Kind        LoadKind      `json:"kind"`
	Hash        string        `json:"hash,omitempty"`
	Run         int           `json:"run"`
	Archived    bool          `json:"archived"`
	Reason      *rules.Reason `json:"reason,omitempty"` // why it was archived
	Placeholder string        `json:"placeholder,omitempty"`
	// Due is set while the body waits for cache-aware archiving.
	Due *Due `json:"due,omitempty"`
	// Timing is why it was archived when it was (cache-aware archiving).
	Timing *rules.Timing `json:"timing,omitempty"`
	// Resources are the files of the skill's folder that go with this
	// copy of the body, in the order they were read.
	Resources []Resource `json:"resources,omitempty"`
	// Routed says this copy of the entry skill's body was due because it
	// had routed (cacheAware.releaseRoutedEntry); each copy is weighed
	// once.
	Routed bool `json:"routed,omitempty"`
}

// State is everything the records restore: the bodies in load order, the
// user's pins and unpins, the switch, the topic reference, the number of
// the last agent run and the model tiers' state.
type State struct {
	Bodies  []Body          `json:"bodies"`
	Pins    map[string]bool `json:"pins"`              // true: pinned by the user; false: unpinned
	Enabled *bool           `json:"enabled,omitempty"` // set by SetEnabled, overriding the config
	Topic   []string        `json:"topic"`             // nil: no prompt judged yet
	Run     int             `json:"run"`
	// Models is the tier machine's state (its InRun is left false: whether
	// a run is in progress is not restored; see Engine.InRun).
	Models models.State `json:"models"`
}

// Problem is a record Restore could not use, or used only in part.
type Problem struct {
	Index   int    `json:"index"` // position in the records
	Message string `json:"message"`
	// Applied says the record was still applied, as far as the engine
	// understands it (a record of a newer version); otherwise it was
	// skipped.
	Applied bool `json:"applied,omitempty"`
}
