// Archiving through Pi 1.6's context edits (archiveVia, docs/pi-host.md
// "Context edits").
//
// A context_edit session entry replaces the content of one earlier entry
// in every later model context of its branch: Pi's projection
// (buildSessionProjection) applies the latest edit of each target, and
// compaction, /tree, resume and fork follow it. An extension can only
// propose one from a turn boundary (turn_end, agent_before_settle), so the
// bridge still decides at each request, in the context hook, and then:
//
//   context_edit       replaces the bodies in that request (as the hook
//                      does) and proposes the edits that make the session
//                      say the same at the next boundary;
//   context_edit_only  proposes the edits only: a new archive shows from
//                      the request after the decision (an unarchive shows
//                      at once, so the model never misses a body the
//                      sidecar counts as visible).
//
// Pi hands the hook its projection, so the bodies the bridge edited away
// arrive as placeholders. The hook first puts back the recorded content of
// the entries that hold loads (unedit), so the sidecar sees the request as
// in hook mode, whatever was edited. A revert is one more edit with the
// recorded content: Pi has no way to drop an edit.

import { fingerprint, reattachBlocks, resultId, SKILL_BLOCK, textOf, type Where } from "./loads.ts";
import { record, safe, type Block, type Context, type ContextEditDraft, type Entry, type Message, type Model } from "./pi.ts";
import { REATTACH_TYPE } from "./wire.ts";

export type Via = "hook" | "context_edit" | "context_edit_only";

/** viaOf reads initialize's archiveVia: anything unknown is the hook. */
export function viaOf(v: unknown): Via {
	return v === "context_edit" || v === "context_edit_only" ? v : "hook";
}

/** canEdit says whether Pi records context edits (1.6: it builds its context as a projection). */
export function canEdit(ctx: Context | undefined): boolean {
	return typeof ctx?.sessionManager?.buildSessionProjection === "function";
}

// warms says whether Pi may keep model's prompt cache warm between runs:
// it does so only for a model that declares a cache lifetime (models.md
// "Prompt Cache Lifetimes").
export function warms(model: Model | undefined): boolean {
	const c = model?.promptCache;
	return !!c && (!!c.short || !!c.long);
}

type Content = string | Block[];

// A message of the context is matched to its entry by what it carries
// from it (Pi clones the messages it hands the hook): its tool result id,
// its timestamp (a user message) or its compaction id (a re-attach
// region), each kind looked up in its own map, without a key to build.
type Keyed = Map<unknown, Target | null>;

function compactionOf(details: unknown): string | undefined {
	const cid = record(details)?.compactionId;
	return typeof cid === "string" && cid ? cid : undefined;
}

/** blocks is content as Pi normalises a tool result's: a string is one text block. */
function blocks(c: Content | undefined): Block[] {
	if (typeof c === "string") return [{ type: "text", text: c }];
	return Array.isArray(c) ? c : [];
}

/** same says whether two contents send the same text. */
export function same(a: Content | undefined, b: Content | undefined): boolean {
	return a === b || jsonEqual(blocks(a), blocks(b));
}

// jsonEqual says whether x and y hold the same JSON data (keys in any
// order), without writing it out: the hook compares every message that
// holds a load at each request, and writing two 6,000-character bodies
// as JSON to compare them cost more than comparing their strings.
function jsonEqual(x: unknown, y: unknown): boolean {
	if (x === y) return true;
	if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
	if (Array.isArray(x) || Array.isArray(y)) {
		if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
		for (let i = 0; i < x.length; i++) if (!jsonEqual(x[i], y[i])) return false;
		return true;
	}
	const a = x as Record<string, unknown>;
	const b = y as Record<string, unknown>;
	let n = 0;
	for (const k in a) {
		if (a[k] === undefined) continue;
		if (!jsonEqual(a[k], b[k])) return false;
		n++;
	}
	for (const k in b) if (b[k] !== undefined) n--;
	return n === 0;
}

/** The branch last built for each session manager, and the leaf it ends at. */
const built = new WeakMap<object, { leaf: string; be: BranchEdits }>();

interface Target {
	id: string;
	raw: Content;
}

/** The branch as far as context edits go. */
export class BranchEdits {
	/** The entries by what they are known by; null when two entries share it (not edited). */
	private results: Keyed = new Map();
	private users: Keyed = new Map();
	private compactions: Keyed = new Map();
	private byId = new Map<string, Target>();
	/** The latest edit of each target on the branch (null: omitted). */
	readonly edits = new Map<string, Content | null>();
	/** How many context edits add has taken: the same count, the same edits. */
	version = 0;
	/** What unedit found in the last whole list it was given (undefined: none yet). */
	seen?: Seen;

	constructor(branch: Entry[]) {
		this.add(branch);
	}

	/** add takes entries appended to the branch, oldest first. */
	private add(entries: Entry[]) {
		for (const e of entries) {
			if (!e?.id) continue;
			if (e.type === "context_edit" && typeof e.targetId === "string") {
				this.edits.set(e.targetId, e.replacement ? e.replacement.content : null);
				this.version++;
				continue;
			}
			let keyed: Keyed | undefined;
			let k: unknown;
			const m = e.type === "message" ? e.message : undefined;
			if (m?.role === "toolResult") [keyed, k] = [this.results, resultId(m)];
			else if (m?.role === "user" && typeof m.timestamp === "number") [keyed, k] = [this.users, m.timestamp];
			else if ((m?.role === "custom" && m.customType === REATTACH_TYPE) || (e.type === "custom_message" && e.customType === REATTACH_TYPE)) {
				k = compactionOf(m ? m.details : e.details);
				if (k !== undefined) keyed = this.compactions;
			}
			if (!keyed) continue;
			const t = { id: e.id, raw: (e.type === "message" ? e.message?.content : e.content) ?? [] };
			this.byId.set(e.id, t);
			keyed.set(k, keyed.has(k) ? null : t);
		}
	}

	// of is the branch ctx's session ends at. Pi's entries never change
	// once appended, so the branch last built is extended by the entries
	// appended since (walking back from the leaf to the leaf it was built
	// at) rather than built again from every entry at each request; a
	// leaf elsewhere (a move in the tree, another session) builds anew.
	static of(ctx: Context): BranchEdits {
		const sm = ctx.sessionManager;
		const leaf = safe(() => sm.getLeafId?.());
		const was = typeof leaf === "string" && leaf ? built.get(sm) : undefined;
		if (was && typeof leaf === "string") {
			if (was.leaf === leaf) return was.be;
			const added: Entry[] = [];
			for (let e = safe(() => sm.getEntry?.(leaf)); e && added.length <= 4096; e = e.parentId ? safe(() => sm.getEntry?.(e!.parentId!)) : undefined) {
				if (e.id === was.leaf) {
					was.be.add(added.reverse());
					was.leaf = leaf;
					return was.be;
				}
				added.push(e);
			}
		}
		const be = new BranchEdits(safe(() => sm.getBranch()) ?? []);
		if (typeof leaf === "string" && leaf && sm && typeof sm === "object") built.set(sm, { leaf, be });
		return be;
	}

	/** target is the entry message m comes from, when only one entry has its key. */
	target(m: Message | undefined): Target | undefined {
		if (!m) return undefined;
		if (m.role === "toolResult") return this.results.get(resultId(m)) || undefined;
		if (m.role === "user" && typeof m.timestamp === "number") return this.users.get(m.timestamp) || undefined;
		if (m.role === "custom" && m.customType === REATTACH_TYPE) {
			const cid = compactionOf(m.details);
			return (cid !== undefined && this.compactions.get(cid)) || undefined;
		}
		return undefined;
	}

	/** get is the entry with id, when it is on the branch and may hold a load. */
	get(id: string): Target | undefined {
		return this.byId.get(id);
	}

	/** effective is what the context holds of target t: its latest edit, else what was recorded. */
	effective(t: Target): Content | null {
		const e = this.edits.get(t.id);
		return e === undefined ? t.raw : e;
	}
}

/**
 * Seen is where unedit found edited messages in the last whole list: a
 * later list of the same edits (version) that appends to it (the same
 * first and last message, as the deltas to the sidecar are proven) has
 * them at the same places, and only its new messages are looked at.
 */
interface Seen {
	version: number;
	length: number;
	first: string;
	last: string;
	edited: number[];
}

// unedit returns messages with the content recorded in the session put
// back for every message that an edit replaced, or messages itself when
// there is none. keep, when given, limits it to those message indices
// (and only they are looked at). Given the whole list, it looks again
// only at the messages appended since the last list of the same branch
// and edits (be.seen): the walk over every message grew with the session
// (43 µs a request at 2,000 messages).
export function unedit(messages: Message[], be: BranchEdits, keep?: Set<number>): Message[] {
	if (be.edits.size === 0) return messages;
	let out: Message[] | undefined;
	// put puts back message i's content if an edit replaced it, and says
	// whether its entry is edited (not omitted: then it is not here).
	const put = (i: number): boolean => {
		const m = messages[i];
		const t = be.target(m);
		if (!t || !be.edits.get(t.id)) return false;
		if (same(m.content, t.raw)) return true;
		out ??= messages.slice();
		out[i] = { ...m, content: t.raw };
		return true;
	};
	if (keep) {
		for (const i of keep) if (i >= 0 && i < messages.length) put(i);
		return out ?? messages;
	}
	const n = messages.length;
	const s = be.seen;
	const first = fingerprint(messages[0]);
	let from = 0;
	const edited: number[] = [];
	if (s && s.version === be.version && s.length > 0 && n >= s.length && first === s.first && fingerprint(messages[s.length - 1]) === s.last) {
		// A message not edited then is not now: its edit would have
		// changed the version. One edited then is looked at again (an
		// entry appended since may share its key, and then none is
		// edited).
		for (const i of s.edited) if (put(i)) edited.push(i);
		from = s.length;
	}
	for (let i = from; i < n; i++) if (put(i)) edited.push(i);
	be.seen = { version: be.version, length: n, first, last: fingerprint(messages[n - 1]), edited };
	return out ?? messages;
}

/** loadMessages lists the indices of the messages holding loads. */
export function loadMessages(where: Where): Set<number> {
	const out = new Set<number>();
	for (const w of where.values()) out.add(w.msg);
	return out;
}

// plan lists the edits that make the session's context hold what sent
// holds for each message with a load (loads: loadMessages): target id →
// content. A message whose entry says so already, or that cannot be told
// from another entry, or that Pi omits, needs none.
export function plan(sent: Message[], restored: Message[], loads: Set<number>, be: BranchEdits): Map<string, Content> {
	const out = new Map<string, Content>();
	for (const i of loads) {
		const t = be.target(restored[i]);
		if (!t) continue;
		const eff = be.effective(t);
		if (eff === null) continue;
		const want = sent[i]?.content ?? [];
		if (!same(want, eff)) out.set(t.id, want);
	}
	return out;
}

// archivedIn lists the loads of message i that content c shows as
// placeholders (the raw message being restored[i]; ids its loads).
function archivedIn(c: Content | undefined, i: number, restored: Message[], where: Where, ids: string[]): Set<string> {
	const out = new Set<string>();
	const text = textOf(c);
	for (const id of ids) {
		const w = where.get(id)!;
		if (w.kind === "reattach") {
			const b = reattachBlocks(restored[i]).find((x) => x.id === id);
			if (b && !text.includes(b.text)) out.add(id);
		} else if (w.kind === "command") {
			if (!SKILL_BLOCK.test(text)) out.add(id);
		} else if (!same(c, restored[i]?.content)) {
			out.add(id);
		}
	}
	return out;
}

// deferArchives is what context_edit_only sends: the context as Pi's
// entries make it (messages), but for a message where the sidecar takes an
// archive back, which is sent as the sidecar wants it now (sent). undefined
// when that is messages itself.
export function deferArchives(messages: Message[], restored: Message[], sent: Message[], where: Where, live: Set<string>): Message[] | undefined {
	let out: Message[] | undefined;
	const byMsg = new Map<number, string[]>(); // the loads of each message, in where's order
	for (const [id, w] of where) {
		const ids = byMsg.get(w.msg);
		if (ids) ids.push(id);
		else byMsg.set(w.msg, [id]);
	}
	for (const [i, ids] of byMsg) {
		for (const id of archivedIn(messages[i]?.content, i, restored, where, ids)) {
			if (live.has(id)) continue;
			out ??= messages.slice();
			out[i] = sent[i];
			break;
		}
	}
	return out;
}

/** sameContext says whether two lists of messages send the same contents. */
export function sameContext(a: Message[], b: Message[]): boolean {
	if (a === b) return true;
	if (a.length !== b.length) return false;
	return a.every((m, i) => m === b[i] || (m?.role === b[i]?.role && same(m?.content, b[i]?.content)));
}

// drafts turns the planned edits into the entries to propose now, on the
// branch as it is: targets still there, not omitted, not already saying so.
export function drafts(pending: Map<string, Content>, be: BranchEdits): ContextEditDraft[] {
	const out: ContextEditDraft[] = [];
	for (const [targetId, content] of pending) {
		const t = be.get(targetId);
		if (!t) continue;
		const eff = be.effective(t);
		if (eff === null || same(eff, content)) continue;
		out.push({ type: "context_edit", targetId, replacement: { content } });
	}
	return out;
}
