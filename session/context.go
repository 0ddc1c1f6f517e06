package session

import (
	"strconv"
	"strings"
)

// Texts Pi wraps summaries in when it sends them to the model (as user
// messages), from its messages.ts.
const (
	CompactionSummaryPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	CompactionSummarySuffix = "\n</summary>"
	BranchSummaryPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	BranchSummarySuffix     = "</summary>"
)

// Source kinds of a context message.
const (
	FromMessage       = "message"
	FromCompaction    = "compaction"
	FromBranchSummary = "branch_summary"
	FromCustomMessage = "custom_message"
)

// ContextMessage is one message as the model sees it (after Pi's
// convertToLlm): Message.Role is user, assistant or toolResult. Summaries,
// custom messages and bash executions become user messages with one text
// block; Entry is the entry it comes from.
type ContextMessage struct {
	Entry   *Entry
	Kind    string
	Message *Message
}

// ModelRef names a model as Pi does: provider and id.
type ModelRef struct{ Provider, ID string }

// ContextBuilder rebuilds, entry by entry along a branch, the context Pi
// would send: Step applies the next entry of the path; Messages is the
// context made of the entries applied so far. A compaction entry replaces
// the context by its summary, the kept entries (from firstKeptEntryId up
// to the compaction) and what follows, as Pi's buildSessionContext does.
type ContextBuilder struct {
	path          []*Entry
	pos           int
	msgs          []ContextMessage
	Model         ModelRef
	ThinkingLevel string
	Compactions   int // compactions applied so far
}

// NewContextBuilder starts at the root of path.
func NewContextBuilder(path []*Entry) *ContextBuilder {
	return &ContextBuilder{path: path, ThinkingLevel: "off"}
}

// Done reports whether every entry was applied.
func (b *ContextBuilder) Done() bool { return b.pos >= len(b.path) }

// Pos is the index in the path of the next entry Step applies.
func (b *ContextBuilder) Pos() int { return b.pos }

// Peek returns the next entry Step applies, or nil.
func (b *ContextBuilder) Peek() *Entry {
	if b.Done() {
		return nil
	}
	return b.path[b.pos]
}

// Messages is the context of the entries applied so far. The slice is
// owned by the builder and changes on the next Step.
func (b *ContextBuilder) Messages() []ContextMessage { return b.msgs }

// Step applies the next entry and returns it (nil when done).
func (b *ContextBuilder) Step() *Entry {
	if b.Done() {
		return nil
	}
	e := b.path[b.pos]
	switch e.Type {
	case TypeThinkingLevelChange:
		b.ThinkingLevel = e.ThinkingLevel
	case TypeModelChange:
		b.Model = ModelRef{e.Provider, e.ModelID}
	case TypeMessage:
		if m := e.Message; m != nil && m.Role == RoleAssistant {
			b.Model = ModelRef{m.Provider, m.Model}
		}
	case TypeCompaction:
		b.Compactions++
		b.msgs = b.msgs[:0:0]
		b.msgs = append(b.msgs, ContextMessage{Entry: e, Kind: FromCompaction,
			Message: userText(CompactionSummaryPrefix+e.Summary+CompactionSummarySuffix, e)})
		found := false
		for _, p := range b.path[:b.pos] {
			if p.ID == e.FirstKeptEntryID {
				found = true
			}
			if found {
				b.msgs = appendLLM(b.msgs, p)
			}
		}
		b.pos++
		return e
	}
	b.msgs = appendLLM(b.msgs, e)
	b.pos++
	return e
}

// BuildContext returns the context Pi would send after the whole path.
func BuildContext(path []*Entry) []ContextMessage {
	b := NewContextBuilder(path)
	for !b.Done() {
		b.Step()
	}
	return b.Messages()
}

func userText(text string, e *Entry) *Message {
	var ts int64
	if !e.Timestamp.IsZero() {
		ts = e.Timestamp.UnixMilli()
	}
	return &Message{Role: RoleUser, Blocks: []Block{{Type: "text", Text: text}}, Timestamp: ts}
}

// appendLLM appends what entry e contributes to the model's context.
func appendLLM(msgs []ContextMessage, e *Entry) []ContextMessage {
	switch e.Type {
	case TypeMessage:
		m := e.Message
		if m == nil {
			return msgs
		}
		switch m.Role {
		case RoleUser, RoleAssistant, RoleToolResult:
			return append(msgs, ContextMessage{Entry: e, Kind: FromMessage, Message: m})
		case RoleBashExecution:
			if m.ExcludeFromContext {
				return msgs
			}
			return append(msgs, ContextMessage{Entry: e, Kind: FromMessage, Message: userText(BashExecutionText(m), e)})
		case RoleCustom:
			u := &Message{Role: RoleUser, Content: m.Content, Blocks: m.Blocks, Timestamp: m.Timestamp}
			return append(msgs, ContextMessage{Entry: e, Kind: FromMessage, Message: u})
		}
	case TypeCustomMessage:
		blocks, _ := decodeBlocks(e.Content)
		u := &Message{Role: RoleUser, Content: e.Content, Blocks: blocks}
		if !e.Timestamp.IsZero() {
			u.Timestamp = e.Timestamp.UnixMilli()
		}
		return append(msgs, ContextMessage{Entry: e, Kind: FromCustomMessage, Message: u})
	case TypeBranchSummary:
		if e.Summary != "" {
			return append(msgs, ContextMessage{Entry: e, Kind: FromBranchSummary,
				Message: userText(BranchSummaryPrefix+e.Summary+BranchSummarySuffix, e)})
		}
	}
	return msgs
}

// BashExecutionText is the user text Pi sends for a `!command` execution.
func BashExecutionText(m *Message) string {
	var b strings.Builder
	b.WriteString("Ran `" + m.Command + "`\n")
	if m.Output != "" {
		b.WriteString("```\n" + m.Output + "\n```")
	} else {
		b.WriteString("(no output)")
	}
	if m.Cancelled {
		b.WriteString("\n\n(command cancelled)")
	} else if m.ExitCode != nil && *m.ExitCode != 0 {
		b.WriteString("\n\nCommand exited with code " + strconv.Itoa(*m.ExitCode))
	}
	if m.Truncated && m.FullOutputPath != "" {
		b.WriteString("\n\n[Output truncated. Full output: " + m.FullOutputPath + "]")
	}
	return b.String()
}
