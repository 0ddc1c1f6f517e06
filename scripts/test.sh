#!/usr/bin/env bash
# The whole test suite: formatting and static checks, the Go tests (unit,
# conformance, the report in headless Chromium, short fuzz runs) and the
# real-Pi end-to-end tests. It installs what it needs (Go modules,
# staticcheck, Debian's chromium, Node 22 and Pi under .tools/).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export GOFLAGS=${GOFLAGS:-}
export PATH="$(go env GOPATH)/bin:$PATH"

echo "== go mod download"
go mod download

echo "== go mod tidy"
# go.mod and go.sum must say what the code imports, no more and no less.
if ! go mod tidy -diff; then echo "go.mod or go.sum is not tidy: run go mod tidy"; exit 1; fi

echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.tools/*'))
if [ -n "$bad" ]; then echo "gofmt would change:"; echo "$bad"; exit 1; fi

echo "== go vet"
go vet ./...
go vet -tags corpora ./... # the tests on ../shared/corpora
go vet -tags e2e ./... # the real-Pi tests and the live benchmark
go vet -tags browser ./tests/browser/ # the report in headless Chromium

echo "== staticcheck"
if ! command -v staticcheck >/dev/null 2>&1; then
  go install honnef.co/go/tools/cmd/staticcheck@v0.8.2
fi
staticcheck ./...
staticcheck -tags corpora ./...
staticcheck -tags e2e ./...
staticcheck -tags browser ./tests/browser/

# The bridge's TypeScript, strict (no build step: Pi loads it with jiti),
# and its types of Pi against Pi 1.6's and 0.73's own declarations.
echo "== tsc"
bash scripts/setup-pi.sh >/dev/null
tsc() { .tools/node22/bin/node extension/node_modules/typescript/bin/tsc "$@"; }
tsc -p extension
tsc -p extension/check

echo "== go test"
# With the tests that read the shared corpora beside the repository
# (../shared/corpora); without them each fails, naming what is missing.
go test -count=1 -tags corpora ./...

# The replay --html report laid out in Debian's headless Chromium (installed
# when /usr/bin/chromium is missing).
echo "== browser (headless Chromium)"
bash scripts/setup-chromium.sh
go test -tags browser -count=1 ./tests/browser/

# Short fuzz runs of every fuzz target (the long runs are in docs/reliability.md).
# The budget is a count of executions, not a duration: on go1.26 a duration
# budget can end a clean run with a spurious "context deadline exceeded" when
# the deadline races a busy worker (golang/go#75804, fixed in Go 1.27).
echo "== fuzz (short)"
for spec in $(bash scripts/fuzz-targets.sh 2>/dev/null); do
  pkg=${spec%%:*}; name=${spec##*:}
  go test -run='^$' -fuzz="^${name}\$" -fuzztime="${FUZZTIME:-2000x}" -fuzzminimizetime=200x -timeout=5m "$pkg"
done

if [ -x scripts/e2e.sh ]; then
  echo "== end-to-end (real Pi)"
  bash scripts/e2e.sh
fi

if [ -x scripts/live-bench.sh ]; then
  echo "== live benchmark (short: one scenario, every mode, real Pi)"
  # Every test of the package but the benchmark itself, which the next
  # line runs short.
  go test -tags e2e -count=1 -skip '^TestLiveBench$' ./bench/live/
  bash scripts/live-bench.sh --short
fi
echo "== all checks passed"
