package protocol

import "encoding/json"

// Version is the protocol version. The host sends the version it speaks in
// initialize; the server refuses any other with CodeVersionMismatch, so a
// bridge and a binary from different releases fail clearly instead of
// misreading each other.
const Version = 1

// Methods the host calls (requests unless marked as a notification).
const (
	MethodInitialize        = "initialize"
	MethodShutdown          = "shutdown"
	MethodExit              = "exit" // notification
	MethodSkillsUpdate      = "skills/update"
	MethodSkillLoad         = "skill/load"
	MethodToolCall          = "tool_call"
	MethodUserPrompt        = "user_prompt"
	MethodBeforeRequest     = "before_request"
	MethodSessionRestore    = "session/restore"
	MethodCommand           = "command"
	MethodRunStart          = "run/start"
	MethodRunEnd            = "run/end"
	MethodModelChanged      = "model/changed"
	MethodModelSwitchFailed = "model/switchFailed" // notification or request
)

// Notifications the server sends to the host. Each is sent before the
// response to the request that caused it, on the same stream, so the host
// sees them in order.
const (
	NotifyNotify      = "host/notify"
	NotifyAppendEntry = "host/appendEntry"
	NotifySetModel    = "host/setModel"
)

// EntryType is the customType of the session entries the host appends for
// NotifyAppendEntry and hands back in session/restore.
const EntryType = "skill-lifecycle"

// JSON-RPC error codes. The standard ones come from the JSON-RPC 2.0
// specification; the rest are in the range it leaves to servers.
const (
	CodeParseError      = -32700
	CodeInvalidRequest  = -32600
	CodeMethodNotFound  = -32601
	CodeInvalidParams   = -32602
	CodeInternalError   = -32603
	CodeNotInitialized  = -32002 // a call before initialize
	CodeShutDown        = -32003 // a call after shutdown
	CodeVersionMismatch = -32004 // initialize with another protocol version
	CodeAlreadyInit     = -32005 // a second initialize
)

// HostSkill is one skill as the host resolved it.
type HostSkill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Path is the absolute path of the skill's SKILL.md (or root .md file).
	Path string `json:"path"`
	// DisableModelInvocation hides the skill from the listing; the host
	// still expands it on an explicit command.
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
}

// SkillsUpdateParams replaces the host's skill list (after a reload).
type SkillsUpdateParams struct {
	Skills []HostSkill `json:"skills"`
}

// SkillsUpdateResult carries the new system-prompt section.
type SkillsUpdateResult struct {
	SystemPromptSection string   `json:"systemPromptSection"`
	Diagnostics         []string `json:"diagnostics,omitempty"`
}

// SkillLoadParams asks for a skill's body, as the skill tool does.
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

// ToolCallResult says whether to block the call; Reason is shown to the
// model in place of the tool's output.
type ToolCallResult struct {
	Block  bool   `json:"block"`
	Reason string `json:"reason,omitempty"`
	// Skill names the skill whose file the call would have read.
	Skill string `json:"skill,omitempty"`
}
