// A probe extension for the host-contract tests (tests/e2e/contract_test.go):
// it exercises the parts of Pi's extension API the skill-lifecycle bridge
// relies on, with no import from Pi, so it loads in Pi 1.6 and 0.73. Every
// event it sees is appended to the JSONL file named by PROBE_LOG.
import { appendFileSync } from "node:fs";

const logPath = process.env.PROBE_LOG;

function log(event: string, fields: Record<string, unknown> = {}): void {
	if (logPath) appendFileSync(logPath, JSON.stringify({ event, ...fields }) + "\n");
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) return content.map((c: any) => (c && c.type === "text" ? c.text : "")).join("");
	return "";
}

export default function probe(pi: any): void {
	pi.registerTool({
		name: "probe_echo",
		label: "Probe echo",
		description: "Echo the text back (probe extension).",
		// A plain JSON Schema object, no TypeBox.
		parameters: {
			type: "object",
			properties: { text: { type: "string", description: "Text to echo" } },
			required: ["text"],
			additionalProperties: false,
		},
		async execute(_id: string, params: { text: string }) {
			return { content: [{ type: "text", text: `ECHO:${params.text}` }], details: {} };
		},
	});

	pi.registerCommand("probe-cmd", {
		description: "Record the arguments as a custom entry (probe extension).",
		handler: async (args: string, ctx: any) => {
			log("command", { args, hasUI: ctx.hasUI, mode: ctx.mode });
			ctx.ui.notify(`probe-cmd ${args}`, "info");
			pi.appendEntry("probe-cmd", { args });
		},
	});

	pi.on("session_start", async (event: any, ctx: any) => {
		log("session_start", {
			reason: event.reason,
			hasUI: ctx.hasUI,
			mode: ctx.mode,
			trusted: typeof ctx.isProjectTrusted === "function" ? ctx.isProjectTrusted() : null,
			sessionFile: ctx.sessionManager.getSessionFile(),
			branch: ctx.sessionManager.getBranch().length,
			model: ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : null,
		});
	});
	pi.on("session_shutdown", async (event: any) => log("session_shutdown", { reason: event.reason }));
	pi.on("input", async (event: any) => {
		log("input", { text: event.text, source: event.source });
		return { action: "continue" };
	});
	pi.on("before_agent_start", async (event: any) => {
		log("before_agent_start", {
			prompt: event.prompt,
			hasOptions: event.systemPromptOptions !== undefined,
			skillsInPrompt: String(event.systemPrompt).includes("<available_skills>"),
		});
	});
	pi.on("agent_start", async () => log("agent_start"));
	pi.on("agent_end", async (event: any) => {
		log("agent_end", { messages: event.messages.length });
		pi.appendEntry("probe-state", { agentEnds: 1 });
	});
	pi.on("agent_settled", async (event: any) => log("agent_settled", { aborted: event.aborted }));
	pi.on("tool_call", async (event: any) => {
		log("tool_call", { tool: event.toolName, input: event.input });
		if (event.toolName === "read" && String(event.input.path).endsWith("BLOCKED.md")) {
			return { block: true, reason: "PROBE-BLOCKED: use probe_echo instead" };
		}
	});
	pi.on("tool_result", async (event: any) => log("tool_result", { tool: event.toolName, isError: event.isError }));
	pi.on("context", async (event: any) => {
		log("context", { roles: event.messages.map((m: any) => m.role) });
		let changed = false;
		const messages = event.messages.map((m: any) => {
			if (m.role === "toolResult" && textOf(m.content).includes("ARCHIVE-ME")) {
				changed = true;
				return { ...m, content: [{ type: "text", text: "[probe placeholder]" }] };
			}
			return m;
		});
		return changed ? { messages } : undefined;
	});
}
