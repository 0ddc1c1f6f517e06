// What the user sees of the lifecycle: one line in the transcript per
// archive, restore, comeback and model change (the sidecar's host/line,
// sent only when its configuration's verbose is on), and a footer status.
//
// A line is a custom session entry (pi.appendEntry), which Pi never sends
// to the model. Pi 1.6 draws it in the transcript through an entry
// renderer, dim like its own "Switched to ..." line; Pi 0.73 has no entry
// renderers, so the line is also shown as a notification there. Print
// mode shows none (as Pi shows its own status lines only in its UI; its
// stderr is for problems): the session file has them.

import { record, safe, type Context, type Pi } from "./pi.ts";
import { LINE_TYPE, type LineParams } from "./wire.ts";

// cols is how many terminal columns s takes, counted high: every code
// point past U+10FF as two (wide), so a line cut to fit never overflows.
function cols(ch: string): number {
	return (ch.codePointAt(0) ?? 0) > 0x10ff ? 2 : 1;
}

// fit cuts text to width columns, ending in an ellipsis (one column)
// when it was longer.
export function fit(text: string, width: number): string {
	const chars = Array.from(text);
	if (chars.reduce((n, c) => n + cols(c), 0) <= width) return text;
	if (width <= 0) return "";
	let used = 0;
	let out = "";
	for (const c of chars) {
		if (used + cols(c) > width - 1) break;
		out += c;
		used += cols(c);
	}
	return `${out}…`;
}

/** The theme an entry renderer gets (Pi 1.6's Theme), as far as used. */
interface Theme {
	fg(color: string, text: string): string;
}

// lineComponent is a one-line TUI component (pi-tui's Component: render
// to lines no wider than width), padded by one column like Pi's status
// lines.
function lineComponent(text: string, theme: Theme | undefined) {
	return {
		render(width: number): string[] {
			const body = fit(text, Math.max(0, width - 2));
			const dim = safe(() => theme?.fg("dim", body)) ?? body;
			return [` ${dim}`];
		},
		invalidate() {},
	};
}

// registerLines registers the renderer of the lines where Pi has entry
// renderers (1.6). It says whether it did.
export function registerLines(pi: Pi): boolean {
	if (typeof pi.registerEntryRenderer !== "function") return false;
	try {
		pi.registerEntryRenderer(LINE_TYPE, (entry, _opts, theme) => {
			const text = record(entry?.data)?.text;
			if (typeof text !== "string" || text === "") return undefined;
			// The sidecar made the text safe for a terminal; a line is one
			// line whatever the entry holds.
			return lineComponent(text.replace(/[\x00-\x1f\x7f]/g, " "), theme as Theme | undefined);
		});
		return true;
	} catch {
		return false;
	}
}

// showLine records a line in the session and, where Pi cannot draw it
// but has a UI, shows it as a notification.
export function showLine(pi: Pi, line: LineParams | undefined, drawn: boolean, ctx: Context | undefined, warn: (msg: string) => void) {
	if (!line || typeof line.text !== "string" || line.text === "") return;
	try {
		pi.appendEntry(LINE_TYPE, line);
	} catch (err) {
		warn(`skill-lifecycle: could not record a line: ${record(err)?.message}`);
	}
	if (!drawn && ctx?.hasUI) safe(() => ctx.ui.notify(line.text, "info"));
}

// setStatus shows the footer status (Pi's ctx.ui.setStatus), when there is
// a UI.
export function setStatus(ctx: Context | undefined, text: string | undefined) {
	if (!ctx?.hasUI || typeof text !== "string" || text === "") return;
	safe(() => ctx.ui.setStatus?.("skill-lifecycle", text));
}
