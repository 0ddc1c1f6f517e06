// Checks ../pi.ts against the declarations of the two Pi lines the bridge
// runs in (tsc only: nothing here runs, nor ships). Each line says that
// what Pi hands the bridge fits the bridge's type of it, or that what the
// bridge calls exists in Pi with a fitting signature. The Pis are those the
// end-to-end tests install (scripts/setup-pi.sh); scripts/test.sh runs
// `tsc -p extension/check`. Not checked: the messages the context handler
// returns (Pi's own, with bodies replaced: the bridge's loose Message does
// not fit Pi's union back) and registerTool (the tool's parameters are the
// sidecar's JSON Schema, where Pi declares a TypeBox schema).

import type * as Pi16 from "@earendil-works/pi-coding-agent";
import type * as Pi073 from "@mariozechner/pi-coding-agent";
// 0.73 exports some of its extension types from this module only.
import type * as Pi073Ext from "@mariozechner/pi-coding-agent/dist/core/extensions/index.js";
import type * as B from "../pi.ts";

/** Fits<A, B> holds when a value of type A can be used as a B. */
type Fits<A, B> = [A] extends [B] ? true : false;
type Check<T extends true> = T;
/** Typed holds unless T is any (a Pi type that did not resolve would fit everything). */
type Typed<T> = 0 extends 1 & T ? false : true;

// The calls the bridge makes.
type Calls = "appendEntry" | "sendMessage" | "getCommands" | "getActiveTools" | "getThinkingLevel" | "setThinkingLevel" | "setModel" | "registerCommand";
/** CallsFit holds when each of Pi's methods can be called as the bridge calls it. */
type CallsFit<P> = { [K in Calls]: K extends keyof P ? Fits<P[K], B.Pi[K]> : false }[Calls];

export type Pi16Checks = [
	Check<Typed<Pi16.ExtensionAPI>>,
	Check<Typed<Pi16.ExtensionContext>>,
	Check<Typed<NonNullable<Pi16.ExtensionContext["model"]>>>,
	Check<Typed<Pi16.ContextEvent["messages"][number]>>,
	Check<Typed<Pi16.SessionEntry>>,
	Check<Fits<Pi16.ExtensionContext, B.Context>>,
	Check<Fits<Pi16.ContextEvent["messages"][number], B.Message>>,
	Check<Fits<Pi16.SessionEntry, B.Entry>>,
	Check<Fits<Pi16.CompactionEntry, B.CompactionEntry>>,
	Check<Fits<Pi16.BeforeAgentStartEvent, B.BeforeAgentStartEvent>>,
	Check<Fits<Pi16.ContextEvent, B.ContextEvent>>,
	Check<Fits<Pi16.ToolCallEvent, B.ToolCallEvent>>,
	Check<Fits<Pi16.ToolResultEvent, B.ToolResultEvent>>,
	Check<Fits<Pi16.SessionCompactEvent, B.SessionCompactEvent>>,
	Check<Fits<Pi16.CacheWarmingDecisionEvent, B.CacheWarmingDecisionEvent>>,
	Check<Fits<Pi16.ModelSelectEvent, B.ModelSelectEvent>>,
	Check<Fits<Pi16.SlashCommandInfo, B.CommandInfo>>,
	Check<Fits<Pi16.Skill, B.PromptSkill>>,
	Check<Fits<B.Events["before_agent_start"]["result"], Pi16.BeforeAgentStartEventResult>>,
	Check<Fits<B.Events["tool_call"]["result"], Pi16.ToolCallEventResult>>,
	Check<Fits<B.Events["tool_result"]["result"], Pi16.ToolResultEventResult>>,
	Check<CallsFit<Pi16.ExtensionAPI>>,
	Check<Fits<Pi16.ExtensionAPI["registerEntryRenderer"], NonNullable<B.Pi["registerEntryRenderer"]>>>,
	Check<Fits<Pi16.ExtensionContext["ui"]["setStatus"], NonNullable<B.Context["ui"]["setStatus"]>>>,
];

export type Pi073Checks = [
	Check<Typed<Pi073.ExtensionAPI>>,
	Check<Typed<Pi073.ExtensionContext>>,
	Check<Typed<NonNullable<Pi073.ExtensionContext["model"]>>>,
	Check<Typed<Pi073.ContextEvent["messages"][number]>>,
	Check<Typed<Pi073.SessionEntry>>,
	Check<Fits<Pi073.ExtensionContext, B.Context>>,
	Check<Fits<Pi073.ContextEvent["messages"][number], B.Message>>,
	Check<Fits<Pi073.SessionEntry, B.Entry>>,
	Check<Fits<Pi073.CompactionEntry, B.CompactionEntry>>,
	Check<Fits<Pi073.BeforeAgentStartEvent, B.BeforeAgentStartEvent>>,
	Check<Fits<Pi073.ContextEvent, B.ContextEvent>>,
	Check<Fits<Pi073.ToolCallEvent, B.ToolCallEvent>>,
	Check<Fits<Pi073.ToolResultEvent, B.ToolResultEvent>>,
	Check<Fits<Pi073.SessionCompactEvent, B.SessionCompactEvent>>,
	Check<Fits<Pi073.SlashCommandInfo, B.CommandInfo>>,
	Check<Fits<Pi073.Skill, B.PromptSkill>>,
	Check<Fits<B.Events["before_agent_start"]["result"], Pi073.BeforeAgentStartEventResult>>,
	Check<Fits<B.Events["tool_call"]["result"], Pi073.ToolCallEventResult>>,
	Check<Fits<B.Events["tool_result"]["result"], Pi073Ext.ToolResultEventResult>>,
	Check<CallsFit<Pi073.ExtensionAPI>>,
];
