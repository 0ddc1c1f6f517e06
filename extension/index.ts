// skill-lifecycle bridge for the Pi coding agent.
//
// A thin extension: it spawns `skill-lifecycle serve` (a Go sidecar) and
// forwards Pi's events to it over JSON-RPC 2.0 with Content-Length framing
// (docs/protocol.md). The sidecar decides; the bridge applies its answers:
// it swaps archived skill bodies for placeholders before every model call
// (and, in Pi 1.6, records the swap in Pi's session as context edits),
// blocks direct reads of SKILL.md files, serves the `skill` tool, replaces
// the system prompt's skills section with a stable listing, records every
// decision as a custom session entry, and switches models when asked.
//
// This file wires Pi's events to the sidecar; the rest is in
//   pi.ts        the part of Pi the bridge uses, as types
//   wire.ts      the protocol's types (generated from the Go: internal/tsgen)
//   sidecar.ts   the sidecar process: start, restart, back-off, timeouts
//   loads.ts     the skill bodies in the context, and their placeholders
//   edits.ts     archiving through Pi 1.6's context edits (archiveVia)
//   host.ts      Pi's skills and models, and its prompt's skills section
//   tool.ts      the skill tool
//   commands.ts  the /skills-* commands
//   lines.ts     the lines in the transcript and the footer status
//   trust.ts     whether the project's configuration may apply
//   binary.ts    where the binary is
//
// It imports nothing from Pi statically, so it loads in Pi 1.6
// (@earendil-works/pi-coding-agent) and in 0.73 (@mariozechner/...); only
// the project-trust check imports Pi 1.6's own trust functions, when Pi
// has project trust at all.
// Everything fails open: if the sidecar is missing, crashes or does not
// answer in time, the event proceeds as without the extension, the user is
// told once, and the sidecar is restarted with its state restored from the
// session's records.

import { registerCommands } from "./commands.ts";
import { hostSkills, replaceSkillsSection, sameSkills, skillsFromOptions, wireSkills } from "./host.ts";
import { BranchEdits, canEdit, deferArchives, drafts, loadMessages, plan, sameContext, unedit, viaOf, warms } from "./edits.ts";
import { registerLines, setStatus } from "./lines.ts";
import { applyPatches, changes, fingerprint, isSkillFile, LoadIds, patchKey, plain, resolvePath, textOf, toWire, visibleAfter, type Where } from "./loads.ts";
import { record, safe, type Block, type BoundaryEvent, type BoundaryResult, type Context, type CustomMessage, type ImageBlock, type Pi, type TextBlock } from "./pi.ts";
import { debugLog, promptWaitMs, Sidecar, startWaitMs } from "./sidecar.ts";
import { skillTool } from "./tool.ts";
import { HINT_TYPE, REATTACH_TYPE, TOOL_NAME, type BeforeRequestParams, type BeforeRequestResult, type Patch } from "./wire.ts";

export default function skillLifecycle(pi: Pi) {
	const side = new Sidecar(pi);
	side.drawn = registerLines(pi);
	const ids = new LoadIds();
	let toolRegistered = false;
	let lastRequest = 0;
	let lastModel = "";
	let cacheCold = false;
	// Pi's warming since the previous request: "warm" (it refreshed the
	// cache), "stopped" (it decided to stop keeping it warm) or "".
	let warming: "" | "warm" | "stopped" = "";
	let lastWarmAt = 0; // when Pi last decided to refresh it, in this pause (0: not)
	// What the sidecar holds of the context (docs/protocol.md,
	// `before_request`): the messages of the last request it answered
	// (how many, and the fingerprints of the first and the last), for the
	// sidecar it was (its generation); resync forces a full send. held is
	// the sidecar's replacements, applied to every request.
	let sent = { generation: -1, length: 0, first: "", last: "", base: -1, asked: false };
	let resync = true;
	// The answer to a request sent under the sidecar's quiet word, not
	// waited for by the request itself; the next request waits for it.
	let unanswered: Promise<void> | undefined;
	const held = new Map<string, Patch>();
	// heldVersion counts the answers that changed held or the places.
	let heldVersion = 0;
	// When the last request the hook worked through sent Pi's own list
	// (Pi 1.6, context edits), what it was made from: a quiet request over
	// the same branch edits, replacements and places sends it too, and
	// plans the same edits, so the hook returns at once.
	let unchangedFrom: { be: BranchEdits; edits: number; held: number; generation: number } | undefined;
	// The loads' places the sidecar answered, also a change set (asked
	// for by Pi 1.6's bridge): the message of each load, and the archived.
	const where: Where = new Map();
	const archivedIds = new Set<string>();
	// take holds what an answer changes: the replacements, and the places
	// (dropped when the request did not ask for them).
	const take = (res: BeforeRequestResult, asked: boolean) => {
		if (!asked || changes(res)) heldVersion++;
		if (res.reset) held.clear();
		for (const k of res.clear ?? []) held.delete(patchKey(k));
		for (const p of res.set ?? []) held.set(patchKey(p), p);
		if (!asked || res.placesReset) {
			where.clear();
			archivedIds.clear();
		}
		for (const id of res.placesClear ?? []) {
			where.delete(id);
			archivedIds.delete(id);
		}
		for (const pl of res.places ?? []) {
			where.set(pl.id, { msg: pl.index, kind: pl.kind });
			if (pl.archived) archivedIds.add(pl.id);
			else archivedIds.delete(pl.id);
		}
	};

	// The system prompt's size, measured again only in a new run or with
	// other active tools: Pi 1.6 renders the whole prompt at each
	// getSystemPrompt() (about 130 µs at 200 messages), from the run's
	// options and its active tools.
	let promptEpoch = 0;
	let promptAt = -1; // the epoch it was measured in
	let promptTools: string[] | undefined; // the active tools then (undefined: Pi could not tell)
	let promptSize = 0;
	const toolName = (t: unknown) => (typeof t === "string" ? t : String(record(t)?.name ?? ""));
	const systemPromptSize = (ctx: Context): number => {
		const tools = safe(() => pi.getActiveTools?.());
		const list = Array.isArray(tools) ? tools : undefined;
		const same = promptAt === promptEpoch && (list && promptTools ? list.length === promptTools.length && list.every((t, i) => toolName(t) === promptTools![i]) : list === promptTools);
		if (!same) {
			promptSize = String(safe(() => ctx.getSystemPrompt?.()) ?? "").length;
			promptAt = promptEpoch;
			promptTools = list?.map(toolName);
		}
		return promptSize;
	};

	const registerTool = () => {
		if (toolRegistered || !side.init) return;
		toolRegistered = true;
		pi.registerTool(skillTool(side, ids, side.init.tool));
	};

	// skillToolOffered says whether the skill tool is registered in this
	// process and active (when Pi can tell).
	const skillToolOffered = (): boolean => {
		if (!toolRegistered || !side.init) return false;
		const active = safe(() => pi.getActiveTools?.());
		if (!Array.isArray(active)) return true;
		const name = side.init.tool.name;
		return active.some((t: unknown) => t === name || record(t)?.name === name);
	};

	const startAndRestore = async (ctx: Context) => {
		if (await side.start(ctx)) registerTool();
	};

	pi.on("session_start", async (_event, ctx) => {
		promptEpoch++;
		await startAndRestore(ctx);
	});

	// Pi before 0.65 reported switches and forks with their own events;
	// 0.73 and 1.6 rebuild the extension and send session_start again.
	const restoreBranch = async (_event: unknown, ctx: Context) => {
		side.ctx = ctx;
		resync = true;
		promptEpoch++;
		if (!side.available) {
			await startAndRestore(ctx);
			return;
		}
		await side.restore(ctx).catch(() => side.kill());
	};
	pi.on("session_tree", async (event, ctx) => {
		dropPending(); // planned for the branch left
		await restoreBranch(event, ctx);
	});
	pi.on("session_switch", restoreBranch);
	pi.on("session_fork", restoreBranch);

	pi.on("session_shutdown", async () => {
		await side.stop();
	});

	pi.on("before_agent_start", async (event, ctx) => {
		promptEpoch++;
		if (!side.available && !(await side.start(ctx))) return;
		// The sidecar may start here rather than at session_start (a slow
		// start): the skill tool is registered now, so the run offers it.
		registerTool();
		side.ctx = ctx;
		const fromOpts = skillsFromOptions(event?.systemPromptOptions);
		if (fromOpts && !sameSkills(fromOpts, side.skills)) {
			// Taken before the answer: a sidecar restarted after a failed
			// update starts from this list, not the old one (which would
			// send the update again, at every prompt). The request carries
			// the whole list, as initialize does, and waits as long.
			side.skills = fromOpts;
			const upd = await side.request("skills/update", { skills: wireSkills(fromOpts) }, ctx, { timeoutMs: startWaitMs(fromOpts.length) });
			if (upd && side.init) side.init.systemPromptSection = upd.systemPromptSection;
		}
		let hint: CustomMessage | undefined;
		if (event?.messageType !== "custom" && typeof event?.prompt === "string") {
			const res = await side.request("user_prompt", { text: event.prompt }, ctx, { timeoutMs: promptWaitMs(side.skills.length) });
			// A skills/update answered pending: the new listing, once read.
			if (res?.systemPromptSection && side.init) side.init.systemPromptSection = res.systemPromptSection;
			// A clear match whose body is not live: one line after the
			// prompt, never in the system prompt.
			if (res?.hint) hint = { customType: HINT_TYPE, content: res.hint, display: false, details: { skill: res.skill } };
		}
		const section = side.init?.systemPromptSection;
		if (!section || !side.available) return hint ? { message: hint } : undefined;
		const sections = event?.systemPromptOptions?.sections;
		if (sections && typeof sections === "object") {
			// Pi 1.6: replace the structured "skills" section in place; it is
			// the same text every turn, so Pi sends no prompt patch.
			if (sections.skills !== section) sections.skills = section;
			return hint ? { message: hint } : undefined;
		}
		const replaced = replaceSkillsSection(String(event?.systemPrompt ?? ""), section);
		if (replaced === undefined) return hint ? { message: hint } : undefined;
		return hint ? { systemPrompt: replaced, message: hint } : { systemPrompt: replaced };
	});

	// Edits to propose at the next turn boundary (archiveVia context_edit,
	// Pi 1.6): target entry id → content, planned afresh at each request.
	// The turn_end handler is on only while there is one, and, when Pi may
	// keep the model's cache warm, only in a turn that ran tools: Pi
	// rebuilds its context at every boundary that has a handler, and a
	// context rebuilt after the run's last request stops its idle cache
	// warming (cache-warmer.js: the context is no longer "current").
	let pending = new Map<string, string | Block[]>();
	let offBoundary: (() => void) | undefined;
	const propose = async (event: BoundaryEvent, ctx: Context): Promise<BoundaryResult | undefined> => {
		const ds = drafts(pending, BranchEdits.of(ctx));
		dropPending();
		if (ds.length === 0) return;
		return { entries: [...(Array.isArray(event?.entries) ? event.entries : []), ...ds] };
	};
	const awaitBoundary = () => {
		if (offBoundary || pending.size === 0) return;
		const off = pi.on("turn_end", propose);
		offBoundary = () => typeof off === "function" && off();
	};
	const dropPending = () => {
		pending = new Map();
		offBoundary?.();
		offBoundary = undefined;
	};
	// lost forgets what a before_request without an answer leaves unsure:
	// the next request sends everything, and nothing is planned from places.
	const lost = () => {
		resync = true;
		heldVersion++;
		where.clear();
		archivedIds.clear();
		dropPending();
	};
	// A tool ran: the turn's end is followed by another request.
	pi.on("tool_execution_end", async () => {
		awaitBoundary();
	});

	pi.on("context", async (event, ctx) => {
		const given = Array.isArray(event?.messages) ? event.messages : [];
		// Pi 1.6 sends its projection: the bodies the bridge edited away
		// come as placeholders. They are put back as recorded (only in the
		// messages that hold loads: another extension's edits stay), so the
		// sidecar sees the request as in hook mode, and so does the model
		// when the sidecar does not answer (fail open).
		const be = canEdit(ctx) ? BranchEdits.of(ctx) : undefined;
		const base = systemPromptSize(ctx);
		// Every edited message is put back for the sidecar (its view stays
		// the same from request to request, so the deltas hold); its answer
		// says which hold loads, and only those stay put back.
		const messages = be ? unedit(given, be) : given;
		if (!side.available && !side.init) return messages !== given ? { messages } : undefined;
		const via = be ? viaOf(side.init?.archiveVia) : "hook";
		// The loads' places are asked for where edits are or will be.
		const asked = !!be && (via !== "hook" || messages !== given);
		const now = Date.now();
		// The time since the previous request: this process's last one, else
		// the last assistant message on the branch (a resumed session).
		let previous = lastRequest;
		if (!previous) {
			for (let i = messages.length - 1; i >= 0; i--) {
				const t = messages[i]?.timestamp;
				if (messages[i]?.role === "assistant" && typeof t === "number") {
					previous = t;
					break;
				}
			}
		}
		const since = previous ? Math.max(0, now - previous) : 0;
		lastRequest = now;
		const model = ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : "";
		const modelChanged = lastModel !== "" && model !== lastModel;
		lastModel = model;
		const cold = cacheCold; // a compaction
		const warm = warming === "warm" && !cold; // Pi refreshed the cache during the pause
		const stopped = warming === "stopped" && !cold; // Pi stopped keeping it warm
		// How old Pi's last refresh is: it stops refreshing without an
		// event after 30 idle minutes, and after a "stop" the lifetime
		// runs from the last refresh.
		const sinceWarmedMs = (warm || stopped) && lastWarmAt > 0 ? Math.max(1, now - lastWarmAt) : 0;
		cacheCold = false;
		warming = "";
		lastWarmAt = 0;
		// The messages the sidecar holds are sent again only when the
		// bridge cannot prove this list appends to them; the params are
		// made for each attempt, so a restarted sidecar gets them all.
		if (unanswered) await unanswered;
		const n = messages.length;
		const first = fingerprint(messages[0]);
		const appends = () =>
			!resync &&
			sent.generation === side.generation &&
			sent.length > 0 &&
			n >= sent.length &&
			first === sent.first &&
			fingerprint(messages[sent.length - 1]) === sent.last;
		const paramsFrom = (from: number): BeforeRequestParams => {
			return {
				from,
				messages: messages.slice(from).map(toWire),
				systemPromptSize: base,
				cwd: ctx.cwd,
				sincePreviousMs: since,
				cacheCold: cold,
				cacheWarm: warm,
				cacheStopped: stopped,
				sinceWarmedMs,
				modelChanged,
				places: asked || undefined,
			};
		};
		const params = () => paramsFrom(appends() ? sent.length : 0);
		// The sidecar said quiet, and this request only appends plain
		// messages in the same conditions: its answer will change nothing
		// but the footer, so the request goes on without waiting for it.
		const quiet =
			side.quiet &&
			appends() &&
			base === sent.base &&
			asked === sent.asked &&
			!cold &&
			!warm &&
			!stopped &&
			!modelChanged &&
			messages.slice(sent.length).every(plain);
		let res: BeforeRequestResult | undefined;
		if (quiet) {
			// Made when sent, after the hook; a restarted sidecar gets everything.
			const from = sent.length;
			const gen = side.generation;
			const again = () => paramsFrom(side.generation === gen ? from : 0);
			debugLog(`before_request from ${from}: quiet, sent after the hook without waiting`);
			unanswered = new Promise<void>((done) =>
				side.defer(() => {
					side
						.request("before_request", again, ctx, { onError: () => undefined })
						.then((late) => {
							if (!late) return lost();
							setStatus(ctx, late.status);
							take(late, asked);
							if (changes(late)) debugLog("a quiet request's answer changed the replacements or places; taken for the next request");
							side.quiet = !!late.quiet && !changes(late);
						})
						.finally(() => {
							unanswered = undefined;
							done();
						});
				}),
			);
			res = {};
		} else {
			let refused = false;
			res = await side.request("before_request", params, ctx, { onError: () => (refused = true) });
			if (!res && refused) {
				// The sidecar did not take the delta: send everything, once.
				resync = true;
				res = await side.request("before_request", params, ctx);
			}
			setStatus(ctx, res?.status);
			if (!res) {
				// No answer: the request goes whole, and the next sends all.
				lost();
				return messages !== given ? { messages } : undefined;
			}
			take(res, asked);
			side.quiet = !!res.quiet;
		}
		sent = { generation: side.generation, length: n, first, last: fingerprint(messages[n - 1]), base, asked };
		resync = false;
		const was = unchangedFrom;
		unchangedFrom = undefined;
		if (quiet && be && asked && was && was.be === be && was.edits === be.version && was.held === heldVersion && was.generation === side.generation) {
			unchangedFrom = was;
			debugLog("before_request: quiet over what the last answer left unchanged; Pi's list goes as it is");
			return;
		}
		if (!be || !asked) {
			const out = applyPatches(messages, held);
			return out ? { messages: out } : messages !== given ? { messages } : undefined;
		}
		// From the loads' places and the archived ones: only the messages
		// that hold loads stay put back (another extension's edits stay),
		// and the edits are planned from them.
		const loads = loadMessages(where);
		const restored = messages === given ? given : unedit(given, be, loads);
		const applied = applyPatches(restored, held) ?? restored;
		let out = applied;
		if (via !== "hook") {
			dropPending();
			pending = plan(applied, restored, loads, be);
			if (!warms(ctx.model)) awaitBoundary();
			if (via === "context_edit_only") out = deferArchives(given, restored, applied, where, archivedIds) ?? given;
		}
		if (!sameContext(out, given)) return { messages: out };
		if (via !== "hook") unchangedFrom = { be, edits: be.version, held: heldVersion, generation: side.generation };
	});

	pi.on("tool_call", async (event, ctx) => {
		if (event?.toolName !== "read" && event?.toolName !== "bash") return;
		if (!side.available && !side.init) return;
		// Reads of SKILL.md are blocked only while the skill tool is offered:
		// without it the model has no other way to load a skill.
		if (!skillToolOffered()) return;
		// The read the skill tool's fallback asked for is served.
		const path = record(event.input)?.path;
		if (event.toolName === "read" && typeof path === "string") {
			const p = resolvePath(path, ctx.cwd);
			if (side.readable.delete(p)) return;
		}
		const res = await side.request("tool_call", { toolName: event.toolName, callId: event.toolCallId, input: event.input, cwd: ctx.cwd }, ctx);
		if (res?.block) return { block: true, reason: res.reason };
	});

	// A read of a skill's file gets its own id in its result (resultId),
	// whether or not the sidecar is up. Any other tool's result is shown
	// to the sidecar (tool_result): a skill's body whole in it becomes a
	// load (details.skillBody, read by findLoads), and a use of the files
	// of an archived skill gets the sidecar's one-line note appended.
	pi.on("tool_result", async (event, ctx) => {
		if (!event || event.toolName === TOOL_NAME) return;
		const details = event.details && typeof event.details === "object" && !Array.isArray(event.details) ? (event.details as Record<string, unknown>) : {};
		let out: { details?: Record<string, unknown>; content?: (TextBlock | ImageBlock)[] } | undefined;
		const path = record(event.input)?.path;
		const p = event.toolName === "read" && typeof path === "string" && path ? resolvePath(path, ctx.cwd) : "";
		if (p && !event.isError && isSkillFile(p, side.skills.length ? side.skills : hostSkills(pi))) {
			out = { details: { ...details, loadId: ids.mint(event.toolCallId, ctx) } };
		}
		if (!side.available && !side.init) return out;
		const content = Array.isArray(event.content) ? event.content : [];
		const res = await side.request("tool_result", { toolName: event.toolName, callId: event.toolCallId, input: event.input, cwd: ctx.cwd, text: textOf(content), isError: !!event.isError }, ctx);
		side.quiet = !!res?.quiet;
		if (res?.body?.skill && !out) {
			out = { details: { ...details, loadId: ids.mint(event.toolCallId, ctx), skillBody: { skill: res.body.skill, hash: res.body.hash } } };
		}
		if (res?.note) {
			out = { ...(out ?? {}), content: [...content, { type: "text", text: res.note }] };
		}
		return out;
	});

	pi.on("agent_start", async (_event, ctx) => {
		promptEpoch++;
		if (side.available || side.init) await side.request("run/start", {}, ctx);
	});
	pi.on("agent_end", async (_event, ctx) => {
		promptEpoch++;
		if (side.available || side.init) await side.request("run/end", {}, ctx);
		await side.modelSwitch.catch(() => undefined);
	});

	// The provider's prompt cache is known to be cold after compaction.
	pi.on("session_compact", async (event, ctx) => {
		cacheCold = true;
		resync = true;
		const entry = event?.compactionEntry;
		if (!entry?.id || (!side.available && !side.init)) return;
		const res = await side.request("session/compact", { id: entry.id, visible: visibleAfter(ctx, entry.firstKeptEntryId) }, ctx);
		if (!res?.text) return;
		// One custom message right after the summary (sent to the model as a
		// user message, kept in the session, so a resume or fork has it).
		const msg: CustomMessage = { customType: REATTACH_TYPE, content: res.text, display: false, details: { compactionId: entry.id, bodies: res.bodies } };
		try {
			if (typeof ctx.isIdle === "function" && !ctx.isIdle()) pi.sendMessage(msg, { deliverAs: "steer" });
			else pi.sendMessage(msg);
		} catch (err) {
			side.say(`skill-lifecycle: could not re-attach skills after compaction: ${record(err)?.message}`, "warning", ctx);
		}
	});
	// Pi 1.6 refreshes an idle prompt cache and asks extensions first; we
	// only listen (no action returned). "warm" means it is refreshed now;
	// "stop" means nobody refreshes it any more, so it goes cold once its
	// lifetime has run from the last request or refresh (the sidecar knows
	// the lifetime).
	pi.on("cache_warming_decision", async (event) => {
		if (event?.action === "stop") {
			warming = "stopped";
		} else if (event?.action === "warm") {
			warming = "warm";
			lastWarmAt = Date.now();
		}
	});

	pi.on("model_select", async (event, ctx) => {
		if (!side.available && !side.init) return;
		if (side.switching) return; // our own switch: reported once it is complete
		const m = event?.model;
		if (!m) return;
		await side.request(
			"model/changed",
			{ model: { provider: m.provider, id: m.id }, thinkingLevel: safe(() => pi.getThinkingLevel?.()) ?? "", source: event?.source ?? "" },
			ctx,
		);
	});

	registerCommands(pi, side);
}
