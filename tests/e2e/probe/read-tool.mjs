// Runs Pi's own read tool, outside Pi, on the calls given one a line on
// stdin (each line the arguments' JSON text, parsed with JSON.parse as Pi
// parses a provider's tool call, so 1e400 is Infinity), and prints one JSON
// line per call: {"text": ...} with what the tool returns, or {"error": ...}.
// Used by TestBridgeReadGuardMatchesPi* to learn which reads Pi serves in
// full. Usage: node read-tool.mjs <dist/core/tools/read.js> <cwd>
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const [readJs, cwd] = process.argv.slice(2);
const { createReadToolDefinition } = await import(pathToFileURL(readJs).href);
const tool = createReadToolDefinition(cwd);
for await (const line of createInterface({ input: process.stdin })) {
	if (!line.trim()) continue;
	let out;
	try {
		const res = await tool.execute("probe", JSON.parse(line), undefined, undefined, undefined);
		out = { text: res.content.map((c) => c.text ?? "").join("") };
	} catch (err) {
		out = { error: String(err?.message ?? err) };
	}
	process.stdout.write(JSON.stringify(out) + "\n");
}
