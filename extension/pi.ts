// The part of Pi the bridge uses, as types.
//
// The bridge imports nothing from Pi at run time, so that it loads in Pi 1.6
// (@earendil-works/pi-coding-agent) and 0.73 (@mariozechner/...). These are
// the members of Pi's ExtensionAPI, ExtensionContext, events, messages and
// session entries it calls or reads (Pi's dist/core/extensions/types.d.ts),
// as both versions declare them: what one lacks is optional.
// check/pi.ts checks them against both versions' own declarations.
//
// Messages, content blocks and session entries are unions in Pi (one type
// per role or entry type, and extensions add their own); the bridge reads
// them field by field, so they are one interface each here, every field of
// every member that the bridge reads. Pi's own untyped data (tool
// arguments, result details, custom entries' data) is unknown: record
// narrows it.

export type NotifyLevel = "info" | "warning" | "error";

// ---- Messages -------------------------------------------------------------------

/** A content block: text, thinking, toolCall or image (pi-ai's TextContent, ...). */
export interface Block {
	type: string;
	text?: string; // text
	thinking?: string; // thinking
	id?: string; // toolCall
	name?: string; // toolCall
	arguments?: unknown; // toolCall: the model's arguments, any JSON object
}

export interface TextBlock {
	type: "text";
	text: string;
}

/** An image in a tool's result (pi-ai's ImageContent). */
export interface ImageBlock {
	type: "image";
	data: string;
	mimeType: string;
}

/** Token usage as the provider reported it (pi-ai's Usage). */
export interface Usage {
	input: number;
	cacheRead: number;
	cacheWrite: number;
}

/** One message of the conversation (Pi's AgentMessage). */
export interface Message {
	role: string; // user, assistant, toolResult, custom, and Pi's and extensions' others
	content?: string | Block[];
	timestamp?: number;
	usage?: Usage; // assistant
	stopReason?: string; // assistant
	toolCallId?: string; // toolResult
	toolName?: string; // toolResult
	isError?: boolean; // toolResult
	details?: unknown; // toolResult, custom: the tool's or extension's own
	customType?: string; // custom
}

// ---- The session ------------------------------------------------------------------

/** One entry of the session (Pi's SessionEntry). */
export interface Entry {
	type: string; // message, custom, custom_message, compaction, context_edit, ...
	id: string;
	parentId?: string | null;
	message?: Message; // message
	customType?: string; // custom, custom_message
	data?: unknown; // custom: the extension's own
	content?: string | Block[]; // custom_message
	details?: unknown; // custom_message
	targetId?: string; // context_edit (Pi 1.6): the entry it edits
	/** context_edit (Pi 1.6): the target's content from now on; null omits it. */
	replacement?: { content: string | Block[] } | null;
}

/** A compaction entry (Pi's CompactionEntry). */
export interface CompactionEntry {
	id: string;
	firstKeptEntryId?: string;
}

// ---- Models -------------------------------------------------------------------------

/** A model of Pi's registry (pi-ai's Model). */
export interface Model {
	provider: string;
	id: string;
	name?: string;
	/** Dollars per million tokens. */
	cost?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
	contextWindow?: number;
	reasoning?: boolean;
	/** The cache lifetime in seconds per retention tier (Pi 1.6). */
	promptCache?: { short?: number; long?: number };
}

export interface ModelRegistry {
	find?(provider: string, id: string): Model | undefined;
	getAll?(): Model[];
	getAvailable?(): Model[];
}

// ---- The context handlers get --------------------------------------------------------

/** Pi's ExtensionContext. */
export interface Context {
	cwd: string;
	hasUI: boolean;
	ui: {
		notify(message: string, level?: NotifyLevel): void;
		/** The footer status under key (undefined clears it). */
		setStatus?(key: string, text: string | undefined): void;
	};
	model: Model | undefined;
	modelRegistry?: ModelRegistry;
	sessionManager: {
		getBranch(): Entry[];
		/** The entry the branch ends at (Pi 1.6 and 0.73). */
		getLeafId?(): string | null;
		/** The entry with id (Pi 1.6 and 0.73). */
		getEntry?(id: string): Entry | undefined;
		/** Pi 1.6: the context as the session's entries and context edits make it. */
		buildSessionProjection?(): unknown;
		/** The file Pi records the session in; undefined when it keeps none. */
		getSessionFile?(): string | undefined;
	};
	isIdle?(): boolean;
	/** Pi 1.6: whether the project is trusted (0.73 has no project trust). */
	isProjectTrusted?(): boolean;
	getSystemPrompt?(): string;
}

// ---- Events ---------------------------------------------------------------------------

/** A skill as Pi lists it for the system prompt (Pi's Skill). */
export interface PromptSkill {
	name: string;
	description?: string;
	filePath: string;
	disableModelInvocation?: boolean;
}

export interface BeforeAgentStartEvent {
	prompt?: string;
	/** Pi 1.6: "custom" for a run that a custom message starts. */
	messageType?: string;
	systemPrompt: string;
	systemPromptOptions?: {
		skills?: PromptSkill[];
		/** Pi 1.6: the structured system prompt, by section. */
		sections?: Record<string, string>;
	};
}

export interface ContextEvent {
	messages: Message[];
}

export interface ToolCallEvent {
	toolName: string;
	toolCallId: string;
	input: unknown; // the tool's arguments
}

export interface ToolResultEvent {
	toolName: string;
	toolCallId: string;
	input: unknown; // the tool's arguments
	content: (TextBlock | ImageBlock)[];
	isError: boolean;
	details: unknown; // the tool's own
}

export interface SessionCompactEvent {
	compactionEntry: CompactionEntry;
}

/** Pi 1.6: whether to refresh an idle prompt cache. */
export interface CacheWarmingDecisionEvent {
	action: string; // "warm", "stop"
}

export interface ModelSelectEvent {
	model: Model;
	source?: string;
}

/** A session entry a turn boundary handler proposes (Pi 1.6's SessionBoundaryDraft, the kind the bridge proposes). */
export interface ContextEditDraft {
	type: "context_edit";
	targetId: string;
	replacement: { content: string | Block[] } | null;
}

/** Pi 1.6's turn_end: the entries proposed so far. */
export interface BoundaryEvent {
	entries?: unknown[];
	toolResults?: unknown[]; // turn_end
}

/** What a boundary handler returns: the whole list of proposed entries. */
export interface BoundaryResult {
	entries?: unknown[];
}

/** The events the bridge handles, with what a handler may return. */
export interface Events {
	session_start: { event: unknown; result: void };
	session_tree: { event: unknown; result: void };
	session_switch: { event: unknown; result: void }; // Pi before 0.65 (its CHANGELOG)
	session_fork: { event: unknown; result: void }; // Pi before 0.65
	session_shutdown: { event: unknown; result: void };
	session_compact: { event: SessionCompactEvent; result: void };
	before_agent_start: { event: BeforeAgentStartEvent; result: { systemPrompt?: string; message?: CustomMessage } };
	context: { event: ContextEvent; result: { messages?: Message[] } };
	tool_call: { event: ToolCallEvent; result: { block?: boolean; reason?: string } };
	tool_result: { event: ToolResultEvent; result: { details?: unknown; content?: (TextBlock | ImageBlock)[] } };
	agent_start: { event: unknown; result: void };
	agent_end: { event: unknown; result: void };
	cache_warming_decision: { event: CacheWarmingDecisionEvent; result: void };
	model_select: { event: ModelSelectEvent; result: void };
	turn_end: { event: BoundaryEvent; result: BoundaryResult }; // Pi 1.6 takes entries; 0.73 ignores the result
	tool_execution_end: { event: unknown; result: void };
}

export type Handler<E extends keyof Events> = (
	event: Events[E]["event"],
	ctx: Context,
) => Promise<Events[E]["result"] | undefined> | Events[E]["result"] | undefined;

// ---- What the bridge registers ----------------------------------------------------------

/** The answer of a tool (Pi's AgentToolResult). */
export interface ToolResult {
	content: TextBlock[];
	details: unknown;
}

/** A tool (Pi's ToolDefinition). */
export interface ToolDefinition {
	name: string;
	label: string;
	description: string;
	promptSnippet?: string;
	parameters: unknown; // a JSON Schema object
	execute(toolCallId: string, params: unknown, signal: AbortSignal | undefined, onUpdate: unknown, ctx: Context): Promise<ToolResult>;
}

/** A slash command (Pi's RegisteredCommand). */
export interface CommandDefinition {
	description?: string;
	handler(args: string, ctx: Context): Promise<void>;
}

/** A command Pi lists (Pi's SlashCommandInfo; older Pis had path). */
export interface CommandInfo {
	name: string;
	description?: string;
	source: string; // "skill" for a skill's /skill:name
	sourceInfo?: { path?: string };
	path?: string;
}

/** A custom message (Pi's CustomMessage, as sendMessage takes it). */
export interface CustomMessage {
	customType: string;
	content: string;
	display: boolean;
	details?: unknown;
}

/** A TUI component (pi-tui's Component), as an entry renderer returns it. */
export interface EntryComponent {
	render(width: number): string[];
	invalidate(): void;
}

/** Pi's ExtensionAPI. */
export interface Pi {
	/** Pi 1.6 returns a function that removes the handler; 0.73 nothing. */
	on<E extends keyof Events>(event: E, handler: Handler<E>): unknown;
	registerTool(tool: ToolDefinition): void;
	registerCommand(name: string, command: CommandDefinition): void;
	appendEntry(customType: string, data?: unknown): void;
	/**
	 * Pi 1.6: draws the custom entries of customType in the transcript;
	 * the renderer returns a TUI component (render(width) to lines), or
	 * undefined to draw nothing.
	 */
	registerEntryRenderer?(customType: string, renderer: (entry: { data?: unknown }, options: unknown, theme: unknown) => EntryComponent | undefined): void;
	sendMessage(message: CustomMessage, options?: { deliverAs?: "steer" | "followUp" | "nextTurn" }): void;
	getCommands?(): CommandInfo[];
	/** The active tools' names (read as unknown: the bridge also takes objects with a name). */
	getActiveTools?(): unknown;
	getThinkingLevel?(): string;
	setThinkingLevel(level: string): void;
	setModel(model: Model): Promise<boolean>;
}

// ---- Narrowing Pi's untyped data ------------------------------------------------------------

/** record is v when it is an object (an array too), to read its fields; else undefined. */
export function record(v: unknown): Record<string, unknown> | undefined {
	return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined;
}

/** safe calls into Pi: undefined when f throws. */
export function safe<T>(f: () => T): T | undefined {
	try {
		return f();
	} catch {
		return undefined;
	}
}
