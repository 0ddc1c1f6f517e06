// The sidecar: `skill-lifecycle serve`, spawned and spoken to over JSON-RPC
// 2.0 (docs/protocol.md). Everything fails open (docs/protocol.md, "Failing
// open"): if the binary is missing, crashes or does not answer in time, the
// event proceeds as without the extension, the user is told once, and the
// sidecar is restarted (backing off one that does not work) with its state
// restored from the session's records.

import { spawn, type ChildProcess } from "node:child_process";
// Types only: the module itself is loaded when the sidecar first starts
// (loadRpc), so that a missing dependency fails open instead of stopping Pi.
import type { Writable } from "node:stream";
import type { Emitter, Logger, Message as RpcMessage, MessageConnection, MessageWriter } from "vscode-jsonrpc/node";
import { bridgeDir, bridgeRequire, findBinary } from "./binary.ts";
import { hostModels, hostSkills, wireSkills } from "./host.ts";
import { showLine } from "./lines.ts";
import { record, safe, type Context, type NotifyLevel, type Pi } from "./pi.ts";
import { agentDir, projectTrust } from "./trust.ts";
import {
	CODE_VERSION_MISMATCH,
	ENTRY_TYPE,
	PROTOCOL_VERSION,
	type HostNotifications,
	type HostSkill,
	type InitializeParams,
	type InitializeResult,
	type Requests,
	type ServerNotifications,
	type SetModelParams,
} from "./wire.ts";

// timeoutMs is how long a request waits: SKILL_LIFECYCLE_TIMEOUT_MS,
// default 1500. Read once: Node reads process.env from the C environment
// at each access, a few µs every request.
let timeout: number | undefined;
function timeoutMs(): number {
	if (timeout === undefined) {
		const v = Number(process.env.SKILL_LIFECYCLE_TIMEOUT_MS);
		timeout = Number.isFinite(v) && v > 0 ? v : 1500;
	}
	return timeout;
}

// withTimeout is p, or an error after ms. A background timer does not keep
// Pi alive (print mode ends when its event loop drains).
function withTimeout<T>(p: Promise<T>, ms: number, what: string, background = false): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const t = new Promise<T>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
		if (background) timer.unref();
	});
	return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

// startWaitMs is how long an event waits for the sidecar to start with
// skills skills: 3 s, or 0.15 ms a skill when longer. A first start reads
// every skill: at 100,000, 4–5 s alone, 9 s in Pi's start, 15 s beside a
// prompt's work, and a prompt without the sidecar carries Pi's own listing
// of them all (40 MB). A start that takes longer goes on in the background.
export function startWaitMs(skills = 0): number {
	return Math.max(3000, 2 * timeoutMs(), skills * 0.15);
}

// promptWaitMs is how long user_prompt waits with skills skills: the
// request's timeout, or 0.05 ms a skill when longer. The first prompt
// after a start ranks with the relevance index, built after the start's
// answer: at 100,000 skills ~2 s alone, more beside Pi's own work, and a
// timeout would restart a sidecar that takes seconds to start again.
export function promptWaitMs(skills = 0): number {
	return Math.max(timeoutMs(), skills * 0.05);
}

// startLimitMs is how long a start may take before the sidecar is taken
// for hung and killed: a minute, or a millisecond per skill when longer.
function startLimitMs(skills: number): number {
	return Math.max(60_000, skills, startWaitMs(skills));
}

/** asLevel is a notification's or a command's level, as Pi's notify takes it. */
export function asLevel(v: unknown): NotifyLevel {
	return v === "warning" || v === "error" ? v : "info";
}

type Rpc = typeof import("vscode-jsonrpc/node");
let rpc: Rpc | undefined;

// loadRpc loads vscode-jsonrpc once; it throws when the dependency is not
// installed (a local copy of the bridge without `npm ci`).
function loadRpc(): Rpc {
	rpc ??= bridgeRequire("vscode-jsonrpc/node") as Rpc;
	return rpc;
}

/** send is a request on conn, typed by the protocol's method table. */
function send<M extends keyof Requests>(conn: MessageConnection, method: M, params: Requests[M]["params"]): Promise<Requests[M]["result"]> {
	return conn.sendRequest<Requests[M]["result"]>(method, params);
}

/** on handles one of the sidecar's notifications. */
function on<M extends keyof ServerNotifications>(conn: MessageConnection, method: M, handler: (params: ServerNotifications[M] | undefined) => void) {
	conn.onNotification(method, (p: ServerNotifications[M] | undefined) => handler(p));
}

/** unref lets a stream of the sidecar's not keep Pi alive (pipes are sockets, which have unref). */
function unref(stream: unknown) {
	const f = record(stream)?.unref;
	if (typeof f === "function") f.call(stream);
}

export class Sidecar {
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
	private stopped = new WeakSet<ChildProcess>(); // ended by stop, not failed
	// The SKILL.md files the skill tool's fallback told the model to read
	// (resolved paths): such a read is not blocked (once).
	readable = new Set<string>();
	init?: InitializeResult;
	skills: HostSkill[] = [];
	ctx?: Context;
	// modelSwitch settles when the model switches asked so far are done;
	// switching is true while the bridge itself changes the model.
	modelSwitch: Promise<void> = Promise.resolve();
	switching = false;
	// drawn says whether Pi draws the lines (host/line) in the transcript.
	drawn = false;
	// generation counts the sidecars started: state held by one is not
	// the next one's.
	generation = 0;
	// quiet is the sidecar's word, in its last answer to before_request or
	// tool_result, that the next request changes nothing but the footer
	// when it only appends plain messages (docs/protocol.md, `quiet`). Any
	// other request but tool_call, any notification and a restart end it.
	quiet = false;
	// later holds what defer was given, to send after the event being
	// handled; a request or notification sends it first, in order.
	private later: (() => void)[] = [];

	constructor(private pi: Pi) {}

	// tell informs the user once per session of a problem.
	tell(msg: string, ctx?: Context) {
		if (this.told) return;
		this.told = true;
		this.say(`skill-lifecycle: ${msg}`, "warning", ctx);
	}

	say(msg: string, level: NotifyLevel, ctx?: Context) {
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
	start(ctx: Context): Promise<boolean> {
		this.ctx = ctx;
		if (this.disabled) return Promise.resolve(false);
		if (this.up) return Promise.resolve(true);
		if (this.starting) return this.background ? Promise.resolve(false) : this.waitStart(this.starting);
		if (this.startFailures > 0) {
			if (Date.now() < this.nextStartAt) return Promise.resolve(false);
			this.background = true;
		}
		// On a restart keep the list Pi last gave (before_agent_start's,
		// which also says which skills are hidden from the model); the
		// wait for the start grows with it.
		if (!this.init || this.skills.length === 0) this.skills = hostSkills(this.pi);
		this.starting = this.doStart(ctx).finally(() => {
			this.starting = undefined;
			this.background = false;
		});
		return this.background ? Promise.resolve(false) : this.waitStart(this.starting);
	}

	// waitStart is the start in progress, waited for up to startWaitMs: a
	// slower start is not killed (a restart would read the catalogue again,
	// and never finish) but goes on in the background, nothing waits for it
	// again, and the sidecar is taken up when it answers.
	private waitStart(starting: Promise<boolean>): Promise<boolean> {
		let timer: NodeJS.Timeout | undefined;
		const ms = startWaitMs(this.skills.length);
		const late = new Promise<boolean>((res) => {
			timer = setTimeout(() => {
				this.background = true;
				this.say(`skill-lifecycle: the sidecar is still starting after ${Math.round(ms / 1000)} s (${this.skills.length} skills); the session goes on without it until it answers.`, "info");
				res(false);
			}, ms);
		});
		return Promise.race([starting, late]).finally(() => clearTimeout(timer));
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

	private async doStart(ctx: Context): Promise<boolean> {
		let rpc: Rpc;
		try {
			rpc = loadRpc();
		} catch (err) {
			this.disabled = true;
			const why = String(record(err)?.message ?? err).split("\n")[0];
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
			this.tell(`could not start ${bin}: ${record(err)?.message}; running without it.`, ctx);
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
			if (debugging) process.stderr.write(`[skill-lifecycle] ${d}`);
			const lines = String(d)
				.split("\n")
				.map((l) => l.trim())
				.filter(Boolean);
			if (lines.length) lastErr = lines[lines.length - 1].replace(/[\x00-\x1f\x7f]/g, "?").slice(0, 300);
		});
		// The sidecar must never keep Pi alive (print mode waits for its
		// event loop to drain).
		proc.unref();
		unref(proc.stdin);
		unref(proc.stdout);
		unref(proc.stderr);
		const conn = rpc.createMessageConnection(
			new rpc.StreamMessageReader(proc.stdout!),
			new FrameWriter(rpc, proc.stdin!, () => this.down(proc)),
			quietLogger,
		);
		this.conn = conn;
		on(conn, "host/notify", (p) => this.say(String(p?.message ?? ""), asLevel(p?.level)));
		on(conn, "host/appendEntry", (p) => {
			try {
				this.pi.appendEntry(p?.customType ?? ENTRY_TYPE, p?.data);
			} catch (err) {
				this.say(`skill-lifecycle: could not record a decision: ${record(err)?.message}`, "warning");
			}
		});
		on(conn, "host/line", (p) => showLine(this.pi, p, this.drawn, this.ctx, (m) => this.say(m, "warning")));
		on(conn, "host/setModel", (p) => {
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
			const params: InitializeParams = {
				protocolVersion: PROTOCOL_VERSION,
				host: { name: "pi", version: process.env.PI_VERSION ?? "" },
				cwd: ctx.cwd,
				agentDir: agentDir(),
				// Undefined (left out) when Pi cannot tell, e.g. Pi 0.73:
				// the user's trustProjectConfig decides.
				trusted: await projectTrust(ctx),
				skills: wireSkills(this.skills),
				models: hostModels(ctx),
				currentModel: ctx.model ? { provider: ctx.model.provider, id: ctx.model.id } : undefined,
				thinkingLevel: safe(() => this.pi.getThinkingLevel?.()) ?? "",
				// The cache tier Pi asks providers for (pi-ai: PI_CACHE_RETENTION),
				// which picks each model's promptCache lifetime.
				cacheRetention: process.env.PI_CACHE_RETENTION === "long" ? "long" : "short",
			};
			const res = await Promise.race([withTimeout(send(conn, "initialize", params), startLimitMs(this.skills.length), "initialize", true), spawnError]);
			if (this.proc !== proc) return false; // stopped while it started
			this.init = res;
			this.generation++;
			this.quiet = false;
			this.up = true;
			for (const d of res.diagnostics ?? []) {
				if (this.shown.has(d)) continue; // told once, not again on a restart
				this.shown.add(d);
				this.say(`skill-lifecycle: ${d}`, "warning", ctx);
			}
			await this.restore(this.ctx ?? ctx);
			return true;
		} catch (err) {
			if (this.stopped.has(proc)) return false; // stopped while it started
			const e = record(err);
			const msg = e?.message ?? String(err);
			if (e?.code === CODE_VERSION_MISMATCH) {
				this.disabled = true;
				this.tell(`${msg}; running without it.`, ctx);
			} else if (e?.code === "ENOENT" || e?.code === "EACCES") {
				this.disabled = true;
				this.tell(`could not start ${bin} (${e.code}); running without it.`, ctx);
			} else {
				// A process that ended before answering is named with how it
				// ended (its pipes may close a moment before it is reaped;
				// the timer, referenced, keeps Pi alive until then, as the
				// child itself no longer does).
				const how = /no answer within/.test(String(msg))
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

	// request sends one request (params, or a function that makes them for
	// each attempt); on any failure it resolves to undefined
	// (the caller then behaves as without the extension) and arranges a
	// restart. When the sidecar is found dead (not merely slow), or with
	// opts.retryLate also when it answered late, it is restarted at once
	// and the request sent again, once. opts.timeoutMs waits longer than
	// the default, for a request that does real work. A JSON-RPC error
	// from a live sidecar is reported to the user, or handed to
	// opts.onError.
	async request<M extends keyof Requests>(
		method: M,
		params: Requests[M]["params"] | (() => Requests[M]["params"]),
		ctx?: Context,
		opts: { retryLate?: boolean; onError?: (message: string) => void; timeoutMs?: number } = {},
		retried = false,
	): Promise<Requests[M]["result"] | undefined> {
		this.flush();
		if (ctx) this.ctx = ctx;
		if (method !== "tool_call") this.quiet = false;
		if (!this.up) {
			if (this.disabled || !this.ctx) return undefined;
			const ok = await this.start(this.ctx); // waits startWaitMs at most
			if (!ok) return undefined;
		}
		const conn = this.conn;
		if (!conn) return undefined;
		try {
			const p = typeof params === "function" ? (params as () => Requests[M]["params"])() : params;
			const res = await withTimeout(send(conn, method, p), Math.max(opts.timeoutMs ?? 0, timeoutMs()), method);
			this.answered();
			return res;
		} catch (err) {
			const e = record(err);
			if (typeof e?.code === "number" && this.conn === conn && this.up) {
				// A JSON-RPC error from a live sidecar: report it, keep the
				// sidecar. Its message already names the method.
				this.answered();
				const text = String(e.message ?? "");
				if (opts.onError) opts.onError(text);
				else this.say(`skill-lifecycle: ${text.startsWith(`${method}:`) ? text : `${method}: ${text}`}`, "warning");
				return undefined;
			}
			const timedOut = /no answer within/.test(String(e?.message));
			this.tell(`the sidecar failed on ${method} (${e?.message ?? err}); continuing without it for this event and restarting it.`);
			this.kill();
			// Failing again before any answer: the sidecar does not work;
			// back off.
			if (++this.failures >= 2) this.backOff();
			if (!retried && (!timedOut || opts.retryLate)) return this.request(method, params, ctx, opts, true);
			return undefined;
		}
	}

	// defer runs send after the event being handled (Node's setImmediate),
	// or before the next request or notification, whichever comes first:
	// a request whose answer nothing waits for leaves the event's path.
	defer(send: () => void) {
		if (this.later.push(send) === 1) setImmediate(() => this.flush());
	}

	private flush() {
		const sends = this.later;
		this.later = [];
		for (const send of sends) send();
	}

	notify<M extends keyof HostNotifications>(method: M, params: HostNotifications[M]) {
		this.flush();
		this.quiet = false;
		try {
			this.conn?.sendNotification(method, params)?.catch?.(() => undefined);
		} catch {
			// fail open
		}
	}

	// restore hands the branch's records to the sidecar.
	async restore(ctx: Context) {
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
		await withTimeout(send(conn, "session/restore", { records, requestCount }), Math.max(3000, 2 * timeoutMs()), "session/restore");
	}

	// setModel carries out host/setModel, then reports the model in use
	// (model/changed, source "set") or the failure (model/switchFailed).
	async setModel(p: SetModelParams | undefined) {
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
			why = String(record(err)?.message ?? "");
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
		this.flush();
		const conn = this.conn;
		const proc = this.proc;
		if (conn && this.up) {
			try {
				await withTimeout(send(conn, "shutdown", null), 500, "shutdown");
				await conn.sendNotification("exit");
			} catch {
				// kill below
			}
		}
		this.up = false;
		if (proc) this.stopped.add(proc);
		this.proc = undefined;
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

// FrameWriter writes each message to the sidecar's stdin as one frame in
// one write: vscode-jsonrpc's stream writer writes the header and the body
// apart, two system calls (and two wake-ups of the sidecar) a message,
// which cost Pi's thread about 100 µs a request on a busy machine. A failed
// write (the sidecar died) never becomes an unhandled promise rejection,
// which would crash Pi: the failure marks the sidecar down instead, which
// disposes the connection and rejects the pending requests.
class FrameWriter implements MessageWriter {
	private errors: Emitter<[Error, RpcMessage | undefined, number | undefined]>;
	private closes: Emitter<void>;
	constructor(
		rpc: Rpc,
		private stream: Writable,
		private onFail: () => void,
	) {
		this.errors = new rpc.Emitter();
		this.closes = new rpc.Emitter();
		stream.on("error", (err: Error) => this.errors.fire([err, undefined, undefined]));
		stream.on("close", () => this.closes.fire());
	}
	get onError() {
		return this.errors.event;
	}
	get onClose() {
		return this.closes.event;
	}
	write(msg: RpcMessage): Promise<void> {
		if (this.stream.destroyed || this.stream.writable === false) {
			queueMicrotask(this.onFail);
			return Promise.resolve();
		}
		return new Promise((resolve) => {
			try {
				const body = JSON.stringify(msg);
				this.stream.write(`Content-Length: ${Buffer.byteLength(body, "utf8")}\r\n\r\n${body}`, "utf8", (err) => {
					if (err) this.onFail();
					resolve();
				});
			} catch {
				this.onFail();
				resolve();
			}
		});
	}
	end() {
		try {
			this.stream.end();
		} catch {
			// already closed
		}
	}
	dispose() {
		this.errors.dispose();
		this.closes.dispose();
	}
}

const quietLogger: Logger = {
	error: (m: string) => debugLog(m),
	warn: (m: string) => debugLog(m),
	info: (m: string) => debugLog(m),
	log: (m: string) => debugLog(m),
};

// debugging is read once: process.env is a lookup in the environment
// each time (about 6 µs in a model request's hook).
const debugging = !!process.env.SKILL_LIFECYCLE_DEBUG;

export function debugLog(m: string) {
	if (debugging) process.stderr.write(`[skill-lifecycle bridge] ${m}\n`);
}
