// What Pi has, in the protocol's terms: its skills, its models, and the
// skills section of its system prompt.

import { record, safe, type Context, type Model, type Pi, type PromptSkill } from "./pi.ts";
import type { HostModel, HostSkill, PromptCache } from "./wire.ts";

// hostSkills lists the skills Pi resolved, from its skill commands.
export function hostSkills(pi: Pi): HostSkill[] {
	const out: HostSkill[] = [];
	const cmds = safe(() => pi.getCommands?.()) ?? [];
	for (const c of cmds) {
		if (c?.source !== "skill") continue;
		const name = String(c.name ?? "").replace(/^skill:/, "");
		const path = c.sourceInfo?.path ?? c.path;
		if (!name || !path) continue;
		out.push({ name, description: c.description ?? "", path });
	}
	return out;
}

// skillsFromOptions reads the skills from before_agent_start's
// systemPromptOptions (it also says which are hidden from the model).
export function skillsFromOptions(opts: { skills?: PromptSkill[] } | undefined): HostSkill[] | undefined {
	if (!opts || !Array.isArray(opts.skills)) return undefined;
	return opts.skills
		.filter((s) => s?.name && s?.filePath)
		.map((s) => ({
			name: s.name,
			description: s.description ?? "",
			path: s.filePath,
			disableModelInvocation: s.disableModelInvocation === true ? true : undefined,
		}));
}

// wireSkills is a list as the sidecar is sent it: without the
// descriptions, which it reads from the skills' files (at 100,000 skills
// they were 60% of a 35 MB initialize). The bridge keeps them, to tell a
// changed list (sameSkills).
export function wireSkills(list: HostSkill[]): HostSkill[] {
	return list.map((s) => ({ name: s.name, path: s.path, disableModelInvocation: s.disableModelInvocation }));
}

export function sameSkills(a: HostSkill[], b: HostSkill[]): boolean {
	if (a.length !== b.length) return false;
	return a.every(
		(s, i) =>
			s.name === b[i].name &&
			s.path === b[i].path &&
			s.description === b[i].description &&
			!!s.disableModelInvocation === !!b[i].disableModelInvocation,
	);
}

// hostModels is Pi's model registry, with each model's prices, context
// window and cache lifetimes, and whether it has credentials.
export function hostModels(ctx: Context): HostModel[] {
	const list: Model[] = safe(() => ctx.modelRegistry?.getAll?.()) ?? safe(() => ctx.modelRegistry?.getAvailable?.()) ?? [];
	const avail = new Set<string>();
	for (const m of safe(() => ctx.modelRegistry?.getAvailable?.()) ?? []) avail.add(`${m.provider}/${m.id}`);
	return list.map((m) => ({
		provider: m.provider,
		id: m.id,
		name: m.name,
		input: typeof m.cost?.input === "number" ? m.cost.input : undefined,
		output: typeof m.cost?.output === "number" ? m.cost.output : undefined,
		cacheRead: typeof m.cost?.cacheRead === "number" ? m.cost.cacheRead : undefined,
		cacheWrite: typeof m.cost?.cacheWrite === "number" ? m.cost.cacheWrite : undefined,
		contextWindow: m.contextWindow ?? 0,
		reasoning: !!m.reasoning,
		promptCache: promptCacheOf(m.promptCache),
		hasAuth: avail.has(`${m.provider}/${m.id}`),
	}));
}

// promptCacheOf keeps the lifetimes (seconds) a model declares for Pi's
// cache tiers (Pi 1.6's promptCache), when they are numbers.
function promptCacheOf(pc: unknown): PromptCache | undefined {
	const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined);
	const short = num(record(pc)?.short);
	const long = num(record(pc)?.long);
	return short === undefined && long === undefined ? undefined : { short, long };
}

// replaceSkillsSection swaps Pi's skills block in a system prompt string (Pi
// 0.73, which has no structured sections) for the sidecar's section.
const PI_SKILLS_BLOCK = /\n*The following skills provide specialized instructions for specific tasks\.[\s\S]*?<\/available_skills>/;
export function replaceSkillsSection(prompt: string, section: string): string | undefined {
	if (!PI_SKILLS_BLOCK.test(prompt)) return undefined;
	return prompt.replace(PI_SKILLS_BLOCK, () => `\n\n${section}`);
}
