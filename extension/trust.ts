// Whether the project's own configuration may apply, and where Pi keeps the
// user's (docs/config.md, "Where the files are").

import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { record, type Context } from "./pi.ts";

/** agentDir is Pi's agent folder: PI_CODING_AGENT_DIR, or ~/.pi/agent. */
export function agentDir(): string {
	const d = process.env.PI_CODING_AGENT_DIR;
	if (d) return d.startsWith("~") ? join(homedir(), d.slice(1)) : d;
	return join(homedir(), ".pi", "agent");
}

/** The trust functions Pi 1.6 exports (dist/core/trust-manager.js, dist/cli/args.js). */
interface PiTrust {
	hasTrustRequiringProjectResources(cwd: string): boolean;
	parseArgs(args: string[]): { projectTrustOverride?: boolean };
	ProjectTrustStore: new (agentDir: string) => { get(cwd: string): boolean | null };
}

function isPiTrust(m: unknown): m is PiTrust {
	const r = record(m);
	return (
		typeof r?.hasTrustRequiringProjectResources === "function" &&
		typeof r.parseArgs === "function" &&
		typeof r.ProjectTrustStore === "function"
	);
}

// projectTrust says whether the project's own .pi/skill-lifecycle.json may
// apply (docs/config.md, "Where the files are"): true only when the user
// trusted this project, false when not, undefined when Pi cannot tell (Pi
// 0.73 has no project trust): the user file's trustProjectConfig decides
// then. ctx.isProjectTrusted() alone is not enough: Pi 1.6 reports a folder
// holding none of the files it gates (.pi/settings.json, .pi/extensions,
// .agents/skills, ...) as trusted although nobody was asked
// (dist/core/project-trust.js resolveProjectTrusted: `trustStore.get(cwd)
// ?? true`). For such a folder the file is taken as one Pi gates, and Pi's
// order applied without its prompt: -a/-na, then the saved decision in
// <agentDir>/trust.json (this folder or the nearest parent), then
// defaultProjectTrust "always"; anything else is no trust. Pi's own
// functions do it (exported by the package since 1.6).
export async function projectTrust(ctx: Context): Promise<boolean | undefined> {
	if (typeof ctx.isProjectTrusted !== "function") return undefined;
	try {
		if (!ctx.isProjectTrusted()) return false;
		const host: unknown = await import("@earendil-works/pi-coding-agent" as string);
		if (!isPiTrust(host)) return undefined; // Pi does not say: the user's opt-in decides
		if (host.hasTrustRequiringProjectResources(ctx.cwd)) return true; // Pi decided for this folder's files
		const override = host.parseArgs(process.argv.slice(2)).projectTrustOverride;
		if (typeof override === "boolean") return override;
		const saved = new host.ProjectTrustStore(agentDir()).get(ctx.cwd);
		if (typeof saved === "boolean") return saved;
		return record(readAgentSettings())?.defaultProjectTrust === "always";
	} catch {
		return undefined; // Pi does not say: the user's opt-in decides
	}
}

/** readAgentSettings is Pi's <agentDir>/settings.json, as JSON. */
function readAgentSettings(): unknown {
	try {
		return JSON.parse(readFileSync(join(agentDir(), "settings.json"), "utf8"));
	} catch {
		return undefined; // no settings file, or not JSON
	}
}
