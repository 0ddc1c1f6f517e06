//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The bridge's cost per model request, measured in real Pi (issue 30,
// item 5): two tiny extensions are loaded around the bridge, one before
// it that notes the time when Pi's context hook starts, one after it that
// notes when it ends, so that the time between is the bridge's hook
// (finding the messages' delta, the round trip to the sidecar, applying
// the replacements). Run without the bridge, the same pair measures
// itself.
const hookStart = `export default function (pi) {
	pi.on("context", () => {
		globalThis.__hookCPU0 = process.cpuUsage();
		globalThis.__hookT0 = process.hrtime.bigint();
	});
}
`

const hookEnd = `import { appendFileSync } from "node:fs";
export default function (pi) {
	pi.on("context", (event) => {
		const ns = process.hrtime.bigint() - (globalThis.__hookT0 ?? 0n);
		const cpu = process.cpuUsage(globalThis.__hookCPU0);
		appendFileSync(process.env.HOOK_LOG, event.messages.length + " " + ns + " " + (cpu.user + cpu.system) + "\n");
	});
}
`

// hookFixed stands in for the bridge with work that does not depend on
// the session: it writes and reads back a request-sized JSON object 20
// times and does one round trip over a pipe to cat. Its time growing with
// the messages is Pi's (its per-handler copies of the list, its heap),
// not the extension's.
const hookFixed = `import { spawn } from "node:child_process";
export default function (pi) {
	const req = { from: 5, messages: [{ role: "toolResult", content: [{ type: "text", text: "a short note\n".repeat(40) }], toolCallId: "x", toolName: "read" }], systemPromptSize: 12000, cwd: "/tmp" };
	const cat = spawn("cat", [], { stdio: ["pipe", "pipe", "ignore"] });
	cat.unref();
	cat.stdin.unref?.();
	cat.stdout.unref?.();
	let wake;
	cat.stdout.on("data", () => wake?.());
	pi.on("context", async () => {
		for (let i = 0; i < 20; i++) JSON.parse(JSON.stringify(req));
		const answered = new Promise((r) => (wake = r));
		const alive = setTimeout(() => wake?.(), 5000); // keeps Node up while it waits
		cat.stdin.write(JSON.stringify(req) + "\n");
		await answered;
		clearTimeout(alive);
	});
	pi.on("session_shutdown", () => cat.kill());
}
`

// hookNoop is a context handler that does nothing: what Pi spends on one
// more handler (it filters, copies and compares the message list for
// each), which the bridge pays as well.
const hookNoop = `export default function (pi) {
	pi.on("context", () => {});
}
`

// hookSample is one model request: the messages it carries, the time
// spent between the two timing extensions, and the CPU time Pi's process
// spent meanwhile (the bridge's own work, without the wait for the
// sidecar: on a busy machine the wall time is mostly waiting for a core).
type hookSample struct {
	messages int
	d, cpu   time.Duration
}

// The extension between the timing pair.
type hookMiddle int

const (
	hookNone   hookMiddle = iota // the timing pair alone
	hookBridge                   // the bridge
	hookStub                     // hookFixed
	hookEmpty                    // hookNoop
)

// hookRun runs one Pi session of steps tool calls (a skill load every
// tenth, else a read of a small file) with mid between the timing pair,
// and returns the samples.
func hookRun(tb testing.TB, pi PiInstall, steps int, mid hookMiddle) []hookSample {
	bridge := mid == hookBridge
	tb.Helper()
	script := func(r *Request) Reply {
		switch {
		case r.Step >= steps:
			return Say("Done.")
		case r.Step%10 == 0 && bridge:
			return load(testSkills[(r.Step/10)%len(testSkills)].Name)
		}
		return Do(Call{Name: "read", Args: map[string]any{"path": "notes.txt"}})
	}
	prov := NewProvider(tb, script)
	env := NewEnv(tb, pi, prov)
	env.AddSkills(tb, testSkills...)
	env.ExtraEnv = append(env.ExtraEnv, slowMachineTimeout)
	dir := tb.TempDir()
	start, end, stub, noop, log := filepath.Join(dir, "start.ts"), filepath.Join(dir, "end.ts"), filepath.Join(dir, "fixed.ts"), filepath.Join(dir, "noop.ts"), filepath.Join(dir, "hook.log")
	for p, src := range map[string]string{start: hookStart, end: hookEnd, stub: hookFixed, noop: hookNoop, filepath.Join(env.ProjectDir, "notes.txt"): "a short note\n"} {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	exts := []string{start, end}
	runEnv := []string{"HOOK_LOG=" + log}
	switch mid {
	case hookStub:
		exts = []string{start, stub, end}
	case hookEmpty:
		exts = []string{start, noop, end}
	}
	if bridge {
		exts = []string{start, BridgeExtension(tb), end}
		runEnv = append(runEnv, BinEnv+"="+SkillLifecycleBin(tb))
	}
	env.RunOK(tb, RunOpts{Prompts: []string{"Work through the notes."}, Approve: pi.TrustGated, Extensions: exts, Env: runEnv, Timeout: 30 * time.Minute})
	b, err := os.ReadFile(log)
	if err != nil {
		tb.Fatalf("the timing extensions wrote nothing: %v", err)
	}
	var out []hookSample
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			tb.Fatalf("hook log line %q", line)
		}
		n, _ := strconv.Atoi(f[0])
		ns, _ := strconv.ParseInt(f[1], 10, 64)
		us, _ := strconv.ParseInt(f[2], 10, 64)
		out = append(out, hookSample{n, time.Duration(ns), time.Duration(us) * time.Microsecond})
	}
	if got, want := len(out), len(prov.Requests()); got != want {
		tb.Fatalf("%d hook samples for %d model requests", got, want)
	}
	prov.Forget()
	return out
}

// quantile is the q-quantile of the samples whose message count lies in
// [lo, hi] (nearest rank), and how many there are.
func quantile(s []hookSample, lo, hi int, q float64, cpu bool) (time.Duration, int) {
	var ds []time.Duration
	for _, x := range s {
		if x.messages >= lo && x.messages <= hi {
			ds = append(ds, map[bool]time.Duration{false: x.d, true: x.cpu}[cpu])
		}
	}
	if len(ds) == 0 {
		return 0, 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(q*float64(len(ds))))], len(ds)
}

// BenchmarkBridgeHook: the context hook's added time per model request
// in Pi 1.6, at about 200 messages (100 steps) and, for flatness, at
// about 2,000 (1,000 steps): median and p99 over the requests near the
// end of each session, the harness's own time (without the bridge), that
// of a handler doing nothing (hookNoop) and that of an extension of fixed
// work (hookFixed) reported beside them. Run: bash scripts/e2e.sh -run '^$' -bench BridgeHook -benchtime 1x
// (HOOK_STEPS=100,1000,3000 sets the sessions' lengths).
func BenchmarkBridgeHook(b *testing.B) {
	pi := Pi16(b)
	lengths := []int{100, 1000}
	if v := os.Getenv("HOOK_STEPS"); v != "" {
		lengths = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 50 {
				b.Fatalf("HOOK_STEPS=%q: want session lengths of at least 50 steps, comma-separated", v)
			}
			lengths = append(lengths, n)
		}
	}
	for _, steps := range lengths {
		b.Run(fmt.Sprintf("steps=%d", steps), func(b *testing.B) {
			var with, without, fixed, empty []hookSample
			for b.Loop() {
				with = append(with, hookRun(b, pi, steps, hookBridge)...)
				without = append(without, hookRun(b, pi, steps, hookNone)...)
				fixed = append(fixed, hookRun(b, pi, steps, hookStub)...)
				empty = append(empty, hookRun(b, pi, steps, hookEmpty)...)
			}
			lo, hi := 2*steps-80, 2*steps+10 // the last 40 requests or so
			med, n := quantile(with, lo, hi, 0.5, false)
			p99, _ := quantile(with, lo, hi, 0.99, false)
			all, _ := quantile(with, 0, hi, 0.5, false)
			harness, _ := quantile(without, lo, hi, 0.5, false)
			stub, _ := quantile(fixed, lo, hi, 0.5, false)
			noop, _ := quantile(empty, lo, hi, 0.5, false)
			cpu, _ := quantile(with, lo, hi, 0.5, true)
			cpu99, _ := quantile(with, lo, hi, 0.99, true)
			if n == 0 {
				b.Fatalf("no request with %d to %d messages", lo, hi)
			}
			b.ReportMetric(float64(med.Microseconds()), "µs-median")
			b.ReportMetric(float64(p99.Microseconds()), "µs-p99")
			b.ReportMetric(float64(all.Microseconds()), "µs-median-all")
			b.ReportMetric(float64(harness.Microseconds()), "µs-harness")
			b.ReportMetric(float64(stub.Microseconds()), "µs-fixed-work")
			b.ReportMetric(float64(noop.Microseconds()), "µs-noop")
			b.ReportMetric(float64(cpu.Microseconds()), "cpu-µs-median")
			b.ReportMetric(float64(cpu99.Microseconds()), "cpu-µs-p99")
			b.Logf("%d requests at %d-%d messages: median %v, p99 %v (whole session median %v; harness alone %v, an empty handler %v, fixed work %v); Pi's CPU median %v, p99 %v", n, lo, hi, med, p99, all, harness, noop, stub, cpu, cpu99)
		})
	}
}
