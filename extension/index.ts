// skill-lifecycle bridge for the Pi coding agent.
//
// A thin extension: it spawns `skill-lifecycle serve` (a Go sidecar) and
// forwards Pi's events to it over JSON-RPC 2.0 with Content-Length framing
// (docs/protocol.md). The sidecar decides; the bridge applies its answers:
// it swaps archived skill bodies for placeholders before every model call,
// blocks direct reads of SKILL.md files, serves the `skill` tool, replaces
// the system prompt's skills section with a stable listing, records every
// decision as a custom session entry, and switches models when asked.
//
// It imports nothing from Pi statically, so it loads in Pi 1.6
// (@earendil-works/pi-coding-agent) and in 0.73 (@mariozechner/...); only
// the project-trust check imports Pi 1.6's own trust functions, when Pi
// has project trust at all.
// Everything fails open: if the sidecar is missing, crashes or does not
// answer in time, the event proceeds as without the extension, the user is
// told once, and the sidecar is restarted with its state restored from the
// session's records.

import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, delimiter, dirname, isAbsolute, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
// Types only: the module itself is loaded when the sidecar first starts
// (loadRpc), so that a missing dependency fails open instead of stopping Pi.
import type { MessageConnection, StreamMessageWriter } from "vscode-jsonrpc/node";

// ---- Protocol (mirrors protocol/types.go) ---------------------------------

const PROTOCOL_VERSION = 1;
const ENTRY_TYPE = "skill-lifecycle";
// The custom message that carries the bodies re-attached after a compaction.
const REATTACH_TYPE = "skill-lifecycle-reattach";
const TOOL_NAME = "skill";

interface HostSkill {
	name: string;
	description: string;
	path: string;
	disableModelInvocation?: boolean;
}

interface InitializeResult {
	protocolVersion: number;
	serverVersion: string;
	systemPromptSection: string;
	tool: { name: string; label: string; description: string; promptSnippet: string; parameters: Record<string, unknown> };
	commands: { name: string; description: string }[];
	diagnostics?: string[];
}

interface SkillLoadResult {
	found: boolean;
	name?: string;
	text: string;
	baseDir?: string;
	files?: string[];
	hash?: string;
}

interface LoadRef {
	id: string;
	skill: string;
	kind: "tool" | "read" | "command" | "reattach" | "resource";
	size: number;
	hash?: string;
	path?: string; // a resource: the file of the skill's folder, as read
	offset: number; // characters before the body in the request (system prompt included)
}

interface BeforeRequestResult {
	archive: { id: string; placeholder: string }[];
}

// The commands the bridge registers; the sidecar implements them.
const COMMANDS: { name: string; description: string }[] = [
	{ name: "skills-list", description: "List the skills with their role and whether their body is loaded, archived or pinned" },
	{ name: "skills-explain", description: "Rank the skills for a prompt and say which loaded bodies would stay or go: /skills-explain <prompt>" },
	{ name: "skills-pin", description: "Keep a skill's body loaded whatever the topic: /skills-pin <name>" },
	{ name: "skills-unpin", description: "Let a pinned skill's body be archived again: /skills-unpin <name>" },
	{ name: "skills-reload", description: "Re-read the skills and skill-lifecycle.json" },
	{ name: "skills-model", description: "Show the model tiers in effect; /skills-model reset restores the model chosen before a tier switch" },
	{ name: "skills-on", description: "Turn skill lifecycle management on for this session" },
	{ name: "skills-off", description: "Turn skill lifecycle management off for this session (nothing is archived)" },
];

// ---- Small helpers ----------------------------------------------------------

type Ctx = any; // Pi's ExtensionContext (no runtime import from Pi)
type Pi = any; // Pi's ExtensionAPI

function timeoutMs(): number {
	const v = Number(process.env.SKILL_LIFECYCLE_TIMEOUT_MS);
	return Number.isFinite(v) && v > 0 ? v : 1500;
}

function agentDir(): string {
	const d = process.env.PI_CODING_AGENT_DIR;
	if (d) return d.startsWith("~") ? join(homedir(), d.slice(1)) : d;
	return join(homedir(), ".pi", "agent");
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
async function projectTrust(ctx: Ctx): Promise<boolean | undefined> {
	if (typeof ctx.isProjectTrusted !== "function") return undefined;
	try {
		if (!ctx.isProjectTrusted()) return false;
		const host: any = await import("@earendil-works/pi-coding-agent" as string);
		if (host.hasTrustRequiringProjectResources(ctx.cwd)) return true; // Pi decided for this folder's files
		const override = host.parseArgs(process.argv.slice(2)).projectTrustOverride;
		if (typeof override === "boolean") return override;
		const saved = new host.ProjectTrustStore(agentDir()).get(ctx.cwd);
		if (typeof saved === "boolean") return saved;
		return readAgentSettings()?.defaultProjectTrust === "always";
	} catch {
		return undefined; // Pi does not say: the user's opt-in decides
	}
}

function readAgentSettings(): any {
	try {
		return JSON.parse(readFileSync(join(agentDir(), "settings.json"), "utf8"));
	} catch {
		return undefined; // no settings file, or not JSON
	}
}

function isExecutable(p: string): boolean {
	try {
		const st = statSync(p);
		// Windows has no execute bits.
		return st.isFile() && (process.platform === "win32" || (st.mode & 0o111) !== 0);
	} catch {
		return false;
	}
}

// The bridge's own folder, and a require that resolves from it (what Pi
// loads the bridge with may not offer one).
const bridgeDir = safe(() => dirname(fileURLToPath(import.meta.url))) ?? process.cwd();
const bridgeRequire = createRequire(join(bridgeDir, "index.ts"));
const binaryName = process.platform === "win32" ? "skill-lifecycle.exe" : "skill-lifecycle";

type Rpc = typeof import("vscode-jsonrpc/node");
let rpc: Rpc | undefined;

// loadRpc loads vscode-jsonrpc once; it throws when the dependency is not
// installed (a local copy of the bridge without `npm ci`).
function loadRpc(): Rpc {
	rpc ??= bridgeRequire("vscode-jsonrpc/node") as Rpc;
	return rpc;
}

// packagedBinary is the binary of the platform package that `pi install
// npm:skill-lifecycle` installs beside the bridge (an optional dependency
// per platform, built by scripts/package.sh), if there is one.
function packagedBinary(): string | undefined {
	try {
		const manifest = bridgeRequire.resolve(`@skill-lifecycle/${process.platform}-${process.arch}/package.json`);
		const p = join(dirname(manifest), "bin", binaryName);
		return isExecutable(p) ? p : undefined;
	} catch {
		return undefined; // not installed: a checkout, or another platform
	}
}

// findBinary: the platform package's binary, then SKILL_LIFECYCLE_BIN,
// then skill-lifecycle on PATH (docs/protocol.md, "The bridge's side").
function findBinary(): string | undefined {
	const packaged = packagedBinary();
	if (packaged) return packaged;
	const env = process.env.SKILL_LIFECYCLE_BIN;
	if (env) return isExecutable(env) ? env : undefined;
	for (const dir of (process.env.PATH ?? "").split(delimiter)) {
		if (!dir) continue;
		const p = join(dir, binaryName);
		if (isExecutable(p)) return p;
	}
	return undefined;
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((c: any) => c && c.type === "text" && typeof c.text === "string")
		.map((c: any) => c.text)
		.join("\n");
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const t = new Promise<T>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
	});
	return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

// ---- The sidecar --------------------------------------------------------------

class Sidecar {
	private proc?: ChildProcess;
	private conn?: MessageConnection;
	private starting?: Promise<boolean>;
	private up = false;
	private disabled = false; // a version mismatch or a missing binary: do not retry
	private told = false;
	private shown = new Set<string>(); // diagnostics already shown
	private restarts: number[] = [];
	// Backing off a sidecar that does not work: failures counts the events
	// that failed (no answer, or the sidecar died) since the last answer;
	// after a failed start, or a second failure in a row, startFailures
	// counts up and the next start waits until nextStartAt (5 s, doubling
	// to 60 s) and runs in the background, so a binary that hangs costs the
	// first wait, not one per event. Any answer ends it.
	private failures = 0;
	private startFailures = 0;
	private nextStartAt = 0;
	private background = false; // the start in progress is not waited for
	// The SKILL.md files the skill tool's fallback told the model to read
	// (resolved paths): such a read is not blocked (once).
	readable = new Set<string>();
	init?: InitializeResult;
	skills: HostSkill[] = [];
	ctx?: Ctx;
	// modelSwitch settles when the model switches asked so far are done;
	// switching is true while the bridge itself changes the model.
	modelSwitch: Promise<void> = Promise.resolve();
	switching = false;

	constructor(private pi: Pi) {}

	// tell informs the user once per session of a problem.
	tell(msg: string, ctx?: Ctx) {
		if (this.told) return;
		this.told = true;
		this.say(`skill-lifecycle: ${msg}`, "warning", ctx);
	}

	say(msg: string, level: "info" | "warning" | "error", ctx?: Ctx) {
		const c = ctx ?? this.ctx;
		if (c?.hasUI) {
			c.ui.notify(msg, level);
		} else {
			process.stderr.write(`${msg}\n`);
		}
	}

	get available(): boolean {
		return this.up && !this.disabled;
	}

	// start spawns and initializes the sidecar, then restores its state
	// from the session's branch. It resolves to whether the sidecar is up.
	start(ctx: Ctx): Promise<boolean> {
		this.ctx = ctx;
		if (this.disabled) return Promise.resolve(false);
		if (this.up) return Promise.resolve(true);
		if (this.starting) return this.background ? Promise.resolve(false) : this.starting;
		if (this.startFailures > 0) {
			if (Date.now() < this.nextStartAt) return Promise.resolve(false);
			this.background = true;
		}
		this.starting = this.doStart(ctx).finally(() => {
			this.starting = undefined;
			this.background = false;
		});
		return this.background ? Promise.resolve(false) : this.starting;
	}

	// backOff delays the next start after a failed one (or a second failure
	// in a row): 5 s, doubling up to 60 s.
	private backOff() {
		this.startFailures++;
		this.nextStartAt = Date.now() + Math.min(60_000, 5_000 * 2 ** (this.startFailures - 1));
	}

	// answered notes that the sidecar answered an event: it works.
	private answered() {
		this.failures = 0;
		this.startFailures = 0;
		this.nextStartAt = 0;
	}

	private async doStart(ctx: Ctx): Promise<boolean> {
		let rpc: Rpc;
		try {
			rpc = loadRpc();
		} catch (err) {
			this.disabled = true;
			const why = String((err as Error)?.message ?? err).split("\n")[0];
			this.tell(`its dependency vscode-jsonrpc could not be loaded (${why}); run \`npm ci\` in ${bridgeDir}, or install the bridge with \`pi install npm:skill-lifecycle\`; running without it.`, ctx);
			return false;
		}
		const bin = findBinary();
		if (!bin) {
			this.disabled = true;
			const env = process.env.SKILL_LIFECYCLE_BIN;
			this.tell(
				env
					? `SKILL_LIFECYCLE_BIN (${env}) is not an executable file; running without it.`
					: "the skill-lifecycle binary was not found (install the bridge with `pi install npm:skill-lifecycle`, set SKILL_LIFECYCLE_BIN or put it on PATH); running without it.",
				ctx,
			);
			return false;
		}
		const now = Date.now();
		this.restarts = this.restarts.filter((t) => now - t < 60_000);
		if (this.restarts.length >= 5) {
			return false; // crashing in a loop: stay down for a while
		}
		this.restarts.push(now);
		let proc: ChildProcess;
		try {
			proc = spawn(bin, ["serve"], { stdio: ["pipe", "pipe", "pipe"], cwd: ctx.cwd });
		} catch (err) {
			this.disabled = true;
			this.tell(`could not start ${bin}: ${(err as Error).message}; running without it.`, ctx);
			return false;
		}
		this.proc = proc;
		const spawnError = new Promise<never>((_, reject) => {
			proc.once("error", (err) => reject(err));
		});
		spawnError.catch(() => undefined);
		// How the process ended, for the message when it ends before
		// answering initialize: its exit code or signal, and the last line
		// it wrote on stderr.
		let lastErr = "";
		const ended = new Promise<string>((res) => {
			proc.once("exit", (code, signal) => res(signal ? `was killed by ${signal}` : `exited with code ${code}`));
		});
		proc.on("exit", () => this.down(proc));
		proc.stdin?.on("error", () => this.down(proc));
		proc.stdout?.on("error", () => this.down(proc));
		proc.stderr?.on("data", (d: Buffer) => {
			if (process.env.SKILL_LIFECYCLE_DEBUG) process.stderr.write(`[skill-lifecycle] ${d}`);
			const lines = String(d)
				.split("\n")
				.map((l) => l.trim())
				.filter(Boolean);
			if (lines.length) lastErr = lines[lines.length - 1].replace(/[\x00-\x1f\x7f]/g, "?").slice(0, 300);
		});
		// The sidecar must never keep Pi alive (print mode waits for its
		// event loop to drain).
		proc.unref();
		(proc.stdin as any)?.unref?.();
		(proc.stdout as any)?.unref?.();
		(proc.stderr as any)?.unref?.();
		const conn = rpc.createMessageConnection(
			new rpc.StreamMessageReader(proc.stdout!),
			new SafeWriter(new rpc.StreamMessageWriter(proc.stdin!), () => this.down(proc)) as any,
			quietLogger,
		);
		this.conn = conn;
		conn.onNotification("host/notify", (p: any) => this.say(String(p?.message ?? ""), p?.level ?? "info"));
		conn.onNotification("host/appendEntry", (p: any) => {
			try {
				this.pi.appendEntry(p?.customType ?? ENTRY_TYPE, p?.data);
			} catch (err) {
				this.say(`skill-lifecycle: could not record a decision: ${(err as Error).message}`, "warning");
			}
		});
		conn.onNotification("host/setModel", (p: any) => {
			const prev = this.modelSwitch;
			this.modelSwitch = prev.then(() => this.setModel(p));
		});
		conn.onError(() => this.down(proc));
		conn.onClose(() => this.down(proc));
		conn.listen();
		try {
			// Nothing is written before the process exists (a missing or
			// unusable binary fails here, not in a write).
			await Promise.race([new Promise<void>((res) => proc.once("spawn", () => res())), spawnError]);
			// On a restart keep the list Pi last gave (before_agent_start's,
			// which also says which skills are hidden from the model).
			if (!this.init || this.skills.length === 0) this.skills = hostSkills(this.pi);
			const params = {
				protocolVersion: PROTOCOL_VERSION,
				host: { name: "pi", version: process.env.PI_VERSION ?? "" },
				cwd: ctx.cwd,
				agentDir: agentDir(),
				// Undefined (left out) when Pi cannot tell, e.g. Pi 0.73:
				// the user's trustProjectConfig decides.
				trusted: await projectTrust(ctx),
				skills: this.skills,
				models: hostModels(ctx),
				currentModel: ctx.model ? { provider: ctx.model.provider, id: ctx.model.id } : undefined,
				thinkingLevel: safe(() => this.pi.getThinkingLevel?.()) ?? "",
				// The cache tier Pi asks providers for (pi-ai: PI_CACHE_RETENTION),
				// which picks each model's promptCache lifetime.
				cacheRetention: process.env.PI_CACHE_RETENTION === "long" ? "long" : "short",
			};
			const res = (await Promise.race([
				withTimeout(conn.sendRequest("initialize", params) as Promise<InitializeResult>, Math.max(3000, 2 * timeoutMs()), "initialize"),
				spawnError,
			])) as InitializeResult;
			this.init = res;
			this.up = true;
			for (const d of res.diagnostics ?? []) {
				if (this.shown.has(d)) continue; // told once, not again on a restart
				this.shown.add(d);
				this.say(`skill-lifecycle: ${d}`, "warning", ctx);
			}
			await this.restore(ctx);
			return true;
		} catch (err: any) {
			const msg = err?.message ?? String(err);
			if (err?.code === -32004) {
				this.disabled = true;
				this.tell(`${msg}; running without it.`, ctx);
			} else if (err?.code === "ENOENT" || err?.code === "EACCES") {
				this.disabled = true;
				this.tell(`could not start ${bin} (${err.code}); running without it.`, ctx);
			} else {
				// A process that ended before answering is named with how it
				// ended (its pipes may close a moment before it is reaped;
				// the timer, referenced, keeps Pi alive until then, as the
				// child itself no longer does).
				const how = /no answer within/.test(msg)
					? ""
					: await Promise.race([ended, new Promise<string>((res) => setTimeout(() => res(""), 500))]);
				if (how) {
					this.tell(`${bin} ${how} before answering initialize${lastErr ? ` (its last words: ${lastErr})` : ""}; running without it for now.`, ctx);
				} else {
					this.tell(`the sidecar did not start (${msg}); running without it for now.`, ctx);
				}
			}
			this.kill();
			this.backOff();
			return false;
		}
	}

	// down marks the sidecar dead after a crash, a close or a timeout.
	private down(proc?: ChildProcess) {
		if (proc && proc !== this.proc) return;
		if (this.up) this.tell("the sidecar stopped; it will be restarted and its state restored from the session.");
		this.up = false;
		this.conn?.dispose();
		this.conn = undefined;
		this.proc = undefined;
	}

	kill() {
		const p = this.proc;
		this.down(p);
		try {
			p?.kill("SIGKILL");
		} catch {
			// already gone
		}
	}

	// request sends one request; on any failure it resolves to undefined
	// (the caller then behaves as without the extension) and arranges a
	// restart. When the sidecar is found dead (not merely slow), or with
	// opts.retryLate also when it answered late, it is restarted at once
	// and the request sent again, once. A JSON-RPC error from a live
	// sidecar is reported to the user, or handed to opts.onError.
	async request<T>(
		method: string,
		params: unknown,
		ctx?: Ctx,
		opts: { retryLate?: boolean; onError?: (message: string) => void } = {},
		retried = false,
	): Promise<T | undefined> {
		if (ctx) this.ctx = ctx;
		if (!this.up) {
			if (this.disabled || !this.ctx) return undefined;
			const ok = await withTimeout(this.start(this.ctx), Math.max(3000, 2 * timeoutMs()), "restart").catch(() => false);
			if (!ok) return undefined;
		}
		const conn = this.conn;
		if (!conn) return undefined;
		try {
			const res = (await withTimeout(conn.sendRequest(method, params) as Promise<T>, timeoutMs(), method)) as T;
			this.answered();
			return res;
		} catch (err: any) {
			if (typeof err?.code === "number" && this.conn === conn && this.up) {
				// A JSON-RPC error from a live sidecar: report it, keep the
				// sidecar. Its message already names the method.
				this.answered();
				const text = String(err.message ?? "");
				if (opts.onError) opts.onError(text);
				else this.say(`skill-lifecycle: ${text.startsWith(`${method}:`) ? text : `${method}: ${text}`}`, "warning");
				return undefined;
			}
			const timedOut = /no answer within/.test(String(err?.message));
			this.tell(`the sidecar failed on ${method} (${err?.message ?? err}); continuing without it for this event and restarting it.`);
			this.kill();
			// Failing again before any answer: the sidecar does not work;
			// back off.
			if (++this.failures >= 2) this.backOff();
			if (!retried && (!timedOut || opts.retryLate)) return this.request<T>(method, params, ctx, opts, true);
			return undefined;
		}
	}

	notify(method: string, params: unknown) {
		try {
			this.conn?.sendNotification(method, params)?.catch?.(() => undefined);
		} catch {
			// fail open
		}
	}

	// restore hands the branch's records to the sidecar.
	async restore(ctx: Ctx) {
		const records: unknown[] = [];
		let requestCount = 0;
		try {
			for (const e of ctx.sessionManager.getBranch()) {
				if (e?.type === "custom" && e.customType === ENTRY_TYPE && e.data !== undefined) records.push(e.data);
				if (e?.type === "message" && e.message?.role === "assistant") requestCount++;
			}
		} catch {
			return;
		}
		const conn = this.conn;
		if (!conn) return;
		await withTimeout(conn.sendRequest("session/restore", { records, requestCount }), Math.max(3000, 2 * timeoutMs()), "session/restore");
	}

	// setModel carries out host/setModel, then reports the model in use
	// (model/changed, source "set") or the failure (model/switchFailed).
	async setModel(p: any) {
		const ctx = this.ctx;
		if (!ctx || !p) return;
		let ok = false;
		let why = "";
		this.switching = true;
		try {
			const model = ctx.modelRegistry?.find?.(p.provider, p.id);
			if (!model) {
				why = "unknown model";
			} else {
				ok = await this.pi.setModel(model);
				if (!ok) why = "no credentials for the model";
				if (ok && p.thinkingLevel) this.pi.setThinkingLevel(p.thinkingLevel);
			}
		} catch (err) {
			why = (err as Error).message;
		} finally {
			this.switching = false;
		}
		if (!ok) {
			this.notify("model/switchFailed", { provider: p.provider, id: p.id, reason: why });
			return;
		}
		const cur = this.ctx?.model ?? ctx.model;
		await this.request("model/changed", {
			model: { provider: cur?.provider ?? p.provider, id: cur?.id ?? p.id },
			thinkingLevel: safe(() => this.pi.getThinkingLevel?.()) ?? "",
			source: "set",
		});
	}

	async stop() {
		const conn = this.conn;
		const proc = this.proc;
		if (conn && this.up) {
			try {
				await withTimeout(conn.sendRequest("shutdown", null) as Promise<unknown>, 500, "shutdown");
				await conn.sendNotification("exit");
			} catch {
				// kill below
			}
		}
		this.up = false;
		setTimeout(() => {
			try {
				proc?.kill("SIGKILL");
			} catch {
				// gone
			}
		}, 200).unref();
		conn?.dispose();
		this.conn = undefined;
	}
}

// SafeWriter wraps vscode-jsonrpc's stream writer so that a failed write
// (the sidecar died) never becomes an unhandled promise rejection, which
// would crash Pi: the failure marks the sidecar down instead, which disposes
// the connection and rejects the pending requests.
class SafeWriter {
	constructor(
		private inner: StreamMessageWriter,
		private onFail: () => void,
	) {}
	get onError() {
		return this.inner.onError;
	}
	get onClose() {
		return this.inner.onClose;
	}
	write(msg: unknown): Promise<void> {
		const s = (this.inner as any).writable?.stream;
		if (s && (s.destroyed || s.writable === false)) {
			queueMicrotask(this.onFail);
			return Promise.resolve();
		}
		return this.inner.write(msg as any).catch(() => {
			this.onFail();
		});
	}
	end() {
		try {
			this.inner.end();
		} catch {
			// already closed
		}
	}
	dispose() {
		this.inner.dispose();
	}
}

const quietLogger = {
	error: (m: string) => debugLog(m),
	warn: (m: string) => debugLog(m),
	info: (m: string) => debugLog(m),
	log: (m: string) => debugLog(m),
};

function debugLog(m: string) {
	if (process.env.SKILL_LIFECYCLE_DEBUG) process.stderr.write(`[skill-lifecycle bridge] ${m}\n`);
}

function safe<T>(f: () => T): T | undefined {
	try {
		return f();
	} catch {
		return undefined;
	}
}

// hostSkills lists the skills Pi resolved, from its skill commands.
function hostSkills(pi: Pi): HostSkill[] {
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
function skillsFromOptions(opts: any): HostSkill[] | undefined {
	if (!opts || !Array.isArray(opts.skills)) return undefined;
	return opts.skills
		.filter((s: any) => s?.name && s?.filePath)
		.map((s: any) => ({
			name: s.name,
			description: s.description ?? "",
			path: s.filePath,
			disableModelInvocation: s.disableModelInvocation === true ? true : undefined,
		}));
}

function sameSkills(a: HostSkill[], b: HostSkill[]): boolean {
	if (a.length !== b.length) return false;
	return a.every(
		(s, i) =>
			s.name === b[i].name &&
			s.path === b[i].path &&
			s.description === b[i].description &&
			!!s.disableModelInvocation === !!b[i].disableModelInvocation,
	);
}

function hostModels(ctx: Ctx): unknown[] {
	const list = safe(() => ctx.modelRegistry?.getAll?.()) ?? safe(() => ctx.modelRegistry?.getAvailable?.()) ?? [];
	const avail = new Set<string>();
	for (const m of safe(() => ctx.modelRegistry?.getAvailable?.()) ?? []) avail.add(`${m.provider}/${m.id}`);
	return (list as any[]).map((m) => ({
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
function promptCacheOf(pc: any): { short?: number; long?: number } | undefined {
	const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined);
	const short = num(pc?.short);
	const long = num(pc?.long);
	return short === undefined && long === undefined ? undefined : { short, long };
}

// replaceSkillsSection swaps Pi's skills block in a system prompt string (Pi
// 0.73, which has no structured sections) for the sidecar's section.
const PI_SKILLS_BLOCK = /\n*The following skills provide specialized instructions for specific tasks\.[\s\S]*?<\/available_skills>/;
function replaceSkillsSection(prompt: string, section: string): string | undefined {
	if (!PI_SKILLS_BLOCK.test(prompt)) return undefined;
	return prompt.replace(PI_SKILLS_BLOCK, () => `\n\n${section}`);
}

// ---- Loads in the context -----------------------------------------------------

// A tool result is known by the id the bridge gave it when the tool ran
// (details.loadId), else by its tool call id. Tool call ids are the
// provider's, and some providers reuse them ("call_0" for every call): the
// bridge's id is unique on the branch, and stays the same from request to
// request, across a sidecar restart (the records hold it) and a compaction
// (it travels with the result). replay/detect.go resultID names results
// the same way.
function resultId(m: any): string {
	const id = m?.details?.loadId;
	return typeof id === "string" && id ? id : String(m?.toolCallId ?? "");
}

// LoadIds gives the results of the skill tool and of reads of skills'
// files their ids: the tool call id, or "<id>#<n>" with the smallest n from
// 2 that no result on the branch, nor a call of this process not yet
// answered, has taken.
class LoadIds {
	private minted = new Set<string>();

	mint(toolCallId: string, ctx: Ctx): string {
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

const SKILL_BLOCK = /^<skill name="([^"]+)" location="([^"]*)">\n[\s\S]*?\n<\/skill>/;
const SKILL_CONTENT = /^<skill_content name="([^"]+)">/;
const CONTENT_BLOCKS = /<skill_content name="([^"]+)">[\s\S]*?<\/skill_content>/g;

// reattachBlocks lists the <skill_content> blocks of a re-attach region
// with their load ids.
function reattachBlocks(m: any): { id: string; skill: string; start: number; text: string }[] {
	const cid = m?.details?.compactionId;
	if (!cid) return [];
	const text = typeof m.content === "string" ? m.content : textOf(m.content);
	const out: { id: string; skill: string; start: number; text: string }[] = [];
	for (const b of text.matchAll(CONTENT_BLOCKS)) {
		out.push({ id: `reattach:${cid}:${b[1]}`, skill: b[1], start: b.index ?? 0, text: b[0] });
	}
	return out;
}

// isSkillFile says whether the resolved path p is a skill's file: its
// SKILL.md, or a file in the folder of a skill that is a SKILL.md.
function isSkillFile(p: string, skills: HostSkill[]): boolean {
	return skills.some((s) => {
		const f = resolve(s.path);
		return f === p || (basename(f) === "SKILL.md" && p.startsWith(dirname(f) + sep));
	});
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

function resolvePath(p: string, cwd: string): string {
	let q = String(p ?? "").trim().replace(/^@/, "");
	if (q === "~" || q.startsWith("~/")) q = join(homedir(), q.slice(1));
	return isAbsolute(q) ? resolve(q) : resolve(cwd, q);
}

// messageSize approximates the characters one message adds to a request:
// its text, thinking and tool call arguments.
function messageSize(m: any): number {
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
function findLoads(
	messages: any[],
	skills: HostSkill[],
	cwd: string,
	base: number,
): { loads: LoadRef[]; where: Map<string, { msg: number; kind: LoadRef["kind"] }>; total: number; previous: number } {
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
	let readArgs = new Map<string, any[]>();
	const loads: LoadRef[] = [];
	const where = new Map<string, { msg: number; kind: LoadRef["kind"] }>();
	// A result named in this context already (a session recorded before
	// results carried their own id, with reused tool call ids) gets a
	// "#n" name of its own, so two results never share one.
	const nameOf = (m: any): string => {
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
			const args = readArgs.get(m.toolCallId)?.shift();
			if (m.isError) return;
			const text = textOf(m.content);
			const p = typeof args?.path === "string" && args.path ? resolvePath(args.path, cwd) : "";
			const skill = p ? byPath.get(p) : undefined;
			if (skill && args.offset === undefined && args.limit === undefined) {
				const id = nameOf(m);
				loads.push({ id, skill, kind: "read", size: text.length, offset: at });
				where.set(id, { msg: i, kind: "read" });
			} else if (p) {
				const owner = folders.find((f) => p.startsWith(f.dir));
				if (owner) {
					const id = nameOf(m);
					loads.push({ id, skill: owner.name, kind: "resource", path: String(args.path), size: text.length, offset: at });
					where.set(id, { msg: i, kind: "resource" });
				}
			}
		} else if (m.role === "toolResult" && !m.isError) {
			const text = textOf(m.content);
			if (m.toolName === TOOL_NAME) {
				const skill = m.details?.skill ?? SKILL_CONTENT.exec(text)?.[1];
				if (skill && SKILL_CONTENT.test(text)) {
					const id = nameOf(m);
					loads.push({ id, skill, kind: "tool", size: text.length, hash: m.details?.hash, offset: at });
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
function visibleAfter(ctx: Ctx, firstKept: string | undefined): string[] {
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
function applyArchive(messages: any[], where: Map<string, { msg: number; kind: LoadRef["kind"] }>, archive: { id: string; placeholder: string }[]): any[] | undefined {
	let out: any[] | undefined;
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
					: { ...m, content: (m.content ?? []).map((c: any) => (c?.type === "text" && c.text.includes(block.text) ? { ...c, text: swap(c.text) } : c)) };
		} else if (w.kind === "command") {
			const replaceIn = (t: string) => t.replace(SKILL_BLOCK, () => a.placeholder);
			if (typeof m.content === "string") {
				out[w.msg] = { ...m, content: replaceIn(m.content) };
			} else if (Array.isArray(m.content)) {
				let done = false;
				out[w.msg] = {
					...m,
					content: m.content.map((c: any) => {
						if (!done && c?.type === "text" && SKILL_BLOCK.test(c.text)) {
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
function lastUsage(messages: any[]): { input: number; cacheRead: number; cacheWrite: number } | undefined {
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

// ---- The extension -------------------------------------------------------------

export default function skillLifecycle(pi: Pi) {
	const side = new Sidecar(pi);
	const ids = new LoadIds();
	let toolRegistered = false;
	let lastRequest = 0;
	let lastModel = "";
	let cacheCold = false;
	// Pi's warming since the previous request: "warm" (it refreshed the
	// cache), "stopped" (it decided to stop keeping it warm) or "".
	let warming: "" | "warm" | "stopped" = "";
	let lastWarmAt = 0; // when Pi last decided to refresh it, in this pause (0: not)

	const registerTool = () => {
		if (toolRegistered || !side.init) return;
		toolRegistered = true;
		const spec = side.init.tool;
		pi.registerTool({
			name: spec.name,
			label: spec.label,
			description: spec.description,
			promptSnippet: spec.promptSnippet,
			parameters: spec.parameters,
			async execute(toolCallId: string, params: any, _signal: unknown, _onUpdate: unknown, ctx: Ctx) {
				const name = String(params?.name ?? "");
				// Named before anything is awaited: parallel calls get their
				// ids in call order.
				const loadId = ids.mint(toolCallId, ctx);
				// A load that fails (no answer, the sidecar died, junk on the
				// stream) is tried again once on a restarted sidecar.
				const res = await side.request<SkillLoadResult>("skill/load", { name, callId: loadId }, ctx, { retryLate: true });
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
		});
	};

	// skillToolOffered says whether the skill tool is registered in this
	// process and active (when Pi can tell).
	const skillToolOffered = (): boolean => {
		if (!toolRegistered || !side.init) return false;
		const active = safe(() => (pi as any).getActiveTools?.());
		if (!Array.isArray(active)) return true;
		const name = side.init.tool.name;
		return active.some((t: any) => t === name || t?.name === name);
	};

	const startAndRestore = async (ctx: Ctx) => {
		if (await side.start(ctx)) registerTool();
	};

	pi.on("session_start", async (_event: any, ctx: Ctx) => {
		await startAndRestore(ctx);
	});

	// Pi 0.73 reports switches and forks with their own events; 1.6 rebuilds
	// the extension and sends session_start again.
	const restoreBranch = async (_event: any, ctx: Ctx) => {
		side.ctx = ctx;
		if (!side.available) {
			await startAndRestore(ctx);
			return;
		}
		await side.restore(ctx).catch(() => side.kill());
	};
	pi.on("session_tree", restoreBranch);
	pi.on("session_switch", restoreBranch);
	pi.on("session_fork", restoreBranch);

	pi.on("session_shutdown", async () => {
		await side.stop();
	});

	pi.on("before_agent_start", async (event: any, ctx: Ctx) => {
		if (!side.available && !(await side.start(ctx))) return;
		// The sidecar may start here rather than at session_start (a slow
		// start): the skill tool is registered now, so the run offers it.
		registerTool();
		side.ctx = ctx;
		const fromOpts = skillsFromOptions(event?.systemPromptOptions);
		if (fromOpts && !sameSkills(fromOpts, side.skills)) {
			const upd = await side.request<{ systemPromptSection: string }>("skills/update", { skills: fromOpts }, ctx);
			if (upd && side.init) {
				side.skills = fromOpts;
				side.init.systemPromptSection = upd.systemPromptSection;
			}
		}
		if (event?.messageType !== "custom" && typeof event?.prompt === "string") {
			await side.request("user_prompt", { text: event.prompt }, ctx);
		}
		const section = side.init?.systemPromptSection;
		if (!section || !side.available) return;
		const sections = event?.systemPromptOptions?.sections;
		if (sections && typeof sections === "object") {
			// Pi 1.6: replace the structured "skills" section in place; it is
			// the same text every turn, so Pi sends no prompt patch.
			if (sections.skills !== section) sections.skills = section;
			return;
		}
		const replaced = replaceSkillsSection(String(event?.systemPrompt ?? ""), section);
		if (replaced !== undefined) return { systemPrompt: replaced };
	});

	pi.on("context", async (event: any, ctx: Ctx) => {
		if (!side.available && !side.init) return;
		const messages: any[] = Array.isArray(event?.messages) ? event.messages : [];
		const base = String(safe(() => ctx.getSystemPrompt?.()) ?? "").length;
		const { loads, where, total, previous: previousSize } = findLoads(messages, side.skills, ctx.cwd, base);
		const now = Date.now();
		// The time since the previous request: this process's last one, else
		// the last assistant message on the branch (a resumed session).
		let previous = lastRequest;
		if (!previous) {
			for (let i = messages.length - 1; i >= 0; i--) {
				if (messages[i]?.role === "assistant" && typeof messages[i].timestamp === "number") {
					previous = messages[i].timestamp;
					break;
				}
			}
		}
		const since = previous ? Math.max(0, now - previous) : 0;
		lastRequest = now;
		const previousUsage = lastUsage(messages);
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
		const res = await side.request<BeforeRequestResult>(
			"before_request",
			{
				loads,
				sincePreviousMs: since,
				cacheCold: cold,
				cacheWarm: warm,
				cacheStopped: stopped,
				sinceWarmedMs,
				modelChanged,
				total,
				previousUsage,
				previousSize,
			},
			ctx,
		);
		if (!res || !Array.isArray(res.archive) || res.archive.length === 0) return;
		const out = applyArchive(messages, where, res.archive);
		if (out) return { messages: out };
	});

	pi.on("tool_call", async (event: any, ctx: Ctx) => {
		if (event?.toolName !== "read" && event?.toolName !== "bash") return;
		if (!side.available && !side.init) return;
		// Reads of SKILL.md are blocked only while the skill tool is offered:
		// without it the model has no other way to load a skill.
		if (!skillToolOffered()) return;
		// The read the skill tool's fallback asked for is served.
		if (event.toolName === "read" && typeof event.input?.path === "string") {
			const p = resolvePath(event.input.path, ctx.cwd);
			if (side.readable.delete(p)) return;
		}
		const res = await side.request<{ block: boolean; reason?: string }>(
			"tool_call",
			{ toolName: event.toolName, callId: event.toolCallId, input: event.input, cwd: ctx.cwd },
			ctx,
		);
		if (res?.block) return { block: true, reason: res.reason };
	});

	// A read of a skill's file gets its own id in its result (resultId),
	// whether or not the sidecar is up.
	pi.on("tool_result", async (event: any, ctx: Ctx) => {
		if (event?.toolName !== "read" || event.isError) return;
		const p = typeof event.input?.path === "string" && event.input.path ? resolvePath(event.input.path, ctx.cwd) : "";
		if (!p || !isSkillFile(p, side.skills.length ? side.skills : hostSkills(pi))) return;
		const details = event.details && typeof event.details === "object" && !Array.isArray(event.details) ? event.details : {};
		return { details: { ...details, loadId: ids.mint(event.toolCallId, ctx) } };
	});

	pi.on("agent_start", async (_event: any, ctx: Ctx) => {
		if (side.available || side.init) await side.request("run/start", {}, ctx);
	});
	pi.on("agent_end", async (_event: any, ctx: Ctx) => {
		if (side.available || side.init) await side.request("run/end", {}, ctx);
		await side.modelSwitch.catch(() => undefined);
	});

	// The provider's prompt cache is known to be cold after compaction.
	pi.on("session_compact", async (event: any, ctx: Ctx) => {
		cacheCold = true;
		const entry = event?.compactionEntry;
		if (!entry?.id || (!side.available && !side.init)) return;
		const res = await side.request<{ text: string; bodies: unknown[] }>(
			"session/compact",
			{ id: entry.id, visible: visibleAfter(ctx, entry.firstKeptEntryId) },
			ctx,
		);
		if (!res?.text) return;
		// One custom message right after the summary (sent to the model as a
		// user message, kept in the session, so a resume or fork has it).
		const msg = { customType: REATTACH_TYPE, content: res.text, display: false, details: { compactionId: entry.id, bodies: res.bodies } };
		try {
			if (typeof ctx.isIdle === "function" && !ctx.isIdle()) pi.sendMessage(msg, { deliverAs: "steer" });
			else pi.sendMessage(msg);
		} catch (err) {
			side.say(`skill-lifecycle: could not re-attach skills after compaction: ${(err as Error).message}`, "warning", ctx);
		}
	});
	// Pi 1.6 refreshes an idle prompt cache and asks extensions first; we
	// only listen (no action returned). "warm" means it is refreshed now;
	// "stop" means nobody refreshes it any more, so it goes cold once its
	// lifetime has run from the last request or refresh (the sidecar knows
	// the lifetime).
	pi.on("cache_warming_decision", async (event: any) => {
		if (event?.action === "stop") {
			warming = "stopped";
		} else if (event?.action === "warm") {
			warming = "warm";
			lastWarmAt = Date.now();
		}
	});

	pi.on("model_select", async (event: any, ctx: Ctx) => {
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

	for (const c of COMMANDS) {
		pi.registerCommand(c.name, {
			description: c.description,
			handler: async (args: string, ctx: Ctx) => {
				side.ctx = ctx;
				if (!side.available) await side.start(ctx);
				// A bad argument is the sidecar's answer, shown once:
				// "command: args: unknown skill "x"" as "/skills-pin: unknown
				// skill "x"".
				let refused = "";
				const res = await side.request<{ text: string; level?: string }>("command", { name: c.name, args: args ?? "" }, ctx, {
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
				const level = (res.level as "info" | "warning" | "error") ?? "info";
				if (ctx?.hasUI) ctx.ui.notify(res.text, level);
				else process.stdout.write(`${res.text}\n`);
			},
		});
	}
}
