#!/usr/bin/env bash
# The real-Pi end-to-end tests: installs Node 22 and the pinned Pi releases
# (scripts/setup-pi.sh, fast when already done), then runs tests/e2e with the
# e2e build tag. At most two Pi processes run at a time (-parallel 2).
# Extra arguments go to `go test` (e.g. -run TestBaselinePi16 -v).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-pi.sh
go test -tags e2e -count=1 -parallel 2 -timeout "${E2E_TIMEOUT:-15m}" "$@" ./tests/e2e/...
