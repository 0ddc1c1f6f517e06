// Differential check of the bridge's unedit (extension/edits.ts), run by
// TestUneditLooksOnlyAtNewMessages: over random sessions that grow,
// gain context edits, compact and lose a message to another extension,
// unedit on the branch's kept BranchEdits (which looks again only at the
// appended messages) must give exactly what it gives on a BranchEdits
// built afresh from the whole branch. It prints the number of lists
// compared, or throws at the first difference.
import { BranchEdits, unedit } from "../../../extension/edits.ts";

let seed = 30;
const rand = (n: number) => {
	seed = (seed * 1103515245 + 12345) % 2147483648;
	return seed % n;
};

type AnyEntry = any;

let compared = 0;
for (let session = 0; session < 200; session++) {
	const entries: AnyEntry[] = [];
	let messages: AnyEntry[] = []; // the branch's messages, with their entry ids
	let clock = 1000;
	let next = 0;
	const be: AnyEntry = new (BranchEdits as any)([]);
	for (let step = 0; step < 60; step++) {
		const added: AnyEntry[] = [];
		for (let k = 1 + rand(4); k > 0; k--) {
			const id = "m" + next++;
			const kind = rand(4);
			// Keys repeat now and then (a tool call id, a timestamp), so
			// that an entry appended later makes an earlier one ambiguous.
			const callId = "c" + (rand(8) === 0 ? rand(Math.max(1, next)) : next);
			const ts = rand(10) === 0 ? clock - rand(5) : ++clock;
			const msg =
				kind === 0
					? { role: "user", content: [{ type: "text", text: "prompt " + id }], timestamp: ts }
					: kind === 1
						? { role: "assistant", content: [{ type: "text", text: "reply " + id }], timestamp: ts }
						: { role: "toolResult", toolCallId: callId, toolName: "skill", content: [{ type: "text", text: "body of " + id + " ".repeat(rand(50)) }], timestamp: ts };
			const e = { id, type: "message", message: msg };
			added.push(e);
			messages.push(e);
		}
		if (rand(3) === 0 && messages.length > 0) {
			// An edit: a new placeholder, a revert or an omission.
			const target = messages[rand(messages.length)];
			const r = rand(5);
			const replacement = r === 0 ? null : r === 1 ? { content: target.message.content } : { content: [{ type: "text", text: "[archived " + step + "]" }] };
			added.push({ id: "e" + next++, type: "context_edit", targetId: target.id, replacement });
		}
		entries.push(...added);
		be.add(added);
		// Pi's projection: each message as its latest edit says, an
		// omitted one left out.
		const latest = new Map<string, AnyEntry>();
		for (const e of entries) if (e.type === "context_edit") latest.set(e.targetId, e.replacement);
		let given = messages
			.filter((e) => latest.get(e.id) !== null)
			.map((e) => (latest.has(e.id) ? { ...e.message, content: latest.get(e.id).content } : { ...e.message }));
		const change = rand(12);
		if (change === 0 && messages.length > 4) {
			// A compaction: a summary first, the older messages gone.
			const cut = 1 + rand(messages.length - 2);
			messages = messages.slice(cut);
			given = [{ role: "user", content: [{ type: "text", text: "summary " + step }], timestamp: ++clock }, ...given.slice(Math.min(cut, given.length - 1))];
		} else if (change === 1 && given.length > 3) {
			// Another extension's hook dropped a message.
			given = given.filter((_, i) => i !== 1 + rand(given.length - 2));
		}
		const got = unedit(given, be);
		const want = unedit(given, new (BranchEdits as any)(entries));
		if (JSON.stringify(got) !== JSON.stringify(want)) {
			throw new Error(`session ${session}, step ${step}: unedit on the kept BranchEdits differs from a fresh one\ngot:  ${JSON.stringify(got)}\nwant: ${JSON.stringify(want)}`);
		}
		if ((got === given) !== (want === given)) throw new Error(`session ${session}, step ${step}: one returned the list itself, the other a copy`);
		compared++;
	}
}
console.log(`${compared} lists compared`);
