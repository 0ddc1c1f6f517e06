package host

import (
	"encoding/json"

	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/rules"
)

// The params and results of the session's events, as the protocol carries
// them (docs/protocol.md); package protocol names them on the wire.

// HostSkill is one skill as the host resolved it.
type HostSkill struct {
	Name string `json:"name"`
	// Description is the one the model is shown; empty (the bridge sends
	// none: at 100,000 skills they were 60% of a 35 MB initialize), the
	// one of the skill's file, read as the world is built.
	Description string `json:"description,omitempty"`
	// Path is the absolute path of the skill's SKILL.md (or root .md file).
	Path string `json:"path"`
	// DisableModelInvocation hides the skill from the listing (as does
	// its file's own flag); the host still expands it on an explicit
	// command.
	DisableModelInvocation bool `json:"disableModelInvocation,omitempty"`
}

// ModelRef names one model of the host's registry.
type ModelRef struct {
	Provider string `json:"provider"`
	ID       string `json:"id"`
}

// HostModel is one model of the host's registry with its prices in dollars
// per million tokens (absent when unknown).
type HostModel struct {
	Provider      string   `json:"provider"`
	ID            string   `json:"id"`
	Name          string   `json:"name,omitempty"`
	Input         *float64 `json:"input,omitempty"`
	Output        *float64 `json:"output,omitempty"`
	CacheRead     *float64 `json:"cacheRead,omitempty"`
	CacheWrite    *float64 `json:"cacheWrite,omitempty"`
	ContextWindow int      `json:"contextWindow,omitempty"`
	Reasoning     bool     `json:"reasoning,omitempty"`
	Thinking      []string `json:"thinkingLevels,omitempty"`
	// PromptCache is the best-effort prompt-cache lifetime in seconds the
	// host declares for the model, per retention tier (Pi 1.6's
	// promptCache); absent when it declares none.
	PromptCache *PromptCache `json:"promptCache,omitempty"`
	// HasAuth is false when the host knows the model has no credentials.
	HasAuth *bool `json:"hasAuth,omitempty"`
}

// PromptCache is a model's declared prompt-cache lifetime in seconds, per
// retention tier (0: none declared).
type PromptCache struct {
	Short float64 `json:"short,omitempty"`
	Long  float64 `json:"long,omitempty"`
}

// HostInfo identifies the host program.
type HostInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// InitializeParams opens a session.
type InitializeParams struct {
	ProtocolVersion int      `json:"protocolVersion"`
	Host            HostInfo `json:"host"`
	// Cwd is the working directory, AgentDir the host's agent folder
	// (Pi: ~/.pi/agent or PI_CODING_AGENT_DIR).
	Cwd      string `json:"cwd"`
	AgentDir string `json:"agentDir"`
	// Trusted says whether the user trusted the project, so that its
	// .pi/skill-lifecycle.json may apply (the file is not opened
	// otherwise); absent (null) for a host that cannot tell, in which case
	// the user file's trustProjectConfig decides (default false).
	Trusted       *bool       `json:"trusted,omitempty"`
	Skills        []HostSkill `json:"skills"`
	Models        []HostModel `json:"models"`
	CurrentModel  *ModelRef   `json:"currentModel,omitempty"`
	ThinkingLevel string      `json:"thinkingLevel,omitempty"`
	// CacheRetention is the prompt-cache retention tier the host asks
	// providers for: "short" (the default) or "long" (Pi:
	// PI_CACHE_RETENTION=long). It picks the tier of each model's
	// PromptCache.
	CacheRetention string `json:"cacheRetention,omitempty"`
}

// ToolSpec describes the skill tool the host registers.
type ToolSpec struct {
	Name        string          `json:"name"`
	Label       string          `json:"label"`
	Description string          `json:"description"`
	Snippet     string          `json:"promptSnippet"`
	Parameters  json.RawMessage `json:"parameters"`
}

// CommandSpec describes one slash command the host registers; the host
// forwards its invocations with the command method.
type CommandSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// InitializeResult answers initialize.
type InitializeResult struct {
	ProtocolVersion int    `json:"protocolVersion"`
	ServerVersion   string `json:"serverVersion"`
	// SystemPromptSection replaces the host's own skills section. It is the
	// same for every turn of the session (until skills/update).
	SystemPromptSection string        `json:"systemPromptSection"`
	Tool                ToolSpec      `json:"tool"`
	Commands            []CommandSpec `json:"commands"`
	// Diagnostics are problems found in the skills or the configuration, one
	// sentence each, for the host to show once.
	Diagnostics []string `json:"diagnostics,omitempty"`
	// ArchiveVia is the configuration's `archiveVia`: how the host applies
	// the archive lists of before_request (rules.ArchiveViaHook, ...).
	ArchiveVia string `json:"archiveVia"`
}

// SkillsUpdateParams replaces the host's skill list (after a reload).
type SkillsUpdateParams struct {
	Skills []HostSkill `json:"skills"`
}

// SkillsUpdateResult carries the new system-prompt section.
type SkillsUpdateResult struct {
	SystemPromptSection string   `json:"systemPromptSection"`
	Diagnostics         []string `json:"diagnostics,omitempty"`
	// Pending: the new world is still being read; the section is the
	// one in use, and a later user_prompt answer brings the new one.
	Pending bool `json:"pending,omitempty"`
}

// SkillLoadParams asks for a skill's body, as the skill tool does (a
// query without a name is a skill/search).
type SkillLoadParams struct {
	Name string `json:"name"`
	// CallID is the host's id for this tool call; the load is known by it
	// in before_request.
	CallID string `json:"callId,omitempty"`
}

// SkillLoadResult is the tool's answer. When Found is false, Text says the
// skill is unknown and lists the available ones.
type SkillLoadResult struct {
	Found   bool     `json:"found"`
	Name    string   `json:"name,omitempty"`
	Text    string   `json:"text"`
	BaseDir string   `json:"baseDir,omitempty"`
	Files   []string `json:"files,omitempty"`
	// Hash is the SHA-256 of the delivered body, hex.
	Hash string `json:"hash,omitempty"`
	// AlreadyLoaded says the identical body is visible in the context
	// (dedupe "already-loaded"): Text is a short note saying so instead of
	// the body, and the host must not count the answer as a load.
	AlreadyLoaded bool `json:"alreadyLoaded,omitempty"`
}

// ToolCallParams describes a host tool call about to run.
type ToolCallParams struct {
	ToolName string          `json:"toolName"`
	CallID   string          `json:"callId,omitempty"`
	Input    json.RawMessage `json:"input"`
	// Cwd resolves relative paths; the session's cwd when empty.
	Cwd string `json:"cwd,omitempty"`
}

// ToolResultParams is a host tool's result before the model sees it: the
// call (as in ToolCallParams) and the text of its output.
type ToolResultParams struct {
	ToolName string          `json:"toolName"`
	CallID   string          `json:"callId,omitempty"`
	Input    json.RawMessage `json:"input"`
	Cwd      string          `json:"cwd,omitempty"`
	Text     string          `json:"text"`
	IsError  bool            `json:"isError,omitempty"`
}

// ToolResultResult says what the result holds: Body, a known skill body
// (the host lists the result as a load of kind read, with its hash), and
// Note, one line to add to the result (an archived skill's files used).
type ToolResultResult struct {
	Body *ResultBody `json:"body,omitempty"`
	Note string      `json:"note,omitempty"`
	// Quiet is BeforeRequestResult's, after this result.
	Quiet bool `json:"quiet,omitempty"`
}

// ResultBody is a skill body found whole in a tool's output.
type ResultBody struct {
	Skill string `json:"skill"`
	Hash  string `json:"hash"`
}

// ToolCallResult says whether to block the call; Reason is shown to the
// model in place of the tool's output (package guard decides).
type ToolCallResult struct {
	Block  bool   `json:"block"`
	Reason string `json:"reason,omitempty"`
	// Skill names the skill whose file the call would have read.
	Skill string `json:"skill,omitempty"`
}

// UserPromptParams is the prompt the user sent (after the host expanded
// commands such as /skill:name).
type UserPromptParams struct {
	Text string `json:"text"`
}

// LoadRef is one skill body the host sees in the context it is about to
// send: its id (the tool call id, or for a /skill:name block an id the host
// derives from its user message), the skill, how it arrived and its size in
// characters (UTF-16 code units, as the host counts them; so are offsets
// and totals). The body itself is never sent. Today the bridge finds the
// loads; a context model fed with the bridge's messages is to build the
// same list in Go (replay builds it from a recorded session already).
type LoadRef struct {
	ID    string             `json:"id"`
	Skill string             `json:"skill"`
	Kind  lifecycle.LoadKind `json:"kind"`
	Size  int64              `json:"size"`
	Hash  string             `json:"hash,omitempty"`
	// Path is, for a file of a skill's folder (kind "resource"), the path
	// the model read it by.
	Path string `json:"path,omitempty"`
	// Offset is the number of characters before the body in the request as
	// the host would send it without any replacement (system prompt
	// included); only meaningful when BeforeRequestParams.Total is set.
	Offset int64 `json:"offset,omitempty"`
}

// KindResource is the kind of a LoadRef that is no body but a file of a
// skill's folder other than SKILL.md (a reference, an asset) that the model
// read: it goes with the skill's body (lifecycle.Resource).
const KindResource lifecycle.LoadKind = "resource"

// BeforeRequestParams lists the loads in the next model request, in
// context order, with the files of skills' folders the model read.
type BeforeRequestParams struct {
	// From is the number of leading messages unchanged since the previous
	// before_request (0: a full resync, after a start, a restart, a
	// compaction or any change the host cannot prove is an append), and
	// Messages the messages from index From on, as the host will send
	// them. Set, the sidecar finds the loads (Loads stays empty) and
	// answers with a change set.
	From     int       `json:"from,omitempty"`
	Messages []Message `json:"messages,omitempty"`
	// SystemPromptSize is the system prompt's size in UTF-16 units, with
	// Messages: the offset of the first message.
	SystemPromptSize int64 `json:"systemPromptSize,omitempty"`
	// Cwd resolves the relative paths of reads, with Messages; the
	// session's cwd when empty.
	Cwd string `json:"cwd,omitempty"`
	// Places asks, with Messages, for the places of the loads found in
	// the answer (a host that edits its session: Pi 1.6's context edits).
	Places bool `json:"places,omitempty"`
	// Loads are the loads the request carries, for a host that finds them
	// itself (replay; Messages unset).
	Loads []LoadRef `json:"loads,omitempty"`
	// SincePreviousMs is the time since the previous model request (0 for
	// the first or when unknown); CacheCold says the provider's prompt
	// cache is known to be cold (a model switch, a compaction, an expired
	// cache lifetime).
	SincePreviousMs int64 `json:"sincePreviousMs,omitempty"`
	CacheCold       bool  `json:"cacheCold,omitempty"`
	// CacheWarm says the host kept the cache warm since the previous
	// request (Pi 1.6's idle refreshes): a long pause is then no sign of a
	// cold cache.
	CacheWarm bool `json:"cacheWarm,omitempty"`
	// CacheStopped says the host stopped keeping the cache warm during
	// the pause (Pi 1.6's cache_warming_decision "stop"): the lifetime
	// decides, counted from the last refresh when there was one.
	CacheStopped bool `json:"cacheStopped,omitempty"`
	// SinceWarmedMs is, with cacheWarm or cacheStopped, the time since the host's last
	// refresh (0: unknown): Pi stops refreshing silently after 30 idle
	// minutes, so an old refresh no longer keeps the cache warm.
	SinceWarmedMs int64 `json:"sinceWarmedMs,omitempty"`
	// ModelChanged says this request goes to another model than the
	// previous one.
	ModelChanged bool `json:"modelChanged,omitempty"`
	// Total is the size in characters of the whole request without any
	// replacement; 0 when the host does not give positions.
	Total int64 `json:"total,omitempty"`
	// ChangedFrom is the offset of the earliest part of the request that
	// differs from the previous one, when the host knows (0: none known),
	// in the request without replacements like Offset.
	ChangedFrom int64 `json:"changedFrom,omitempty"`
	// PreviousUsage is the token usage the provider reported for the
	// previous request (Pi: the last assistant message's usage), from
	// which the engine learns whether a pause left the cache cold.
	PreviousUsage *UsageParams `json:"previousUsage,omitempty"`
	// PreviousSize is the offset of the previous response in this request
	// without any replacement (what the previous request held), in the
	// units of Total; 0: unknown.
	PreviousSize int64 `json:"previousSize,omitempty"`
}

// UsageParams is a provider's token usage for one request, as the host
// reports it (numbers, not necessarily whole).
type UsageParams struct {
	Input      float64 `json:"input"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
}

// usage converts u for the engine; nil when u is missing or holds a
// negative, non-finite or absurd figure.
func (u *UsageParams) usage() *rules.Usage {
	sane := func(v float64) bool { return v >= 0 && v <= 1e12 }
	if u == nil || !sane(u.Input) || !sane(u.CacheRead) || !sane(u.CacheWrite) {
		return nil
	}
	return &rules.Usage{Input: int64(u.Input), CacheRead: int64(u.CacheRead), CacheWrite: int64(u.CacheWrite)}
}

// Replacement is one body to replace by its placeholder.
type Replacement struct {
	ID          string `json:"id"`
	Placeholder string `json:"placeholder"`
}

// BeforeRequestResult says which of the listed loads to replace
// (Archive), or, to a host that sent its messages, what changes in the
// replacements it holds and applies to every request: with Reset, drop
// them all first; then take each of Set, and drop each of Clear.
type BeforeRequestResult struct {
	Archive []Replacement `json:"archive,omitempty"`
	Reset   bool          `json:"reset,omitempty"`
	Set     []Patch       `json:"set,omitempty"`
	Clear   []PatchKey    `json:"clear,omitempty"`
	// Status is a short line for the host's footer: the bodies loaded
	// and archived, and the context saved so far (lines.go).
	Status string `json:"status,omitempty"`
	// Places, when asked for, are what changes in the places of the
	// request's loads the host holds (in context order): with
	// PlacesReset, drop them all first; then take each of Places (by
	// id), and drop the ids of PlacesClear.
	Places      []LoadPlace `json:"places,omitempty"`
	PlacesReset bool        `json:"placesReset,omitempty"`
	PlacesClear []string    `json:"placesClear,omitempty"`
	// Quiet says the next request changes nothing of this answer but
	// Status when it only appends plain messages (Session.Quiet).
	Quiet bool `json:"quiet,omitempty"`
}

// LoadPlace is where a load of the request is: its message's index, its
// kind, and whether it is archived in this request.
type LoadPlace struct {
	ID       string             `json:"id"`
	Index    int                `json:"index"`
	Kind     lifecycle.LoadKind `json:"kind"`
	Archived bool               `json:"archived,omitempty"`
}

// SessionRestoreParams carries the data of every entry of EntryType on the
// session's current branch, oldest first.
type SessionRestoreParams struct {
	Records []json.RawMessage `json:"records"`
	// RequestCount is the number of model requests on the branch so far
	// (its assistant messages), when the host knows it.
	RequestCount *int `json:"requestCount,omitempty"`
}

// SessionRestoreResult reports the restore. Restored is the number of
// records applied, Problems names each record skipped or applied only in
// part (Applied: a newer version, applied as far as understood), one
// problem per record at most; so Restored is the number of records less
// the problems not Applied.
type SessionRestoreResult struct {
	Restored int                 `json:"restored"`
	Problems []lifecycle.Problem `json:"problems,omitempty"`
	// Archived is the number of bodies archived after the restore.
	Archived int `json:"archived"`
}

// ModelChangedParams reports a model the user or the host selected.
type ModelChangedParams struct {
	Model         ModelRef `json:"model"`
	ThinkingLevel string   `json:"thinkingLevel,omitempty"`
	// Source is how it changed ("set", "cycle", "restore"; empty when
	// unknown).
	Source string `json:"source,omitempty"`
}

// ModelSwitchFailedParams reports a switch the host could not make.
type ModelSwitchFailedParams struct {
	Provider string `json:"provider"`
	ID       string `json:"id"`
	Reason   string `json:"reason"`
}

// NotifyParams is a message for the user.
type NotifyParams struct {
	Level   string `json:"level"` // info, warning, error
	Message string `json:"message"`
}

// AppendEntryParams is a session entry for the host to append (never sent
// to the model).
type AppendEntryParams struct {
	CustomType string `json:"customType"`
	Data       any    `json:"data"`
}

// LineParams is one line for the session's transcript (host/line): an
// archive, a restore, a comeback or a model change. The host appends it
// as a custom entry of LineType, which is never sent to the model, and
// draws Text like its own status lines. The figures are estimates in
// tokens; RewriteUSD is 0 when the model's prices are unknown.
type LineParams struct {
	Kind          string   `json:"kind"` // archive, restore, comeback, model
	Text          string   `json:"text"`
	Skills        []string `json:"skills,omitempty"`
	Tokens        int64    `json:"tokens,omitempty"`        // context each later request saves (archive) or carries again
	RewriteTokens int64    `json:"rewriteTokens,omitempty"` // cached prefix written again by the change
	RewriteUSD    float64  `json:"rewriteUSD,omitempty"`    // what that rewrite costs over reading it
}

// LineType is the customType of the entries that hold the lines.
const LineType = "skill-lifecycle-line"

// SetModelParams asks the host to switch the model.
type SetModelParams struct {
	Provider      string `json:"provider"`
	ID            string `json:"id"`
	ThinkingLevel string `json:"thinkingLevel,omitempty"`
}

// SessionCompactParams describes a compaction the host made.
type SessionCompactParams struct {
	// ID names the compaction (Pi: the compaction entry's id).
	ID string `json:"id"`
	// Visible lists the ids of the loads still in the context after the
	// compaction (in the messages the host kept), as before_request would
	// list them.
	Visible []string `json:"visible"`
}

// ReattachRef is one body of the re-attach region: its load id (the id
// before_request lists it under, with kind "reattach"), skill, size in
// characters of its block, and hash.
type ReattachRef struct {
	ID    string `json:"id"`
	Skill string `json:"skill"`
	Size  int64  `json:"size"`
	Hash  string `json:"hash"`
	Cut   bool   `json:"cut,omitempty"`
}

// SessionCompactResult is the re-attach region to send after the summary:
// Text, one message holding each body in its <skill_content> block ("" when
// nothing is re-attached), the bodies in it, and the plan (every candidate
// with its outcome and why).
type SessionCompactResult struct {
	Text     string               `json:"text"`
	Bodies   []ReattachRef        `json:"bodies"`
	Plan     []rules.ReattachItem `json:"plan"`
	Archived int                  `json:"archived"`
}

// CommandParams is one /skills-* command as the user typed it: Name
// without the slash, Args the rest of the line.
type CommandParams struct {
	Name string `json:"name"`
	Args string `json:"args"`
	// SessionFile is the file the host records the session in (for
	// /skills-stats); empty when it keeps none.
	SessionFile string `json:"sessionFile,omitempty"`
}

// CommandResult is the text to show the user.
type CommandResult struct {
	Text string `json:"text"`
	// Level is "info", "warning" or "error".
	Level string `json:"level"`
}
