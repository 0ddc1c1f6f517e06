#!/usr/bin/env bash
# The live benchmark (issue 9, bench/live): every scenario through real Pi 1.6
# without extension and with the bridge in each mode, priced from the captured
# request bodies with replay/pricing, checked against `skill-lifecycle replay`.
#
#   scripts/live-bench.sh [--short] [--json] [--keep DIR] [--scenario NAME] [--modes a,b]
#                         [--config NAME=FILE ...]
#
# --short   only the short scenario (release-week, about 26-29 requests a mode,
#           about 2.5 minutes); the full run takes about 15 minutes.
# --json    print the report as JSON instead of the table.
# --keep    keep Pi's sessions and the request logs (with virtual times) in DIR.
# --scenario, --modes  run a subset (the no-extension baseline always runs).
# --config  one more mode, NAME, running the bridge with FILE as its
#           skill-lifecycle.json (repeatable; --modes may name it). A NAME
#           ending in -5m runs against a provider whose cache expires after
#           5 virtual minutes, as the defaults-5m mode does: its "cost % 5m"
#           is then what the bridge decides on that provider's usage.
# It fails (exit 1) when the harness misbehaves or a skill the agent came back
# to was left archived without a way to load it again; the cost targets are
# reported, not enforced. At most two Pi processes run at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
short=0 json=0 keep="" only="" modes=""
confs=()
while [ $# -gt 0 ]; do
  case $1 in
    --short) short=1 ;;
    --json) json=1 ;;
    --keep) keep=$2; shift ;;
    --keep=*) keep=${1#--keep=} ;;
    --scenario) only=$2; shift ;;
    --scenario=*) only=${1#--scenario=} ;;
    --modes) modes=$2; shift ;;
    --modes=*) modes=${1#--modes=} ;;
    --config) confs+=(-live.config "$2"); shift ;;
    --config=*) confs+=(-live.config "${1#--config=}") ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "live-bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
bash scripts/setup-pi.sh >&2
out=$(mktemp)
log=$(mktemp)
trap 'rm -f "$out" "$log"' EXIT
args=(-live.out "$out")
[ "$short" = 1 ] || args+=(-live.full)
[ "$json" = 0 ] || args+=(-live.json)
[ -z "$keep" ] || args+=(-live.keep "$(mkdir -p "$keep" && cd "$keep" && pwd)")
[ -z "$only" ] || args+=(-live.scenario "$only")
[ -z "$modes" ] || args+=(-live.modes "$modes")
args+=("${confs[@]+"${confs[@]}"}")
status=0
go test -tags e2e -count=1 -parallel 2 -timeout "${LIVE_BENCH_TIMEOUT:-40m}" -run '^TestLiveBench$' ./bench/live/ -args "${args[@]}" >"$log" 2>&1 || status=$?
if [ -s "$out" ]; then cat "$out"; fi
if [ "$status" != 0 ]; then cat "$log" >&2; fi
exit "$status"
