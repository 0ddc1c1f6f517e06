// The skill tool: Pi runs it, the sidecar answers (skill/load). While the
// sidecar is down it tells the model to read the skill's SKILL.md instead,
// and that read is served, so the model always gets the body it asked for.

import { resolve } from "node:path";
import type { LoadIds } from "./loads.ts";
import { record, type ToolDefinition } from "./pi.ts";
import type { Sidecar } from "./sidecar.ts";
import type { ToolSpec } from "./wire.ts";

// skillTool is the tool as the sidecar's initialize describes it.
export function skillTool(side: Sidecar, ids: LoadIds, spec: ToolSpec): ToolDefinition {
	return {
		name: spec.name,
		label: spec.label,
		description: spec.description,
		promptSnippet: spec.promptSnippet,
		parameters: spec.parameters,
		async execute(toolCallId, params, _signal, _onUpdate, ctx) {
			const name = String(record(params)?.name ?? "").trim();
			const query = String(record(params)?.query ?? "").trim();
			if (!name && query) return search(side, query, ctx);
			// Named before anything is awaited: parallel calls get their
			// ids in call order.
			const loadId = ids.mint(toolCallId, ctx);
			// A load that fails (no answer, the sidecar died, junk on the
			// stream) is tried again once on a restarted sidecar.
			const res = await side.request("skill/load", { name, callId: loadId }, ctx, { retryLate: true });
			const s = side.skills.find((k) => k.name === name);
			if (!res) {
				if (!s) {
					throw new Error(`The skill tool is unavailable right now, and no skill named "${modelText(name)}" is listed; see <available_skills>.`);
				}
				// The model reads the file instead: that read is served
				// (never blocked) and counts as a load of the skill.
				side.readable.add(resolve(s.path));
				throw new Error(`The skill tool is unavailable right now; read ${modelText(s.path)} with the read tool instead.`);
			}
			if (s) side.readable.delete(resolve(s.path));
			if (!res.found) throw new Error(res.text);
			// A model tier switch asked for by this load is made before
			// the next request.
			await side.modelSwitch.catch(() => undefined);
			return {
				content: [{ type: "text", text: res.text }],
				details: { skill: res.name, hash: res.hash, baseDir: res.baseDir, loadId },
			};
		},
	};
}

// search answers a query (skill/search). While the sidecar is down it
// answers from the skills Pi listed: those whose name or description holds
// the most of the query's words.
async function search(side: Sidecar, query: string, ctx: Parameters<ToolDefinition["execute"]>[4]) {
	const res = await side.request("skill/search", { query }, ctx, { retryLate: true });
	if (res) return { content: [{ type: "text" as const, text: res.text }], details: { query, matches: res.matches ?? [] } };
	const words = query.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 2);
	const scored = side.skills
		.filter((s) => !s.disableModelInvocation)
		.map((s) => {
			const hay = `${s.name} ${s.description}`.toLowerCase();
			return { s, n: words.filter((w) => hay.includes(w)).length };
		})
		.filter((x) => x.n > 0)
		.sort((a, b) => b.n - a.n)
		.slice(0, 5);
	if (scored.length === 0) throw new Error(`No skill matches "${modelText(query)}"; see <available_skills>.`);
	const lines = scored.map((x) => `- ${modelText(x.s.name)}: ${modelText(String(x.s.description).slice(0, 200))}`);
	const text = `Skills matching "${modelText(query)}" (load one with the skill tool and its name):\n${lines.join("\n")}`;
	return { content: [{ type: "text" as const, text }], details: { query } };
}

// modelText is the sidecar's skills.ModelText (skills/escape.go), for the
// bridge's own answers to the model while the sidecar is down: <, > and "
// escaped, and every control character (C0, C1, DEL, U+2028/9, the
// bidirectional controls; a lone surrogate too) shown as an escape, so a
// skill's name or path can neither open a tag nor start a line.
function modelText(s: string): string {
	let out = "";
	for (const ch of String(s)) {
		const c = ch.codePointAt(0) ?? 0;
		if (ch === "<") out += "&lt;";
		else if (ch === ">") out += "&gt;";
		else if (ch === '"') out += "&quot;";
		else if (ch === "\n") out += "\\n";
		else if (ch === "\t") out += "\\t";
		else if (ch === "\r") out += "\\r";
		else if (
			c < 0x20 ||
			(c >= 0x7f && c <= 0x9f) ||
			c === 0x2028 ||
			c === 0x2029 ||
			c === 0x061c ||
			c === 0x200e ||
			c === 0x200f ||
			(c >= 0x202a && c <= 0x202e) ||
			(c >= 0x2066 && c <= 0x2069) ||
			(c >= 0xd800 && c <= 0xdfff)
		)
			out += "\\u" + c.toString(16).padStart(4, "0");
		else out += ch;
	}
	return out;
}
