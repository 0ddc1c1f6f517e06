// Where the bridge finds the sidecar's binary (docs/protocol.md, "The
// binary"), and the modules it resolves from its own folder.

import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { safe } from "./pi.ts";

/** bridgeDir is the bridge's own folder. */
export const bridgeDir = safe(() => dirname(fileURLToPath(import.meta.url))) ?? process.cwd();

/** bridgeRequire resolves from the bridge's folder (what Pi loads the bridge with may not offer a require). */
export const bridgeRequire = createRequire(join(bridgeDir, "index.ts"));

const binaryName = process.platform === "win32" ? "skill-lifecycle.exe" : "skill-lifecycle";

function isExecutable(p: string): boolean {
	try {
		const st = statSync(p);
		// Windows has no execute bits.
		return st.isFile() && (process.platform === "win32" || (st.mode & 0o111) !== 0);
	} catch {
		return false;
	}
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
export function findBinary(): string | undefined {
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
