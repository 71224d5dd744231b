#!/usr/bin/env bash
# Checks tradelab's GEMM kernels for another architecture under emulation: builds
# native/gemm/test/check-kernels.c with a cross-compiler and runs it under qemu-user. AArch64 (the
# NEON kernel) by default. A developer's check, not part of npm test (CI runs the kernels this
# machine has through vitest).
#
#   scripts/check-kernels-cross.sh            # aarch64
#   ARCH=aarch64 scripts/check-kernels-cross.sh
#
# Needs gcc-<arch>-linux-gnu and qemu-user (Debian: apt-get install gcc-aarch64-linux-gnu qemu-user).
set -euo pipefail
arch="${ARCH:-aarch64}"
cc="${arch}-linux-gnu-gcc"
qemu="qemu-${arch}"
for tool in "$cc" "$qemu"; do
  command -v "$tool" >/dev/null || {
    echo "check-kernels-cross: $tool not found; install gcc-${arch}-linux-gnu and qemu-user" >&2
    exit 1
  }
done
root="$(cd "$(dirname "$0")/.." && pwd)"
gemm="$root/native/gemm"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$cc" -O3 -std=c11 -fno-math-errno -Wall -Wextra -D_POSIX_C_SOURCE=200809L -static \
  -o "$out/check-kernels" "$gemm/test/check-kernels.c" "$gemm/sgemm.c" "$gemm/kernels-x86.c" \
  "$gemm/kernels-neon.c" "$gemm/kernels-generic.c" "$gemm/thread-pool.c" -lm -lpthread
"$qemu" "$out/check-kernels"
