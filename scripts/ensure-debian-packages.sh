#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages named on the command line that are missing, quietly.
#
#   scripts/ensure-debian-packages.sh libopenblas-dev [more packages…]
#
# Does nothing when every package is installed. Otherwise runs apt-get update and apt-get install
# (root only; apt-get's output goes to stderr). Exits non-zero, saying what to do, when it cannot.
set -euo pipefail

say() { printf 'ensure-debian-packages: %s\n' "$*" >&2; }
die() {
  say "error: $1"
  [ $# -lt 2 ] || say "fix: $2"
  exit 1
}

[ $# -gt 0 ] || die "usage: $0 PACKAGE…" "name the Debian packages to install"

missing=()
for package in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -gt 0 ] || exit 0

command -v apt-get >/dev/null ||
  die "missing ${missing[*]} and no apt-get to install them" \
    "install ${missing[*]} (or your system's equivalent) with its package manager"
[ "$(id -u)" = 0 ] ||
  die "missing ${missing[*]}, and installing them needs root" "run 'sudo apt-get install ${missing[*]}'"

say "installing ${missing[*]} with apt-get"
export DEBIAN_FRONTEND=noninteractive
{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >&2 ||
  die "apt-get install ${missing[*]} failed (output above)" "check the network and apt sources"
