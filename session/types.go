package session

import (
	"fmt"
	"time"
)

// CurrentVersion is the session format version entries are migrated to.
const CurrentVersion = 3

// Entry types Pi writes. Other types are kept (Entry.Raw) and ignored by
// context building.
const (
	TypeMessage             = "message"
	TypeThinkingLevelChange = "thinking_level_change"
	TypeModelChange         = "model_change"
	TypeCompaction          = "compaction"
	TypeBranchSummary       = "branch_summary"
	TypeCustom              = "custom"
	TypeCustomMessage       = "custom_message"
	TypeLabel               = "label"
	TypeSessionInfo         = "session_info"
)

// Message roles found in message entries.
const (
	RoleUser          = "user"
	RoleAssistant     = "assistant"
	RoleToolResult    = "toolResult"
	RoleBashExecution = "bashExecution"
	RoleCustom        = "custom"
)

// Header is the first line of a session file.
type Header struct {
	// Version as written; 1 when the header has none (legacy files).
	Version       int
	ID            string
	Timestamp     string
	Cwd           string
	ParentSession string
	// Provider, ModelID and ThinkingLevel are legacy (v1) header fields.
	Provider, ModelID, ThinkingLevel string
	Line                             int // 0 when the file has no header
}

// Entry is one tree node of a session, after migration to version 3.
type Entry struct {
	Type string
	// ID and ParentID after migration: v1 entries get synthetic ids
	// ("L" + line number) chained in file order. ParentID is "" for a root.
	ID, ParentID string
	Timestamp    time.Time // zero when absent or unreadable
	Line         int       // 1-based line in the file

	Message *Message // TypeMessage

	// TypeCompaction: Summary, FirstKeptEntryID, TokensBefore.
	// TypeBranchSummary: Summary, FromID.
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	FromID           string

	// TypeCustomMessage and TypeCustom.
	CustomType string
	Content    string // custom_message content: its JSON as written
	Data       string // custom entry data: its JSON as written
	Display    bool

	// TypeModelChange.
	Provider, ModelID string
	// TypeThinkingLevelChange.
	ThinkingLevel string
	// TypeLabel.
	TargetID, Label string
	// TypeSessionInfo.
	Name string

	// Raw is the whole line, kept only for entry types this package does
	// not know.
	Raw string
}

// Message is the AgentMessage of a message entry. Content keeps the raw
// JSON as written (a string or an array of blocks); Blocks is its decoded
// form (a string content becomes one text block).
type Message struct {
	Role    string
	Content string // raw JSON as written
	Blocks  []Block

	// toolResult
	ToolCallID, ToolName string
	IsError              bool
	// LoadID is the id skill-lifecycle's bridge gave the result
	// (details.loadId): the name of a skill load or of a skill file read,
	// unique on the branch even when the provider reused tool call ids.
	LoadID string
	// SkillBody is the skill whose body the bridge found whole in the
	// result (details.skillBody.skill, tool_result): a load of kind read.
	SkillBody string

	// assistant
	API, Provider, Model string
	Usage                *Usage
	StopReason           string
	ErrorMessage         string

	// bashExecution
	Command, Output    string
	ExitCode           *int
	Cancelled          bool
	Truncated          bool
	FullOutputPath     string
	ExcludeFromContext bool

	// custom
	CustomType string
	Display    bool

	// Timestamp in Unix milliseconds, 0 when absent.
	Timestamp int64
}

// Block is one content block.
type Block struct {
	Type string // text, thinking, image, toolCall, or another type kept as is

	Text              string // text
	Thinking          string // thinking
	ThinkingSignature string
	Redacted          bool

	ID, Name  string // toolCall
	Arguments string // toolCall: the arguments' JSON as written

	Data, MimeType string // image
}

// Usage is the provider usage recorded on an assistant message.
type Usage struct {
	Input, Output, CacheRead, CacheWrite, TotalTokens int
	Cost                                              Cost
	HasCost                                           bool
}

// Cost is the recorded cost of a request, in USD.
type Cost struct {
	Input, Output, CacheRead, CacheWrite, Total float64
}

// Diagnostic is one problem met while reading a session file. Reading goes
// on after every diagnostic.
type Diagnostic struct {
	File    string `json:"file"`
	Line    int    `json:"line"` // 1-based, 0 when it concerns the whole file
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (d Diagnostic) String() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", d.File, d.Line, d.Code, d.Message)
	}
	return fmt.Sprintf("%s: %s: %s", d.File, d.Code, d.Message)
}

// Diagnostic codes.
const (
	CodeBadJSON       = "bad-json"       // a line that does not parse
	CodeNoType        = "no-type"        // a JSON object without a type (not an entry), skipped
	CodeTruncated     = "truncated"      // last line without newline that does not parse
	CodeLineTooLong   = "line-too-long"  // a line longer than the reader's limit
	CodeNoHeader      = "no-header"      // first line is not a session header
	CodeBadField      = "bad-field"      // a known field of the wrong type
	CodeDuplicateID   = "duplicate-id"   // two entries with the same id (the later wins, as in Pi)
	CodeMissingParent = "missing-parent" // parentId names no entry: the entry becomes a root
	CodeCycle         = "cycle"          // parentId chain loops
	CodeMissingID     = "missing-id"     // an entry of a v2/v3 file without id
	CodeBadCompaction = "bad-compaction" // compaction whose first kept entry cannot be found
	CodeUnknownType   = "unknown-type"   // kept, not used
)
