#!/usr/bin/env bash
# Builds the npm packages that `pi install npm:skill-lifecycle` installs:
#   skill-lifecycle              the Pi package: the bridge (extension/index.ts and
#                                the modules it imports, as the "files" of
#                                extension/package.json list them), its
#                                CHANGELOG.md, README.md and the LICENSE, its
#                                dependency (vscode-jsonrpc) bundled, and one
#                                optional dependency per platform, pinned to the
#                                same version;
#   @skill-lifecycle/<os>-<cpu>  the Go binary for one platform, as bin/skill-lifecycle
#                                (.exe on Windows); npm's "os" and "cpu" fields make
#                                npm install only the user's. Platforms: linux-x64,
#                                linux-arm64, darwin-x64, darwin-arm64, win32-x64.
# The version is extension/package.json's; the binaries are built with
# CGO_ENABLED=0 (static, so the Linux ones run on glibc and musl alike),
# -trimpath, and the version and commit stamped with -ldflags -X (see
# `skill-lifecycle --version`). The tarballs (npm pack) go to dist/npm/
# (git-ignored) or to --out DIR; their paths are printed, one a line.
#
#   bash scripts/package.sh [--out DIR]
#   npm publish DIR/<tarball>    # each platform package first, then skill-lifecycle
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/dist/npm
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package.sh: unknown argument $1 (usage: scripts/package.sh [--out DIR])" >&2; exit 2 ;;
  esac
done
for tool in go node npm; do
  command -v "$tool" >/dev/null 2>&1 || { echo "package.sh: $tool is required" >&2; exit 1; }
done

version=$(node -p 'require("./extension/package.json").version')
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || { echo "package.sh: extension/package.json: version '$version' is not semver" >&2; exit 1; }
# Pi shows the entries of CHANGELOG.md newer than the version a user had, by
# their "## [x.y.z]" headings: a release without one would show nothing.
grep -Eq "^## \[?${version//./\\.}\]?( |$)" extension/CHANGELOG.md ||
  { echo "package.sh: extension/CHANGELOG.md has no '## [$version]' heading" >&2; exit 1; }
commit=$(git rev-parse HEAD 2>/dev/null || true)
modified=false
if [ -n "$commit" ] && [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then modified=true; fi
ldflags="-s -w -X main.version=v$version -X main.commit=$commit -X main.modified=$modified"

mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# manifest FILE JS: writes FILE from the JavaScript object expression JS
# (given `version`).
manifest() { VERSION=$version node -e 'const version = process.env.VERSION; const m = eval("(" + process.argv[1] + ")"); require("fs").writeFileSync(process.argv[2], JSON.stringify(m, null, 2) + "\n")' "$2" "$1"; }

pack() { # dir: npm pack into $out, prints the tarball's path
  local name
  name=$(cd "$1" && npm pack --ignore-scripts --silent --pack-destination "$out")
  echo "$out/$name"
}

platforms="linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64"
optional="{"
for p in $platforms; do
  os=${p%-*}; cpu=${p#*-}
  case $os in win32) goos=windows ;; *) goos=$os ;; esac
  case $cpu in x64) goarch=amd64 ;; *) goarch=$cpu ;; esac
  exe=skill-lifecycle; [ "$os" = win32 ] && exe=skill-lifecycle.exe
  dir=$stage/$p
  mkdir -p "$dir/bin"
  echo "package.sh: go build $goos/$goarch" >&2
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath -ldflags "$ldflags" -o "$dir/bin/$exe" ./cmd/skill-lifecycle
  cp LICENSE "$dir/"
  manifest "$dir/package.json" "{
    name: '@skill-lifecycle/$p', version,
    description: 'The skill-lifecycle binary for $os $cpu, installed by the skill-lifecycle Pi package',
    license: 'MIT',
    repository: { type: 'git', url: 'git+https://github.com/skill-lifecycle/skill-lifecycle.git' },
    os: ['$os'], cpu: ['$cpu'],
    files: ['bin/$exe'],
    preferUnplugged: true,
  }"
  pack "$dir"
  optional="$optional '@skill-lifecycle/$p': version,"
done
optional="$optional }"

# The Pi package: extension/package.json, with the platform packages as
# optional dependencies, its own dependency bundled (installed here by npm ci
# from extension/package-lock.json, so the user's install fetches nothing but
# this project's packages), and without the guard against publishing
# extension/ itself.
dir=$stage/skill-lifecycle
mkdir -p "$dir"
# The bridge's files are those its manifest's "files" names (LICENSE is the
# repository's).
files=$(node -p 'require("./extension/package.json").files.filter((f) => f !== "LICENSE").join(" ")')
for f in $files; do cp "extension/$f" "$dir/"; done
cp extension/package.json extension/package-lock.json LICENSE "$dir/"
(cd "$dir" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --silent >&2)
rm "$dir/package-lock.json"
manifest "$dir/package.json" "(() => {
  const m = require('$root/extension/package.json');
  delete m.scripts;
  m.optionalDependencies = $optional;
  m.bundleDependencies = Object.keys(m.dependencies);
  return m;
})()"
pack "$dir"
