#!/usr/bin/env bash
# Builds tradelab in place for the container image: what the Dockerfile's build stage runs, and
# what test/container-build.test.ts runs on a copy of the working tree without Docker.
#
#   scripts/container-build.sh [APP_DIR]   # default: the current directory
#
# In APP_DIR (a checkout, without node_modules): `npm ci`, which builds better-sqlite3 and the
# native GEMM (scripts/build-native.mjs, the package's `install` script); `npm run build`; then
# `npm prune --omit=dev`, which leaves the dependencies the service runs with. It needs node, npm,
# python3, a C/C++ compiler and make (Debian: apt-get install python3 g++ make), and the npm
# registry; nothing else is downloaded: better-sqlite3 is compiled from its source instead of
# fetching a prebuilt binary from GitHub, and node-gyp uses the Node.js headers installed beside
# `node` instead of downloading them. A native GEMM that does not build fails the script (the image
# would silently run its matrix products on XNNPACK); TRADELAB_SKIP_NATIVE=1 skips it on purpose.
set -euo pipefail

say() { printf 'container-build: %s\n' "$*" >&2; }
die() {
  say "error: $1"
  [ $# -lt 2 ] || say "fix: $2"
  exit 1
}
usage() {
  say "error: $1"
  say "usage: scripts/container-build.sh [APP_DIR]"
  exit 2
}

case ${1:-} in
  -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0" && exit 0 ;;
  -*) usage "unknown option $1" ;;
esac
[ $# -le 1 ] || usage "one APP_DIR at most, got $# arguments"
app=${1:-.}
[ -d "$app" ] || die "$app: no such directory" "name the checkout to build"
cd "$app"
[ -f package.json ] && [ -f package-lock.json ] ||
  die "$(pwd) has no package.json and package-lock.json" "name the root of a tradelab checkout"

for tool in node npm python3 make; do
  command -v "$tool" >/dev/null || die "no $tool on PATH" "Debian: apt-get install python3 g++ make (and Node.js 20)"
done
command -v c++ >/dev/null || command -v g++ >/dev/null || command -v clang++ >/dev/null ||
  die "no C++ compiler on PATH (better-sqlite3 and the native GEMM need one)" "Debian: apt-get install g++"

# Compile better-sqlite3 rather than let prebuild-install download a binary from GitHub.
export npm_config_build_from_source=true
# node-gyp downloads the Node.js headers unless it is told where they are; official builds (the
# node images, nodejs.org tarballs) install them under PREFIX/include/node.
if [ -z "${npm_config_nodedir:-}" ]; then
  prefix=$(cd "$(dirname "$(command -v node)")/.." && pwd)
  if [ -f "$prefix/include/node/common.gypi" ]; then
    export npm_config_nodedir=$prefix
  else
    say "warning: no Node.js headers in $prefix/include/node; node-gyp will try to download them"
  fi
fi

say "npm ci in $(pwd) (node $(node --version), npm $(npm --version))"
npm ci --no-audit --no-fund

# scripts/build-native.mjs never fails an install; an image must not ship without the addon.
native=$(node -e '
  const s = JSON.parse(require("fs").readFileSync("native/gemm/build-status.json", "utf8"));
  console.log(s.ok ? "ok" : s.reason);
' 2>/dev/null || echo 'native/gemm/build-status.json is missing (did npm run the install script?)')
if [ "$native" != ok ] && [ "${TRADELAB_SKIP_NATIVE:-}" != 1 ]; then
  die "the native GEMM did not build: $native (log: $(pwd)/native/gemm/build.log)" \
    "install python3, g++ and make, or set TRADELAB_SKIP_NATIVE=1 to build without it"
fi

say "npm run build"
npm run build

say "npm prune --omit=dev"
npm prune --omit=dev --no-audit --no-fund

say "built $(pwd): native GEMM $native, $(du -sh node_modules | cut -f1) of production dependencies"
