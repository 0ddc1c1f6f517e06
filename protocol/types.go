package protocol

import "github.com/skill-lifecycle/skill-lifecycle/host"

// Version is the protocol version. The host sends the version it speaks in
// initialize; the server refuses any other with CodeVersionMismatch, so a
// bridge and a binary from different releases fail clearly instead of
// misreading each other.
const Version = 1

// Notifications the server sends to the host. Each is sent before the
// response to the request that caused it, on the same stream, so the host
// sees them in order.
const (
	NotifyNotify      = "host/notify"
	NotifyAppendEntry = "host/appendEntry"
	NotifySetModel    = "host/setModel"
	NotifyLine        = "host/line"
)

// EntryType is the customType of the session entries the host appends for
// NotifyAppendEntry and hands back in session/restore.
const EntryType = host.RecordType

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

// The params and results of the methods: package host's types, named as
// the wire names them (docs/protocol.md).
type (
	HostSkill               = host.HostSkill
	HostModel               = host.HostModel
	HostInfo                = host.HostInfo
	ModelRef                = host.ModelRef
	PromptCache             = host.PromptCache
	InitializeParams        = host.InitializeParams
	InitializeResult        = host.InitializeResult
	ToolSpec                = host.ToolSpec
	CommandSpec             = host.CommandSpec
	SkillsUpdateParams      = host.SkillsUpdateParams
	SkillsUpdateResult      = host.SkillsUpdateResult
	SkillLoadParams         = host.SkillLoadParams
	SkillLoadResult         = host.SkillLoadResult
	ToolCallParams          = host.ToolCallParams
	ToolCallResult          = host.ToolCallResult
	ToolResultParams        = host.ToolResultParams
	ToolResultResult        = host.ToolResultResult
	ResultBody              = host.ResultBody
	UserPromptParams        = host.UserPromptParams
	UserPromptResult        = host.UserPromptResult
	SkillSearchParams       = host.SkillSearchParams
	SkillSearchResult       = host.SkillSearchResult
	LoadRef                 = host.LoadRef
	BeforeRequestParams     = host.BeforeRequestParams
	BeforeRequestResult     = host.BeforeRequestResult
	UsageParams             = host.UsageParams
	Replacement             = host.Replacement
	SessionRestoreParams    = host.SessionRestoreParams
	SessionRestoreResult    = host.SessionRestoreResult
	SessionCompactParams    = host.SessionCompactParams
	SessionCompactResult    = host.SessionCompactResult
	ReattachRef             = host.ReattachRef
	ModelChangedParams      = host.ModelChangedParams
	ModelSwitchFailedParams = host.ModelSwitchFailedParams
	CommandParams           = host.CommandParams
	CommandResult           = host.CommandResult
	NotifyParams            = host.NotifyParams
	AppendEntryParams       = host.AppendEntryParams
	SetModelParams          = host.SetModelParams
	LineParams              = host.LineParams
)

// ToolName is the name of the tool that loads a skill's instructions;
// ReattachType the customType of the message holding the re-attached
// bodies after a compaction; HintType the customType of the message
// holding a hint.
const (
	ToolName     = host.ToolName
	ReattachType = host.ReattachType
	LineType     = host.LineType
	HintType     = host.HintType
)
