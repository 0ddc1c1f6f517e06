// The context as the bridge forwards it: the messages of each request in
// deltas (toWire, fingerprint), and the sidecar's replacements applied to
// them (applyPatches). What a load is, its id and size are the sidecar's
// (host/context.go); the bridge only names results when a tool runs
// (LoadIds) and lists what a compaction kept (visibleAfter).

import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { record, safe, type Block, type Context, type Message } from "./pi.ts";
import { REATTACH_TYPE, TOOL_NAME, type BeforeRequestResult, type HostSkill, type LoadKind, type Message as WireMessage, type MessageDetails, type Patch } from "./wire.ts";

/** Where is, for each load id, the message that holds the load, and its kind (the sidecar's places). */
export type Where = Map<string, { msg: number; kind: LoadKind }>;

/** textOf is the text of a message's content: a string, or its text blocks joined by line breaks. */
export function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	const parts: string[] = [];
	for (const c of content) {
		const b = record(c);
		if (b && b.type === "text" && typeof b.text === "string") parts.push(b.text);
	}
	return parts.join("\n");
}

// A tool result is known by the id the bridge gave it when the tool ran
// (details.loadId), else by its tool call id. Tool call ids are the
// provider's, and some providers reuse them ("call_0" for every call): the
// bridge's id is unique on the branch, and stays the same from request to
// request, across a sidecar restart (the records hold it) and a compaction
// (it travels with the result). replay/detect.go resultID names results
// the same way.
export function resultId(m: Message | undefined): string {
	const id = record(m?.details)?.loadId;
	return typeof id === "string" && id ? id : String(m?.toolCallId ?? "");
}

// LoadIds gives the results of the skill tool and of reads of skills'
// files their ids: the tool call id, or "<id>#<n>" with the smallest n from
// 2 that no result on the branch, nor a call of this process not yet
// answered, has taken.
export class LoadIds {
	private minted = new Set<string>();

	mint(toolCallId: string, ctx: Context | undefined): string {
		const base = String(toolCallId ?? "");
		const taken = new Set(this.minted);
		for (const e of safe(() => ctx?.sessionManager?.getBranch?.()) ?? []) {
			if (e?.type === "message" && e.message?.role === "toolResult") taken.add(resultId(e.message));
		}
		let id = base;
		for (let n = 2; taken.has(id); n++) id = `${base}#${n}`;
		this.minted.add(id);
		return id;
	}
}

/** SKILL_BLOCK is Pi's expansion of /skill:name in a user message. */
export const SKILL_BLOCK = /^<skill name="([^"]+)" location="([^"]*)">\n[\s\S]*?\n<\/skill>/;
const CONTENT_BLOCKS = /<skill_content name="([^"]+)">[\s\S]*?<\/skill_content>/g;

/** A custom message or entry (the re-attach region) as reattachBlocks reads it. */
interface Reattached {
	content?: string | Block[];
	details?: unknown;
}

// reattachBlocks lists the <skill_content> blocks of a re-attach region
// with their load ids.
export function reattachBlocks(m: Reattached | undefined): { id: string; skill: string; start: number; text: string }[] {
	const cid = record(m?.details)?.compactionId;
	if (!m || !cid) return [];
	const text = typeof m.content === "string" ? m.content : textOf(m.content);
	const out: { id: string; skill: string; start: number; text: string }[] = [];
	for (const b of text.matchAll(CONTENT_BLOCKS)) {
		out.push({ id: `reattach:${cid}:${b[1]}`, skill: b[1], start: b.index ?? 0, text: b[0] });
	}
	return out;
}

// isSkillFile says whether the resolved path p is a skill's file: its
// SKILL.md, or a file in the folder of a skill that is a SKILL.md.
export function isSkillFile(p: string, skills: HostSkill[]): boolean {
	return skills.some((s) => {
		const f = resolve(s.path);
		return f === p || (basename(f) === "SKILL.md" && p.startsWith(dirname(f) + sep));
	});
}

export function resolvePath(p: string, cwd: string): string {
	let q = String(p ?? "").trim().replace(/^@/, "");
	if (q === "~" || q.startsWith("~/")) q = join(homedir(), q.slice(1));
	return isAbsolute(q) ? resolve(q) : resolve(cwd, q);
}

// visibleAfter lists the load ids the compaction kept: those in the branch
// entries from firstKept on (tool results, /skill: blocks, re-attached
// bodies), as the sidecar names them (host/context.go).
export function visibleAfter(ctx: Context, firstKept: string | undefined): string[] {
	const ids: string[] = [];
	let on = !firstKept;
	for (const e of safe(() => ctx.sessionManager.getBranch()) ?? []) {
		if (!on && e?.id === firstKept) on = true;
		if (!on) continue;
		const m = e?.message;
		if (e?.type === "message" && m?.role === "toolResult" && m.toolCallId) ids.push(resultId(m));
		else if (e?.type === "message" && m?.role === "user") {
			const match = SKILL_BLOCK.exec(typeof m.content === "string" ? m.content : textOf(m.content));
			if (match) ids.push(`user:${m.timestamp}:${match[1]}`);
		} else if (e?.type === "custom_message" && e.customType === REATTACH_TYPE) {
			for (const b of reattachBlocks(e)) ids.push(b.id);
		}
	}
	return ids;
}

// toWire is message m as the sidecar reads it (host.Message): the fields
// that make loads and sizes, without images or signatures.
export function toWire(m: Message | undefined): WireMessage {
	if (!m || typeof m !== "object") return { role: "" };
	const out: WireMessage = { role: String(m.role ?? "") };
	if (typeof m.content === "string") out.content = m.content;
	else if (Array.isArray(m.content)) out.content = m.content.map(wireBlock);
	if (m.toolCallId !== undefined) out.toolCallId = String(m.toolCallId);
	if (m.toolName !== undefined) out.toolName = String(m.toolName);
	if (m.isError) out.isError = true;
	if (typeof m.customType === "string") out.customType = m.customType;
	if (typeof m.timestamp === "number" || typeof m.timestamp === "string") out.timestamp = m.timestamp;
	const d = record(m.details);
	if (d) {
		const details: MessageDetails = {};
		for (const k of ["loadId", "skill", "hash", "compactionId"] as const) if (typeof d[k] === "string") details[k] = d[k] as string;
		const b = record(d.skillBody);
		if (b && typeof b.skill === "string" && b.skill) details.skillBody = typeof b.hash === "string" ? { skill: b.skill, hash: b.hash } : { skill: b.skill };
		out.details = details;
	}
	const u = record(m.usage);
	if (u) out.usage = { input: num(u.input), cacheRead: num(u.cacheRead), cacheWrite: num(u.cacheWrite) };
	if (typeof m.stopReason === "string") out.stopReason = m.stopReason;
	return out;
}

function num(v: unknown): number {
	return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

function wireBlock(c: Block): Block {
	const b = record(c);
	if (!b) return { type: "" };
	const out: Block = { type: String(b.type ?? "") };
	if (typeof b.text === "string") out.text = b.text;
	else if (typeof b.thinking === "string") out.thinking = b.thinking;
	else if (b.type === "toolCall") {
		out.name = String(b.name ?? "");
		out.id = String(b.id ?? "");
		out.arguments = b.arguments ?? {};
	}
	return out;
}

// fingerprint is what proves a message unchanged from one request to the
// next, cheaply: its role, timestamp and content's length.
export function fingerprint(m: Message | undefined): string {
	if (!m) return "";
	const c = m.content;
	const len = typeof c === "string" ? c.length : Array.isArray(c) ? `${c.length}.${String(record(c[c.length - 1])?.text ?? "").length}` : -1;
	return `${m.role}|${m.timestamp}|${len}`;
}

// plain says a message holds no load and names none, as the sidecar's
// quiet word requires of what a request appends: an assistant's, or a
// tool result of another tool than the skill tool with no load id, body
// or compaction in its details (a read of a skill's file gets its load
// id when it runs).
export function plain(m: Message | undefined): boolean {
	if (m?.role === "assistant") return true;
	if (m?.role !== "toolResult" || m.toolName === TOOL_NAME) return false;
	const d = record(m.details);
	return !d || (d.loadId === undefined && d.skillBody === undefined && d.compactionId === undefined && d.skill === undefined);
}

// changes says an answer to before_request changes what the bridge holds.
export function changes(res: BeforeRequestResult): boolean {
	return !!(res.reset || res.set?.length || res.clear?.length || res.places?.length || res.placesReset || res.placesClear?.length);
}

/** patchKey names a patch in the set the bridge holds. */
export function patchKey(p: { index: number; block: number; whole?: boolean }): string {
	return `${p.index}:${p.block}:${p.whole ? 1 : 0}`;
}

// applyPatches returns a copy of messages with the sidecar's replacements
// the bridge holds applied (a shallow copy of each message replaced), or
// undefined when there are none.
export function applyPatches(messages: Message[], held: Map<string, Patch>): Message[] | undefined {
	let out: Message[] | undefined;
	for (const p of held.values()) {
		const m = (out ?? messages)[p.index];
		if (!m) continue;
		if (p.whole) {
			out ??= messages.slice();
			out[p.index] = { ...m, content: [{ type: "text", text: p.text }] };
		} else if (typeof m.content === "string") {
			out ??= messages.slice();
			out[p.index] = { ...m, content: p.text };
		} else if (Array.isArray(m.content) && m.content[p.block]?.type === "text") {
			out ??= messages.slice();
			const content = m.content.slice();
			content[p.block] = { ...content[p.block], text: p.text };
			out[p.index] = { ...m, content };
		}
	}
	return out;
}
