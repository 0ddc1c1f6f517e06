// The /skills-* commands: the bridge registers them when Pi loads it (before
// any sidecar answers), and the sidecar carries them out (command).

import { safe, type Context, type Pi } from "./pi.ts";
import { asLevel, type Sidecar } from "./sidecar.ts";
import type { CommandSpec } from "./wire.ts";

// The commands, as the sidecar's initialize lists them
// (protocol.commandSpecs; protocol/commands_bridge_test.go keeps the two
// the same).
export const COMMANDS: CommandSpec[] = [
	{ name: "skills-list", description: "List the skills with their role and whether their body is loaded, archived or pinned; words given, those whose name or description holds them: /skills-list [words]" },
	{ name: "skills-explain", description: "Rank the skills for a prompt and say which loaded bodies would stay or go: /skills-explain <prompt>" },
	{ name: "skills-pin", description: "Keep a skill's body loaded whatever the topic: /skills-pin <name>" },
	{ name: "skills-unpin", description: "Let a pinned skill's body be archived again: /skills-unpin <name>" },
	{ name: "skills-reload", description: "Re-read the skills and skill-lifecycle.json" },
	{ name: "skills-model", description: "Show the model tiers in effect; /skills-model reset restores the model chosen before a tier switch" },
	{ name: "skills-on", description: "Turn skill lifecycle management on for this session" },
	{ name: "skills-off", description: "Turn skill lifecycle management off for this session (nothing is archived)" },
	{ name: "skills-stats", description: "This session so far with and without skill-lifecycle, in tokens and dollars (as `skill-lifecycle replay --recorded` computes it)" },
];

export function registerCommands(pi: Pi, side: Sidecar) {
	for (const c of COMMANDS) {
		pi.registerCommand(c.name, {
			description: c.description,
			handler: async (args: string, ctx: Context) => {
				side.ctx = ctx;
				if (!side.available) await side.start(ctx);
				// A bad argument is the sidecar's answer, shown once:
				// "command: args: unknown skill "x"" as "/skills-pin: unknown
				// skill "x"".
				let refused = "";
				const sessionFile = safe(() => ctx.sessionManager.getSessionFile?.()) ?? undefined;
				const res = await side.request("command", { name: c.name, args: args ?? "", sessionFile }, ctx, {
					// /skills-stats replays the session file.
					timeoutMs: c.name === "skills-stats" ? 30_000 : undefined,
					onError: (m) => {
						refused = m.replace(/^command: /, "").replace(/^args: /, "");
					},
				});
				if (refused) {
					const usage = /^missing \((usage: .*)\)$/.exec(refused);
					side.say(`skill-lifecycle: /${c.name}: ${usage ? `an argument is needed (${usage[1]})` : refused}`, "warning", ctx);
					return;
				}
				if (!res) {
					side.say(`skill-lifecycle: /${c.name} is unavailable (the sidecar is not running).`, "warning", ctx);
					return;
				}
				const level = asLevel(res.level);
				if (ctx?.hasUI) ctx.ui.notify(res.text, level);
				else process.stdout.write(`${res.text}\n`);
			},
		});
	}
}
