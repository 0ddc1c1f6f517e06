//go:build e2e

// Package live is the live benchmark of issue 9: it drives the real Pi
// coding agent (Pi 1.6, through the end-to-end harness of tests/e2e) with a
// scripted agent over multi-turn scenarios written as data, once without
// any extension and once per bridge configuration, captures every request
// body Pi sends, and prices each run with the same prefix-cache pricing as
// replay (replay/pricing): per request, the longest prefix shared with the
// previous request is a cache read and the rest a cache write, in the
// characters of the harness's usage string (4 characters a token), with no
// cache lifetime and with a 5-minute one. Think time between user turns is
// virtual: each Pi process runs with a shifted clock (clock.cjs), so the
// request timestamps, Pi's session file and the bridge all see the
// scenario's timeline without the benchmark sleeping. The report compares
// each bridge run with the run without extension (cost, peak request,
// prefix breaks and what broke them, skill loads and reloads, skills the
// agent came back to) and with what `skill-lifecycle replay` predicts from
// the no-extension session. Everything here needs the e2e build tag and
// scripts/setup-pi.sh; scripts/live-bench.sh runs it.
package live
