package main

import (
	"github.com/skill-lifecycle/skill-lifecycle/lifecycle"
	"github.com/skill-lifecycle/skill-lifecycle/protocol"
)

// The wire, as the bridge sees it: this file is the one list to change when
// a method, a notification or a constant of the protocol is added, renamed
// or moved. Each param and result is a zero value of its Go type (nil for
// JSON null); everything they refer to is generated with them.

// consts are the protocol's constants the bridge uses, by their TypeScript
// name.
var consts = []constant{
	{"PROTOCOL_VERSION", protocol.Version},
	{"ENTRY_TYPE", protocol.EntryType},
	{"REATTACH_TYPE", protocol.ReattachType},
	{"LINE_TYPE", protocol.LineType},
	{"HINT_TYPE", protocol.HintType},
	{"TOOL_NAME", protocol.ToolName},
	{"CODE_PARSE_ERROR", protocol.CodeParseError},
	{"CODE_INVALID_REQUEST", protocol.CodeInvalidRequest},
	{"CODE_METHOD_NOT_FOUND", protocol.CodeMethodNotFound},
	{"CODE_INVALID_PARAMS", protocol.CodeInvalidParams},
	{"CODE_INTERNAL_ERROR", protocol.CodeInternalError},
	{"CODE_NOT_INITIALIZED", protocol.CodeNotInitialized},
	{"CODE_SHUT_DOWN", protocol.CodeShutDown},
	{"CODE_VERSION_MISMATCH", protocol.CodeVersionMismatch},
	{"CODE_ALREADY_INIT", protocol.CodeAlreadyInit},
}

// requests are the methods the host calls and waits for.
var requests = []method{
	{protocol.MethodInitialize, protocol.InitializeParams{}, protocol.InitializeResult{}},
	{protocol.MethodShutdown, nil, nil},
	{protocol.MethodSkillsUpdate, protocol.SkillsUpdateParams{}, protocol.SkillsUpdateResult{}},
	{protocol.MethodSkillLoad, protocol.SkillLoadParams{}, protocol.SkillLoadResult{}},
	{protocol.MethodSkillSearch, protocol.SkillSearchParams{}, protocol.SkillSearchResult{}},
	{protocol.MethodToolCall, protocol.ToolCallParams{}, protocol.ToolCallResult{}},
	{protocol.MethodToolResult, protocol.ToolResultParams{}, protocol.ToolResultResult{}},
	{protocol.MethodUserPrompt, protocol.UserPromptParams{}, protocol.UserPromptResult{}},
	{protocol.MethodBeforeRequest, protocol.BeforeRequestParams{}, protocol.BeforeRequestResult{}},
	{protocol.MethodSessionRestore, protocol.SessionRestoreParams{}, protocol.SessionRestoreResult{}},
	{protocol.MethodSessionCompact, protocol.SessionCompactParams{}, protocol.SessionCompactResult{}},
	{protocol.MethodCommand, protocol.CommandParams{}, protocol.CommandResult{}},
	{protocol.MethodRunStart, struct{}{}, struct{}{}},
	{protocol.MethodRunEnd, struct{}{}, struct{}{}},
	{protocol.MethodModelChanged, protocol.ModelChangedParams{}, struct{}{}},
	{protocol.MethodModelSwitchFailed, protocol.ModelSwitchFailedParams{}, struct{}{}},
}

// hostNotifications are the notifications the host sends.
var hostNotifications = []notification{
	{protocol.MethodExit, nil},
	{protocol.MethodModelSwitchFailed, protocol.ModelSwitchFailedParams{}},
}

// serverNotifications are the notifications the sidecar sends the host.
var serverNotifications = []notification{
	{protocol.NotifyNotify, protocol.NotifyParams{}},
	{protocol.NotifyAppendEntry, protocol.AppendEntryParams{}},
	{protocol.NotifySetModel, protocol.SetModelParams{}},
	{protocol.NotifyLine, protocol.LineParams{}},
}

// enums are the string types written as a union of their values: every
// constant of the type declared in its own package or in a package of the
// types above (protocol declares one load kind of its own).
var enums = []any{
	lifecycle.LoadKind(""),
}
