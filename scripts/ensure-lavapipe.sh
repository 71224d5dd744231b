#!/usr/bin/env bash
# Makes sure Dawn (the `webgpu` package) finds a Vulkan adapter, installing Mesa's lavapipe (a
# software Vulkan driver) when none is found, so that the GPU engine's tests run on any machine.
#
#   scripts/ensure-lavapipe.sh
#
# Dawn refuses Mesa before 23 (Debian 12 ships 22.3), so on Debian bookworm mesa-vulkan-drivers comes
# from bookworm-backports (Mesa 25), whose source is added when missing. Elsewhere the distribution's
# package is used when it is new enough. Does nothing when Dawn already finds an adapter (a GPU, or
# lavapipe installed before), or, before `npm ci` (no Dawn to ask yet), when Mesa 23 or later is
# installed. Prints the adapter on stdout when it can ask Dawn; apt-get's output goes to stderr.
# TRADELAB_LAVAPIPE_REINSTALL=1 runs the install even when nothing is missing (to test this script).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
say() { printf 'ensure-lavapipe: %s\n' "$*" >&2; }
die() {
  say "error: $1"
  [ $# -lt 2 ] || say "fix: $2"
  exit 1
}

# The adapter Dawn finds, as one line, or nothing (the probe is the one tradelab itself runs).
adapter() {
  (cd "$root" && node --input-type=module -e "
    const { probeWebGpuAdapter, describeWebGpuAdapter } = await import('./dist/compute/webgpu-adapter.js');
    const probe = await probeWebGpuAdapter({ packages: ['webgpu'] });
    if (probe.found) console.log(describeWebGpuAdapter(probe.adapter));
    else console.error(probe.reason);
  ") 2>/dev/null || true
}

# Dawn can be asked once npm ci has installed it and built tradelab.
can_ask() { [ -f "$root/dist/compute/webgpu-adapter.js" ] && [ -d "$root/node_modules/webgpu" ]; }
# Mesa's Vulkan drivers, 23 or later, are installed.
mesa_ok() {
  local version
  version=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null) || return 1
  dpkg --compare-versions "$version" ge 23
}

if [ "${TRADELAB_LAVAPIPE_REINSTALL:-}" != 1 ]; then
  if can_ask; then
    found=$(adapter)
    if [ -n "$found" ]; then
      say "Dawn finds an adapter: $found"
      printf '%s\n' "$found"
      exit 0
    fi
  elif command -v dpkg-query >/dev/null && mesa_ok && dpkg-query -W libvulkan1 >/dev/null 2>&1; then
    say "mesa-vulkan-drivers $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers) is installed"
    exit 0
  fi
fi

command -v apt-get >/dev/null ||
  die "Dawn finds no Vulkan adapter and there is no apt-get to install lavapipe" \
    "install Mesa's Vulkan drivers (23 or later) and the Vulkan loader with your package manager"
[ "$(id -u)" = 0 ] ||
  die "Dawn finds no Vulkan adapter; installing lavapipe needs root" "run 'sudo $0'"

export DEBIAN_FRONTEND=noninteractive
codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
target=()
if [ "$codename" = bookworm ]; then
  if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    say "adding Debian's bookworm-backports (Mesa 25) to apt's sources"
    cat >/etc/apt/sources.list.d/tradelab-bookworm-backports.sources <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  fi
  target=(-t bookworm-backports)
fi
say "installing mesa-vulkan-drivers and libvulkan1 with apt-get"
{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "${target[@]}" mesa-vulkan-drivers libvulkan1; } >&2 ||
  die "apt-get install mesa-vulkan-drivers failed (output above)" "check the network and apt sources"

mesa_ok || die "apt-get installed mesa-vulkan-drivers $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null), older than the 23 Dawn needs" \
  "install Mesa's Vulkan drivers 23 or later (Debian 12: from bookworm-backports)"
can_ask || exit 0
found=$(adapter)
[ -n "$found" ] ||
  die "Dawn still finds no adapter after installing mesa-vulkan-drivers $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null)" \
    "run tradelab backends to see why"
say "Dawn finds an adapter: $found"
printf '%s\n' "$found"
