// The skill bodies in the context: where they are, their ids and sizes
// (findLoads, the before_request loads), and their replacement by
// placeholders (applyArchive). replay/bridge.go and replay/detect.go read
// recorded sessions by the same rules.

import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { record, safe, type Block, type Context, type Message, type Usage } from "./pi.ts";
import { REATTACH_TYPE, TOOL_NAME, type HostSkill, type LoadKind, type LoadRef, type Replacement } from "./wire.ts";

/** Where is, for each load id, the message that holds the load, and its kind. */
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
const SKILL_CONTENT = /^<skill_content name="([^"]+)">/;
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

// bodyIn is the skill body the sidecar found whole in a tool's result
// (tool_result), kept in its details.skillBody.
function bodyIn(m: Message): { skill: string; hash?: string } | undefined {
	const b = record(record(m.details)?.skillBody);
	const skill = str(b?.skill);
	return skill ? { skill, hash: str(b?.hash) } : undefined;
}

/** str is v when it is a string (the details the bridge's own tool wrote). */
function str(v: unknown): string | undefined {
	return typeof v === "string" ? v : undefined;
}

export function resolvePath(p: string, cwd: string): string {
	let q = String(p ?? "").trim().replace(/^@/, "");
	if (q === "~" || q.startsWith("~/")) q = join(homedir(), q.slice(1));
	return isAbsolute(q) ? resolve(q) : resolve(cwd, q);
}

// messageSize approximates the characters one message adds to a request:
// its text, thinking and tool call arguments.
function messageSize(m: Message | undefined): number {
	if (!m) return 0;
	if (typeof m.content === "string") return m.content.length;
	if (!Array.isArray(m.content)) return 0;
	let n = 0;
	for (const c of m.content) {
		if (typeof c?.text === "string") n += c.text.length;
		else if (typeof c?.thinking === "string") n += c.thinking.length;
		else if (c?.type === "toolCall") n += (c.name?.length ?? 0) + JSON.stringify(c.arguments ?? {}).length;
	}
	return n;
}

// findLoads walks the messages sent to the model and lists the skill
// bodies in them, in order: skill tool results, full reads of a SKILL.md,
// and /skill:name blocks in user messages, each with its position (base is
// the size of what precedes the messages: the system prompt), and the
// other files of a skill's folder the model read (kind "resource": they go
// with the skill's body). total is the size of the whole request.
export function findLoads(
	messages: (Message | undefined)[],
	skills: HostSkill[],
	cwd: string,
	base: number,
): { loads: LoadRef[]; where: Where; total: number; previous: number } {
	const byPath = new Map<string, string>();
	// The folders of the skills that are a SKILL.md, deepest first (a
	// skill nested in another's folder owns its own files).
	const folders: { dir: string; name: string }[] = [];
	for (const s of skills) {
		const p = resolve(s.path);
		byPath.set(p, s.name);
		if (basename(p) === "SKILL.md") folders.push({ dir: dirname(p) + sep, name: s.name });
	}
	folders.sort((a, b) => b.dir.length - a.dir.length);
	// The read calls of the last assistant message, by tool call id, in
	// call order (a provider may reuse an id; results follow their calls).
	let readArgs = new Map<string | undefined, unknown[]>();
	const loads: LoadRef[] = [];
	const where: Where = new Map();
	// A result named in this context already (a session recorded before
	// results carried their own id, with reused tool call ids) gets a
	// "#n" name of its own, so two results never share one.
	const nameOf = (m: Message): string => {
		const id = resultId(m);
		if (!where.has(id)) return id;
		for (let n = 2; ; n++) if (!where.has(`${id}#${n}`)) return `${id}#${n}`;
	};
	let offset = base;
	let previous = 0; // where the last assistant message starts: the previous request's size
	messages.forEach((m, i) => {
		const at = offset;
		offset += messageSize(m);
		if (!m) return;
		if (m.role === "assistant") previous = at;
		if (m.role === "assistant" && Array.isArray(m.content)) {
			readArgs = new Map();
			for (const c of m.content) {
				if (c?.type === "toolCall" && c.name === "read") readArgs.set(c.id, [...(readArgs.get(c.id) ?? []), c.arguments]);
			}
		} else if (m.role === "toolResult" && m.toolName === "read") {
			// Taken in order whether or not the read failed.
			const args = record(readArgs.get(m.toolCallId)?.shift());
			if (m.isError) return;
			const text = textOf(m.content);
			const p = typeof args?.path === "string" && args.path ? resolvePath(args.path, cwd) : "";
			const skill = p ? byPath.get(p) : undefined;
			if (skill && args?.offset === undefined && args?.limit === undefined) {
				const id = nameOf(m);
				loads.push({ id, skill, kind: "read", size: text.length, offset: at });
				where.set(id, { msg: i, kind: "read" });
			} else if (bodyIn(m)) {
				const b = bodyIn(m)!;
				const id = nameOf(m);
				loads.push({ id, skill: b.skill, kind: "read", size: text.length, hash: b.hash, offset: at });
				where.set(id, { msg: i, kind: "read" });
			} else if (p) {
				const owner = folders.find((f) => p.startsWith(f.dir));
				if (owner) {
					const id = nameOf(m);
					loads.push({ id, skill: owner.name, kind: "resource", path: String(args?.path), size: text.length, offset: at });
					where.set(id, { msg: i, kind: "resource" });
				}
			}
		} else if (m.role === "toolResult" && !m.isError) {
			const text = textOf(m.content);
			const found = m.toolName !== TOOL_NAME ? bodyIn(m) : undefined;
			if (found) {
				const id = nameOf(m);
				loads.push({ id, skill: found.skill, kind: "read", size: text.length, hash: found.hash, offset: at });
				where.set(id, { msg: i, kind: "read" });
			} else if (m.toolName === TOOL_NAME) {
				const details = record(m.details);
				const skill = str(details?.skill) ?? SKILL_CONTENT.exec(text)?.[1];
				if (skill && SKILL_CONTENT.test(text)) {
					const id = nameOf(m);
					loads.push({ id, skill, kind: "tool", size: text.length, hash: str(details?.hash), offset: at });
					where.set(id, { msg: i, kind: "tool" });
				}
			}
		} else if (m.role === "custom" && m.customType === REATTACH_TYPE) {
			for (const b of reattachBlocks(m)) {
				loads.push({ id: b.id, skill: b.skill, kind: "reattach", size: b.text.length, offset: at + b.start });
				where.set(b.id, { msg: i, kind: "reattach" });
			}
		} else if (m.role === "user") {
			const text = typeof m.content === "string" ? m.content : textOf(m.content);
			const match = SKILL_BLOCK.exec(text);
			if (match) {
				const id = `user:${m.timestamp ?? i}:${match[1]}`;
				loads.push({ id, skill: match[1], kind: "command", size: match[0].length, offset: at });
				where.set(id, { msg: i, kind: "command" });
			}
		}
	});
	return { loads, where, total: offset, previous };
}

// visibleAfter lists the load ids the compaction kept: those in the branch
// entries from firstKept on (tool results, /skill: blocks, re-attached
// bodies), as findLoads would name them.
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

// applyArchive returns a copy of messages with the archived bodies replaced
// by their placeholders, or undefined when nothing changes.
export function applyArchive(messages: Message[], where: Where, archive: Replacement[]): Message[] | undefined {
	let out: Message[] | undefined;
	for (const a of archive) {
		const w = where.get(a.id);
		if (!w) continue;
		out ??= messages.slice();
		const m = out[w.msg];
		if (w.kind === "reattach") {
			const block = reattachBlocks(m).find((b) => b.id === a.id);
			if (!block) continue;
			const swap = (t: string) => t.replace(block.text, () => a.placeholder);
			out[w.msg] =
				typeof m.content === "string"
					? { ...m, content: swap(m.content) }
					: { ...m, content: (m.content ?? []).map((c) => (c?.type === "text" && typeof c.text === "string" && c.text.includes(block.text) ? { ...c, text: swap(c.text) } : c)) };
		} else if (w.kind === "command") {
			const replaceIn = (t: string) => t.replace(SKILL_BLOCK, () => a.placeholder);
			if (typeof m.content === "string") {
				out[w.msg] = { ...m, content: replaceIn(m.content) };
			} else if (Array.isArray(m.content)) {
				let done = false;
				out[w.msg] = {
					...m,
					content: m.content.map((c) => {
						if (!done && c?.type === "text" && typeof c.text === "string" && SKILL_BLOCK.test(c.text)) {
							done = true;
							return { ...c, text: replaceIn(c.text) };
						}
						return c;
					}),
				};
			}
		} else {
			out[w.msg] = { ...m, content: [{ type: "text", text: a.placeholder }] };
		}
	}
	return out;
}

// lastUsage is the provider's usage for the previous request: that of the
// last assistant message in the context (its response), in the sidecar's
// form; undefined when there is none, or when the response failed.
export function lastUsage(messages: (Message | undefined)[]): Usage | undefined {
	for (let i = messages.length - 1; i >= 0; i--) {
		const m = messages[i];
		if (m?.role !== "assistant") continue;
		const u = m.usage;
		if (!u || m.stopReason === "error" || m.stopReason === "aborted") return undefined;
		const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);
		return { input: n(u.input), cacheRead: n(u.cacheRead), cacheWrite: n(u.cacheWrite) };
	}
	return undefined;
}
