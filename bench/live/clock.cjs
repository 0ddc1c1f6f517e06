// Loaded into every Pi process of the live benchmark with
// NODE_OPTIONS=--require: shifts the wall clock by
// LIVE_BENCH_CLOCK_OFFSET_MS so that Pi, its session file and the bridge see
// the scenario's virtual timeline (think time between user turns) without
// the benchmark sleeping. Time still runs at its real pace within a run.
"use strict";
const offset = Number(process.env.LIVE_BENCH_CLOCK_OFFSET_MS || "0");
if (Number.isFinite(offset) && offset !== 0) {
	const RealDate = Date;
	const realNow = RealDate.now.bind(RealDate);
	class ShiftedDate extends RealDate {
		constructor(...args) {
			if (args.length === 0) super(realNow() + offset);
			else super(...args);
		}
		static now() {
			return realNow() + offset;
		}
	}
	globalThis.Date = ShiftedDate;
}
