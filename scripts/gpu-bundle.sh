#!/usr/bin/env bash
# Builds the GPU bundle: one self-extracting file of at most 64 MiB that measures tradelab on a GPU
# machine that has a driver and nothing else (no Node.js, no network, no npm).
#
#   scripts/gpu-bundle.sh [--out FILE] [--xz-level 0-9] [--vulkan-loader FILE]
#
# It holds this machine's Node.js (stripped when `strip` is here), the built project (dist, bin,
# presets, the native GEMM addon, bench/pytorch-ppo-update.py) with its production dependencies
# (scripts/gpu-bundle/stage-app.mjs: Dawn's dawn.node for this platform in them), the Vulkan loader
# libvulkan.so.1 and glvnd's libraries (the NVIDIA Vulkan driver needs them), and the run
# script (scripts/gpu-bundle/run.sh), in one xz-compressed tar behind a shell header. On the GPU
# machine:
#
#   sh tradelab-gpu-bundle.run [OUTDIR] [--backend webgpu|wasm] [--quick]
#
# unpacks into ./tradelab-gpu (or $TRADELAB_BUNDLE_DIR; once: a second run reuses it) and runs its
# run.sh, which writes its results under OUTDIR ($OUT, else ./tradelab-gpu-results); `--unpack-only`
# as the first argument unpacks and stops. The target needs sh, tail, tar and xz (or python3).
#
# --out FILE            where to write it (default gpu-bundle/tradelab-gpu-bundle.run)
# --xz-level N          xz preset, 9 (default: smallest, ~2 min) to 0 (~4x larger work saved; the
#                       test builds with 0, so its size check is stricter than the release's)
# --vulkan-loader FILE  the libvulkan.so.1 to bundle (default: the system's; without one, the
#                       Debian package libvulkan1 is downloaded, not installed, with apt-get)
#
# Prints what it holds and its size; fails when it is larger than 64 MiB.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
limit=$((64 * 1024 * 1024))
out="$root/gpu-bundle/tradelab-gpu-bundle.run"
level=9
vulkan_loader=""

say() { printf 'gpu-bundle: %s\n' "$*" >&2; }
die() {
  say "error: $1"
  [ $# -lt 2 ] || say "fix: $2"
  exit 1
}
usage() {
  say "error: $1"
  say "usage: scripts/gpu-bundle.sh [--out FILE] [--xz-level 0-9] [--vulkan-loader FILE]"
  exit 2
}

while [ $# -gt 0 ]; do
  case $1 in
    --out | --xz-level | --vulkan-loader)
      [ $# -ge 2 ] || usage "$1 needs a value"
      case $1 in
        --out) out=$2 ;;
        --xz-level) level=$2 ;;
        *) vulkan_loader=$2 ;;
      esac
      shift 2
      ;;
    -h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0" && exit 0 ;;
    *) usage "unknown argument $1" ;;
  esac
done
[[ $level =~ ^[0-9]$ ]] || usage "--xz-level $level: use 0 (fastest) to 9 (smallest)"
[ "$(uname -s)" = Linux ] || die "the bundle is for Linux; this is $(uname -s)" "build it on a Linux machine"

node_bin=$(command -v node) || die "no node on PATH" "install Node.js 20.19 or later"
node_platform=$(node -p 'process.platform + "-" + process.arch')
# A distribution's node (Debian's nodejs) links libnode, libuv, OpenSSL…, which the GPU machine
# may not have; an official build (nodejs.org, nvm) links only the C and C++ runtimes.
standard_libraries='^(linux-vdso|libdl|libstdc\+\+|libm|libgcc_s|libpthread|libc|librt|ld-linux[-a-z0-9_.]*)\.so'
other_libraries=$(ldd "$node_bin" 2>/dev/null | awk '{ sub(".*/", "", $1); print $1 }' | grep -Ev "$standard_libraries" | tr '\n' ' ' || true)
[ -z "$other_libraries" ] ||
  die "$node_bin links shared libraries a bare machine may lack: $other_libraries" \
    "put an official Node.js build (nodejs.org, nvm) first on PATH"
node_version=$(node --version)
[ -f "$root/dist/cli/run.js" ] || die "tradelab is not built (dist/ is missing)" "run npm ci (or npm run build)"
for tool in tar xz; do
  command -v "$tool" >/dev/null || die "no $tool here" "install $tool"
done

# --- The libraries the GPU machine's driver may not bring: the system's, else Debian's packages.
cache="$root/node_modules/.cache/tradelab-gpu-bundle"

# system_library NAME: the path of NAME in the linker cache, for this machine's architecture.
system_library() {
  local ldconfig
  ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
  "$ldconfig" -p 2>/dev/null | awk -v name="$1" '$1 == name && /x86-64|AArch64/ { print $NF; exit }'
}

# debian_library NAME PACKAGE: NAME from PACKAGE, downloaded (not installed) into the cache.
debian_library() {
  local name=$1 package=$2 found
  found=$(find "$cache/$package" -name "$name" 2>/dev/null | head -n 1)
  if [ -z "$found" ]; then
    command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
      die "$name: not installed, and no apt-get to download $package" \
        "install $package (or your system's package with $name), or pass --vulkan-loader FILE"
    say "downloading the Debian package $package for $name (apt-get download; nothing is installed)"
    rm -rf "$cache/$package" && mkdir -p "$cache/$package"
    (cd "$cache/$package" && apt-get download -q "$package" >&2) ||
      die "apt-get download $package failed (output above)" \
        "run apt-get update, or install $package, or pass --vulkan-loader FILE"
    dpkg-deb -x "$cache/$package"/*.deb "$cache/$package/root"
    found=$(find "$cache/$package/root" -name "$name" | head -n 1)
    [ -n "$found" ] || die "$package holds no $name" "pass --vulkan-loader FILE"
  fi
  printf '%s\n' "$found"
}

# library NAME PACKAGE: where NAME comes from, one line: the file, and what it is.
library() {
  local path
  path=$(system_library "$1")
  if [ -n "$path" ]; then
    printf '%s\t%s\n' "$path" "$path on this machine"
  else
    path=$(debian_library "$1" "$2")
    printf '%s\t%s\n' "$path" "Debian package $2 $(dpkg-deb -f "$cache/$2"/*.deb Version)"
  fi
}

if [ -n "$vulkan_loader" ]; then
  [ -f "$vulkan_loader" ] || die "--vulkan-loader $vulkan_loader: no such file" "name a libvulkan.so.1"
  vulkan=$(printf '%s\t%s\n' "$vulkan_loader" "$vulkan_loader (--vulkan-loader)")
else
  vulkan=$(library libvulkan.so.1 libvulkan1)
fi
# glvnd's libraries (NAME:DEBIAN-PACKAGE). NVIDIA's Vulkan driver, libGLX_nvidia.so.0, needs more
# of glvnd than its dispatch library: on an H100 (driver 580.159) with libGLdispatch.so.0 alone it
# gave the loader no vkCreateInstance and Dawn found no device; with these four it ran.
glvnd_libraries='libGLdispatch.so.0:libglvnd0 libGLX.so.0:libglx0 libEGL.so.1:libegl1 libOpenGL.so.0:libopengl0'
glvnd_sources=''
for entry in $glvnd_libraries; do
  glvnd_sources="$glvnd_sources${entry%%:*}"$'\t'"$(library "${entry%%:*}" "${entry#*:}")"$'\n'
done

# --- Stage: the bundle's tree, as it unpacks.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
started=$(date +%s)
mkdir -p "$stage/node/bin" "$stage/lib"
if command -v strip >/dev/null; then
  strip -o "$stage/node/bin/node" "$node_bin"
  node_note="stripped of its symbol table"
else
  cp "$node_bin" "$stage/node/bin/node"
  node_note="not stripped (no strip here)"
fi
chmod 755 "$stage/node/bin/node"
"$stage/node/bin/node" -e '' || die "the bundled node does not run" "check $node_bin"
cp -L "${vulkan%%$'\t'*}" "$stage/lib/libvulkan.so.1"
while IFS=$'\t' read -r name path _; do
  [ -n "$name" ] || continue
  cp -L "$path" "$stage/lib/$name"
done <<<"$glvnd_sources"
node "$root/scripts/gpu-bundle/stage-app.mjs" "$stage/app" >&2
cp "$root/scripts/gpu-bundle/run.sh" "$root/scripts/gpu-bundle/results.mjs" "$stage/"

version() { node -p "require('$root/node_modules/$1/package.json').version" 2>/dev/null || echo 'not installed'; }
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$root" diff --quiet HEAD -- src bin scripts package.json 2>/dev/null || commit="$commit with uncommitted changes"
{
  printf 'tradelab %s, commit %s, bundled %s\n' "$(node -p "require('$root/package.json').version")" \
    "$commit" "$(date -u '+%Y-%m-%d %H:%M UTC')"
  printf 'Node.js %s %s, %s\n' "$node_version" "$node_platform" "$node_note"
  printf 'webgpu (Dawn) %s, @tensorflow/tfjs-backend-webgpu %s, @tensorflow/tfjs %s\n' \
    "$(version webgpu)" "$(version @tensorflow/tfjs-backend-webgpu)" "$(version @tensorflow/tfjs)"
  printf 'native GEMM: %s\n' "$([ -f "$stage/app/native/gemm/build/Release/tradelab_gemm.node" ] && echo built || echo 'not built (XNNPACK rows only)')"
  printf 'libvulkan.so.1: %s\n' "${vulkan#*$'\t'}"
  while IFS=$'\t' read -r name _ source; do
    [ -z "$name" ] ||
      printf '%s: %s\n' "$name" "$source"
  done <<<"$glvnd_sources"
} >"$stage/MANIFEST.txt"
[ -f "$stage/app/node_modules/webgpu/dist/$node_platform/dawn.node" ] ||
  die "no dawn.node for $node_platform in node_modules/webgpu" "run npm ci (webgpu is an optional dependency)"

# --- Compress behind the header. The header's length is fixed (the offset is zero-padded), so the
# offset it holds can be written into it once its length is known.
id=$(date -u +%Y%m%d%H%M%S)-$$
mkdir -p "$(dirname "$out")"
payload="$out.payload"
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner -cf - . |
  xz "-$level" -T0 -c >"$payload"
header=$(
  cat <<HEADER
#!/bin/sh
# tradelab GPU bundle ($(head -n 1 "$stage/MANIFEST.txt")): Node.js, tradelab, Dawn,
# the Vulkan loader, and a run script. Built by scripts/gpu-bundle.sh.
#
#   sh $(basename "$out") [OUTDIR] [--backend webgpu|wasm] [--quick]
#
# Unpacks into ./tradelab-gpu (or \$TRADELAB_BUNDLE_DIR) unless this bundle is already there, then
# runs its run.sh (\`--help\` says more). \`--unpack-only\` first: unpack and stop. Needs sh, tail,
# tar, and xz or python3.
set -eu
offset=OFFSET___
id='$id'
dir=\${TRADELAB_BUNDLE_DIR:-tradelab-gpu}
if [ "\$(cat "\$dir/.bundle-id" 2>/dev/null)" != "\$id" ]; then
  if command -v xz >/dev/null; then
    unxz() { xz -dc; }
  elif command -v python3 >/dev/null; then
    unxz() { python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.stdin.buffer), sys.stdout.buffer)'; }
  else
    echo "tradelab-gpu: error: unpacking needs xz or python3; install xz-utils" >&2
    exit 1
  fi
  echo "tradelab-gpu: unpacking into \$dir" >&2
  rm -rf "\$dir.partial" && mkdir -p "\$dir.partial"
  tail -c "+\$offset" "\$0" | unxz | tar -xf - -C "\$dir.partial"
  echo "\$id" >"\$dir.partial/.bundle-id"
  rm -rf "\$dir" && mv "\$dir.partial" "\$dir"
fi
if [ "\${1:-}" = --unpack-only ]; then
  echo "tradelab-gpu: unpacked in \$dir; run sh \$dir/run.sh" >&2
  exit 0
fi
exec sh "\$dir/run.sh" "\$@"
HEADER
)
header="$header"$'\n'
offset=$(printf '%09d' $((${#header} + 1)))
header=${header/OFFSET___/$offset}
# ${#header} counts characters; the header must be ASCII for that to be its length in bytes.
[ "$(printf '%s' "$header" | wc -c)" -eq $((10#$offset - 1)) ] || die "the bundle header is not ASCII"
{
  printf '%s' "$header"
  cat "$payload"
} >"$out"
rm -f "$payload"
chmod 755 "$out"

# --- What it holds, and its size.
size=$(stat -c %s "$out")
say "built $out in $(($(date +%s) - started)) s (xz -$level):"
sed 's/^/gpu-bundle:   /' "$stage/MANIFEST.txt" >&2
for part in node app app/node_modules/webgpu lib; do
  say "  $part: $(du -sm --apparent-size "$stage/$part" | cut -f1) MiB unpacked"
done
printf '%s: %d bytes (%s MiB of at most 64)\n' "$out" "$size" \
  "$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1048576 }')"
[ "$size" -le "$limit" ] || die "the bundle is larger than 64 MiB" "leave out more in scripts/gpu-bundle/stage-app.mjs"
