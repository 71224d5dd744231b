#!/usr/bin/env bash
# Makes sure Dawn (the `webgpu` package) finds a Vulkan adapter without a GPU: installs the Vulkan
# loader (libvulkan1) and Mesa's Vulkan drivers (mesa-vulkan-drivers), whose lavapipe runs Vulkan
# on the CPU, then asks Dawn for its adapter.
#
#   scripts/ensure-lavapipe.sh
#
# Mesa must be 25 or later: Dawn refuses Debian 12's 22.3 (its lavapipe lacks
# shaderUniform*ArrayDynamicIndexing), and 25 is the oldest tested. Where apt's candidate is older
# and the system is Debian bookworm, Mesa comes from bookworm-backports, whose source is added (on
# the mirror of the system's own bookworm source) when apt has none. Elsewhere an older candidate is
# an error that says what to do. Does nothing but check when both packages are installed, so root
# is needed only to install. Dawn is asked from the repository's node_modules; before `npm ci`
# there is no Dawn to ask, and the GPU tests ask it instead (test/support/webgpu.ts). Prints
# nothing on stdout; what it did, the adapter, and apt-get's output go to stderr.
set -euo pipefail

MESA_MIN=25
NEED="Mesa $MESA_MIN or later (Dawn refuses Debian 12's 22.3; $MESA_MIN is the oldest tested)"
PACKAGES=(mesa-vulkan-drivers libvulkan1)
root=$(cd "$(dirname "$0")/.." && pwd)

say() { printf 'ensure-lavapipe: %s\n' "$*" >&2; }
die() {
  say "error: $1"
  [ $# -lt 2 ] || say "fix: $2"
  exit 1
}

# The installed version of a package, or nothing.
installed() {
  dpkg-query -W -f='${db:Status-Status} ${Version}\n' "$1" 2>/dev/null |
    awk '$1 == "installed" { print $2; exit }' || true
}
# Whether a Debian version is Mesa $MESA_MIN or later.
new_enough() { [ -n "$1" ] && dpkg --compare-versions "$1" ge "$MESA_MIN"; }
# apt's candidate version of a package (the one `apt-get install` would take), or nothing.
candidate() { apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'; }

# The files named that exist, one a line (mawk stops at a missing file; a glob may match none).
existing() {
  local file
  for file in "$@"; do [ ! -f "$file" ] || printf '%s\n' "$file"; done
}
ONE_LINE_SOURCES=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list)
DEB822_SOURCES=(/etc/apt/sources.list.d/*.sources)

# Whether an apt source (one-line or deb822, not commented out) names bookworm-backports.
has_backports_source() {
  local file
  while read -r file; do
    ! grep -Eq '^[^#]*bookworm-backports' "$file" || return 0
  done < <(existing "${ONE_LINE_SOURCES[@]}" "${DEB822_SOURCES[@]}")
  return 1
}

# The mirror of the system's bookworm source ("deb URI bookworm …" or a deb822 stanza whose Suites
# has bookworm), so that backports come from the mirror the system already reaches; or nothing.
bookworm_mirror() {
  local lists sources uri=""
  mapfile -t lists < <(existing "${ONE_LINE_SOURCES[@]}")
  mapfile -t sources < <(existing "${DEB822_SOURCES[@]}")
  [ ${#lists[@]} -eq 0 ] || uri=$(awk '$1 == "deb" {
      i = 2
      if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
      if ($(i + 1) == "bookworm") { print $i; exit }
    }' "${lists[@]}")
  [ -n "$uri" ] || [ ${#sources[@]} -eq 0 ] || uri=$(awk 'BEGIN { RS = "" }
      {
        deb = 0; bookworm = 0; uri = ""; enabled = 1
        n = split($0, lines, "\n")
        for (l = 1; l <= n; l++) {
          line = lines[l]
          if (line ~ /^[ \t]*#/) continue
          if (line ~ /^Types:/ && line ~ /[ \t]deb([ \t]|$)/) deb = 1
          if (line ~ /^Suites:/ && line ~ /[ \t]bookworm([ \t]|$)/) bookworm = 1
          if (line ~ /^Enabled:[ \t]*no/) enabled = 0
          if (line ~ /^URIs:/) { split(line, f, /[ \t]+/); uri = f[2] }
        }
        if (deb && bookworm && enabled && uri != "") { print uri; exit }
      }' "${sources[@]}")
  printf '%s\n' "$uri"
}

# Adds bookworm-backports to apt's sources, on the system's own mirror.
add_backports_source() {
  local mirror file=/etc/apt/sources.list.d/tradelab-bookworm-backports.sources
  mirror=$(bookworm_mirror)
  if [ -z "$mirror" ]; then
    mirror=http://deb.debian.org/debian
    say "found no bookworm source in /etc/apt; using $mirror"
  fi
  say "adding bookworm-backports on $mirror to apt's sources ($file)"
  {
    printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\n' "$mirror"
    local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    [ ! -f "$keyring" ] || printf 'Signed-By: %s\n' "$keyring"
  } >"$file" || die "could not write $file" "run this script as root"
}

apt_get() {
  DEBIAN_FRONTEND=noninteractive apt-get "$@" >&2 ||
    die "apt-get $* failed (output above)" "check the network and apt's sources in /etc/apt"
}

# Installs the packages, Mesa from bookworm-backports where bookworm's own is too old.
install_packages() {
  command -v apt-get >/dev/null ||
    die "mesa-vulkan-drivers $MESA_MIN+ and libvulkan1 are needed and there is no apt-get" \
      "install Mesa's Vulkan drivers ($MESA_MIN or later) and the Vulkan loader with the system's package manager"
  [ "$(id -u)" = 0 ] ||
    die "mesa-vulkan-drivers $MESA_MIN+ and libvulkan1 are needed, and installing them needs root" \
      "run 'sudo $0'"
  apt_get update -qq
  local offered target=()
  offered=$(candidate mesa-vulkan-drivers)
  if ! new_enough "$offered"; then
    local id codename name
    id=$(. /etc/os-release && printf '%s' "${ID:-}")
    codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
    name=$(. /etc/os-release && printf '%s' "${PRETTY_NAME:-this system}")
    [ "$id" = debian ] && [ "$codename" = bookworm ] ||
      die "$name offers mesa-vulkan-drivers ${offered:-(none)}; lavapipe for Dawn needs $NEED" \
        "install mesa-vulkan-drivers $MESA_MIN or later (from the distribution's backports or a newer release; Ubuntu: a Mesa PPA such as kisak-mesa), then run this script again"
    if ! has_backports_source; then
      add_backports_source
      apt_get update -qq
    fi
    target=(-t bookworm-backports)
  fi
  say "installing ${PACKAGES[*]}${target[*]:+ (${target[*]})} with apt-get"
  apt_get install -y -qq --no-install-recommends "${target[@]}" "${PACKAGES[@]}"
  local got
  got=$(installed mesa-vulkan-drivers)
  new_enough "$got" ||
    die "mesa-vulkan-drivers is ${got:-not installed} after apt-get install; lavapipe for Dawn needs $NEED" \
      "install mesa-vulkan-drivers $MESA_MIN or later (Debian 12: apt-get install -t bookworm-backports mesa-vulkan-drivers)"
}

# The adapter Dawn finds, as one line on stdout (Dawn's own warnings on stderr); fails with none.
# Dawn is imported by the absolute path the repository resolves, as tradelab does.
dawn_adapter() {
  timeout 60 node --input-type=module -e '
    import { createRequire } from "node:module";
    import { pathToFileURL } from "node:url";
    const path = createRequire(process.argv[1] + "/").resolve("webgpu");
    const webgpu = await import(pathToFileURL(path).href);
    const adapter = await webgpu.create([]).requestAdapter({ powerPreference: "high-performance" });
    if (adapter === null) process.exit(3);
    const { description, vendor, architecture } = adapter.info;
    const about = [vendor, architecture].filter((s) => s).join(", ");
    const line = `${description || "unnamed adapter"}${about ? ` (${about})` : ""}`;
    process.stdout.write(line + "\n", () => process.exit(0));
  ' "$root"
}

if command -v dpkg-query >/dev/null; then
  mesa=$(installed mesa-vulkan-drivers)
  if new_enough "$mesa" && [ -n "$(installed libvulkan1)" ]; then
    say "mesa-vulkan-drivers $mesa and libvulkan1 are installed"
  else
    [ -z "$mesa" ] || say "mesa-vulkan-drivers $mesa is too old: lavapipe for Dawn needs $NEED"
    install_packages
  fi
fi

if ! command -v node >/dev/null || [ ! -d "$root/node_modules/webgpu" ]; then
  say "Dawn not asked: the webgpu package is not installed yet (npm ci installs it); the GPU tests ask it"
  exit 0
fi
dawn_said=$(mktemp)
trap 'rm -f "$dawn_said"' EXIT
if adapter=$(dawn_adapter 2>"$dawn_said") && [ -n "$adapter" ]; then
  say "Dawn finds $adapter"
  exit 0
fi
sed '/^[[:space:]]*$/d; s/^/  /' "$dawn_said" >&2
if command -v dpkg-query >/dev/null; then
  die "Dawn finds no adapter, though mesa-vulkan-drivers $(installed mesa-vulkan-drivers) is installed (Dawn's words above)" \
    "'vulkaninfo --summary' (package vulkan-tools) lists the devices Vulkan sees; VK_DRIVER_FILES or VK_ICD_FILENAMES must not hide lvp_icd*.json"
fi
die "Dawn finds no adapter (Dawn's words above)" \
  "install Mesa's Vulkan drivers ($MESA_MIN or later, for lavapipe) and the Vulkan loader with the system's package manager"
