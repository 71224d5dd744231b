#!/bin/sh
# Measures tradelab on this machine's GPU from an unpacked GPU bundle (scripts/gpu-bundle.sh builds
# it; its self-extracting file unpacks it and runs this with the same arguments).
#
#   sh run.sh [OUTDIR] [--backend webgpu|wasm] [--quick]
#
# OUTDIR defaults to $OUT, else ./tradelab-gpu-results. The results go to OUTDIR/DATE-GPU/ in three
# files (the device tool returns at most 8): tables.txt (the machine: nvidia-smi, Node, what the
# bundle holds; then every command's table, then tradelab's rates against PyTorch's), results.jsonl
# (every --json line, each with the command that printed it) and log.txt (the commands, their
# stderr and how long each took).
#
#   --backend webgpu  (default) tradelab backends; bench gemm; bench ppo-update with the GPU rows
#                     (tradelab's engine, tfjs's webgpu; dispatches and bytes per update), on
#                     tradelab's target shape and FinRL's; bench ppo on the engine, webgpu and wasm;
#                     bench env, the trading env's steps/s on the CPU and on the GPU up to 4M envs;
#                     bench tcn on the engine and wasm, and on the engine at seed 003's
#                     configuration; PyTorch's update and TCN step on the same shapes, on CUDA when
#                     it sees a GPU and on one CPU thread; last, bench campaign: FinRL_Crypto's
#                     study resident on the GPU (32 trials) against the CPU on all cores (one
#                     trial a core), in one run ($TRADELAB_CAMPAIGN_TIMEOUT, default 480 s).
#                     Takes about ten minutes.
#   --backend wasm    the same without webgpu: for a machine with no GPU (the test runs this).
#   --quick           tiny shapes, one run each: shows that everything runs, measures nothing.
#
# Each command is stopped after $TRADELAB_STEP_TIMEOUT seconds (default 300; where `timeout` is
# here), so that one hung GPU command cannot take the whole lease: it counts as failed.
#
# Runs the bundled Node, and the bundled Vulkan loader where the system has none. Exits 1 when a
# command failed (the others still run), 2 on bad arguments.
set -u

here=$(cd "$(dirname "$0")" && pwd)
say() { printf 'tradelab-gpu: %s\n' "$*" >&2; }
usage_error() {
  say "error: $1"
  say "usage: sh run.sh [OUTDIR] [--backend webgpu|wasm] [--quick]"
  exit 2
}

out=${OUT:-}
backend=webgpu
quick=0
while [ $# -gt 0 ]; do
  case $1 in
    --backend)
      [ $# -ge 2 ] || usage_error "--backend needs a value: webgpu or wasm"
      backend=$2
      shift 2
      ;;
    --backend=*)
      backend=${1#--backend=}
      shift
      ;;
    --quick)
      quick=1
      shift
      ;;
    -h | --help)
      sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
      exit 0
      ;;
    -*) usage_error "unknown option $1" ;;
    *)
      out=$1
      shift
      ;;
  esac
done
case $backend in
  webgpu | wasm) ;;
  *) usage_error "--backend $backend is not a choice: use webgpu or wasm" ;;
esac
[ -n "$out" ] || out=tradelab-gpu-results
case $out in
  /*) ;;
  *) out=$PWD/$out ;; # the commands run in a scratch directory
esac

# --- The environment: our Node first; Vulkan from the driver, our loader where the system has none.
export PATH="$here/node/bin:$PATH"
export NO_COLOR=1
ldconfig_cmd=$(command -v ldconfig || echo /sbin/ldconfig)
# In the linker cache for this machine's architecture (not only as a 32-bit library).
system_has() { "$ldconfig_cmd" -p 2>/dev/null | grep -Eq "^[[:space:]]*$1 \(libc6,(x86-64|AArch64)"; }
used="$here/lib/used"
rm -rf "$used"
mkdir -p "$used"
for path in "$here"/lib/*.so.*; do
  lib=${path##*/}
  system_has "$lib" || ln -s "../$lib" "$used/$lib"
done
library_path=$used
# A container's NVIDIA driver (the Vulkan driver libGLX_nvidia.so.0 among its libraries) often lives
# under /usr/local/nvidia, with its Vulkan manifest where the loader does not look.
[ -d /usr/local/nvidia/lib64 ] && library_path="$library_path:/usr/local/nvidia/lib64"
export LD_LIBRARY_PATH="$library_path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] &&
  ! ls /usr/share/vulkan/icd.d/*.json /usr/local/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json >/dev/null 2>&1; then
  for manifest in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/local/nvidia/icd.d/nvidia_icd.json; do
    if [ -f "$manifest" ]; then
      export VK_DRIVER_FILES="$manifest" VK_ICD_FILENAMES="$manifest"
      break
    fi
  done
fi

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
[ -n "$gpu" ] || gpu="no NVIDIA GPU"
slug=$(printf '%s' "$gpu" | LC_ALL=C tr 'A-Z' 'a-z' | LC_ALL=C tr -cs 'a-z0-9.' '-' | sed 's/^-//; s/-$//')
dir="$out/$(date -u +%Y-%m-%d-%H%M%S)-$slug"
mkdir -p "$dir" || usage_error "cannot create $dir"
tables="$dir/tables.txt"
results="$dir/results.jsonl"
log="$dir/log.txt"
: >"$results"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
newline='
'
default_ifs=$IFS

show() { tee -a "$tables"; }
tradelab() { node "$here/app/bin/tradelab.js" "$@"; }

# step LABEL COMMAND...: runs COMMAND with its stderr in the log, its stdout in $scratch/stdout.
# (sh has no local variables: step's are named step_*, so as not to change its callers'.)
step() {
  step_label=$1
  shift
  printf '\n$ %s\n' "$step_label" >>"$log"
  step_started=$(date +%s)
  # `timeout` runs programs, not shell functions.
  if [ "$1" = tradelab ]; then
    shift
    set -- node "$here/app/bin/tradelab.js" "$@"
  fi
  if command -v timeout >/dev/null; then
    timeout --kill-after=10 "${TRADELAB_STEP_TIMEOUT:-300}" "$@" >"$scratch/stdout" 2>>"$log"
  else
    "$@" >"$scratch/stdout" 2>>"$log"
  fi
  step_status=$?
  [ "$step_status" -ne 124 ] || printf 'stopped after %s s (TRADELAB_STEP_TIMEOUT)\n' "${TRADELAB_STEP_TIMEOUT:-300}" >>"$log"
  printf '(exit %s, %s s)\n' "$step_status" "$(($(date +%s) - step_started))" >>"$log"
  if [ "$step_status" -ne 0 ]; then
    failed=1
    say "failed (exit $step_status): $step_label; see $log"
    printf '\n%s: FAILED (exit %s)\n' "$step_label" "$step_status" | show
    tail -n 5 "$log" | show
  fi
  return "$step_status"
}

# bench ARGS...: `tradelab ARGS --json`, its lines into results.jsonl, its table into tables.txt.
bench() {
  label="tradelab $*"
  step "$label --json" tradelab "$@" --json || return 0
  printf '\n$ %s\n' "$label" | show
  node "$here/results.mjs" add "$label" "$scratch/stdout" "$results" --table | show
}

# --- The machine.
{
  printf 'tradelab GPU bundle run, %s\n\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  cat "$here/MANIFEST.txt"
  printf '\nuname: %s\n' "$(uname -srm)"
  printf 'node: %s (%s)\n' "$(node --version)" "$(command -v node)"
  printf 'python3: %s\n' "$(command -v python3 >/dev/null && python3 --version 2>&1 || echo none)"
  printf 'backend: %s%s\n' "$backend" "$([ "$quick" = 1 ] && echo ', quick (tiny shapes: not a measurement)')"
  printf 'LD_LIBRARY_PATH=%s\n' "$LD_LIBRARY_PATH"
  [ -z "${VK_DRIVER_FILES:-}" ] || printf 'VK_DRIVER_FILES=%s\n' "$VK_DRIVER_FILES"
  if command -v nvidia-smi >/dev/null; then
    printf '\n$ nvidia-smi\n'
    nvidia-smi 2>&1
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
  else
    printf '\nnvidia-smi: not here\n'
  fi
} | show

# --- tradelab: backends, matrix products, the PPO update, PPO end to end.
cd "$scratch" || exit 1
if step 'tradelab backends' tradelab backends; then
  printf '\n$ tradelab backends\n' | show
  show <"$scratch/stdout"
fi
if step 'tradelab backends --json' tradelab backends --json; then
  node "$here/results.mjs" add 'tradelab backends' "$scratch/stdout" "$results"
  if [ "$backend" = webgpu ]; then
    node "$here/results.mjs" webgpu "$scratch/stdout" >"$scratch/webgpu" || failed=1
    printf '\n' | show
    show <"$scratch/webgpu"
  fi
fi

webgpu_row=always
[ "$backend" = webgpu ] || webgpu_row=never
if [ "$quick" = 1 ]; then
  bench bench gemm --repeat 1 --no-xnnpack --gpu $webgpu_row
  update_shapes='--state 8 --net-dim 32 --actions 2 --batch 64'
  bench bench ppo-update $update_shapes --updates 1 --repeat 1 --no-stock --webgpu $webgpu_row
  ppo_args='--envs 2 --net-dim 16 --assets 2 --target-step 64 --batch-size 32 --repeat-times 1 --updates 1'
  torch_args='--updates 1 --repeat 1'
else
  # With the engine's GEMM on the PPO shapes and 4096×512×512, by GPU timestamps.
  bench bench gemm --gpu $webgpu_row
  # tradelab's target shape (the issue's) and FinRL's (81 -> 512 -> 512, 10 assets, batch 2048).
  update_shapes='--state 64 --net-dim 512 --actions 4 --batch 4096
--state 81 --net-dim 512 --actions 10 --batch 2048'
  # One shape a line; a loop, not a pipe, so that a failure counts (a pipe's loop is a subshell).
  IFS=$newline
  for shape in $update_shapes; do
    IFS=$default_ifs
    # shellcheck disable=SC2086 # a shape is several words
    bench bench ppo-update $shape --no-stock --webgpu $webgpu_row
  done
  IFS=$default_ifs
  ppo_args='--envs 16,64'
  torch_args=''
fi
[ "$backend" = webgpu ] && bench bench ppo --backend gpu $ppo_args
# The whole trial on the GPU (env, rollout with reward scaling and GAE, update), against nEnvs.
if [ "$backend" = webgpu ]; then
  if [ "$quick" = 1 ]; then
    bench bench ppo --backend gpu --envs 2 --net-dim 16 --assets 2 --target-step 64 --batch-size 32 --repeat-times 1 --updates 1 --resident-envs 64
  else
    bench bench ppo --backend gpu --envs 16 --net-dim 512 --assets 10 --resident-envs 1024,16384,131072
  fi
fi
[ "$backend" = webgpu ] && bench bench ppo --backend webgpu $ppo_args
bench bench ppo --backend wasm $ppo_args
# The trading env stepped on the GPU against nEnvs (up to 1M, 4M on a full run), beside the CPU's.
if [ "$quick" = 1 ]; then
  bench bench env --envs 2 --steps 2000 --repeat 1 --gpu $webgpu_row --gpu-envs 64
else
  bench bench env --envs 1,256 --gpu $webgpu_row --gpu-envs 1024,65536,1048576,4194304
fi

# --- PyTorch on the same shapes: on CUDA when it sees a GPU, and on one CPU thread.
torch=0
devices=cpu
if python3 -c 'import torch' >/dev/null 2>&1; then
  torch=1
  python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1 &&
    devices='cuda cpu'
else
  printf '\nPyTorch: not here (python3 -c "import torch" failed); no PyTorch rows.\n' | show
fi

# torch_rows SCRIPT SHAPES ARGS: the app's SCRIPT (bench/…py) on each shape (one a line of SHAPES)
# and each device, with ARGS; its JSON lines go to the results, a line each to the tables.
torch_rows() {
  [ "$torch" = 1 ] || return 0
  script=$1
  extra=$3
  IFS=$newline
  for shape in $2; do
    IFS=$default_ifs
    for device in $devices; do
      label="python3 $script $shape --device $device${extra:+ $extra}"
      # shellcheck disable=SC2086 # a shape and the options are several words
      set -- python3 "$here/app/$script" $shape --device "$device" $extra
      step "$label --json" "$@" --json || continue
      printf '\n$ %s\n' "$label" | show
      node "$here/results.mjs" add "$label" "$scratch/stdout" "$results" --text | show
    done
  done
  IFS=$default_ifs
}
torch_rows bench/pytorch-ppo-update.py "$update_shapes" "$torch_args"

# --- TCN training steps (bench tcn), and PyTorch's on the same shapes.
seed_tcn=''
if [ "$quick" = 1 ]; then
  tcn_shapes='--layers 2 --hidden 8 --seq 32 --batch 4 --features 8'
  tcn_args='--steps 1 --repeat 1'
else
  # The benchmark's default shape, and the TCN benchmarks' 12 x 512 network (PyTorch original).
  tcn_shapes='--layers 6 --hidden 64 --seq 512 --batch 32 --features 8
--layers 12 --hidden 512 --seq 512 --batch 8 --features 4'
  tcn_args='--steps 2 --repeat 3'
  # Seed 003's configuration: 12 x 512, kernel 3, 200 chunks of 512 bars (its 10 it/s on an H100,
  # checkpointed, bf16). On the card only: a CPU step of it takes minutes.
  seed_tcn='--layers 12 --hidden 512 --seq 512 --batch 200 --features 4'
fi
IFS=$newline
for shape in $tcn_shapes; do
  IFS=$default_ifs
  # shellcheck disable=SC2086 # a shape and the options are several words
  [ "$backend" = webgpu ] && bench bench tcn $shape $tcn_args --backend gpu
  # (not tfjs's webgpu: a TCN step's synchronous read needs a browser there)
  # shellcheck disable=SC2086
  bench bench tcn $shape $tcn_args --backend wasm
done
IFS=$default_ifs
torch_rows bench/pytorch-tcn.py "$tcn_shapes" "$tcn_args"
# Checkpointed, and seed 003's configuration: on CUDA only (a CPU step of 12 x 512 takes minutes).
if [ "$devices" != cpu ]; then
  devices=cuda
  torch_rows bench/pytorch-tcn.py "$tcn_shapes" "$tcn_args --checkpoint"
  if [ -n "$seed_tcn" ]; then
    torch_rows bench/pytorch-tcn.py "$seed_tcn" '--steps 2 --repeat 3'
    torch_rows bench/pytorch-tcn.py "$seed_tcn" '--steps 2 --repeat 3 --checkpoint'
  fi
fi
if [ -n "$seed_tcn" ] && [ "$backend" = webgpu ]; then
  # shellcheck disable=SC2086
  bench bench tcn $seed_tcn --steps 2 --repeat 3 --backend gpu
fi

# --- FinRL_Crypto's CPCV study (bench campaign): its trials resident on the GPU against this
# machine's CPU path on all its cores, in one run (last: the longest step).
if [ "$backend" = webgpu ]; then
  if [ "$quick" = 1 ]; then
    bench bench campaign --runs gpu --steps 1000 --gpu-trials 2
  else
    cores=$(nproc 2>/dev/null || echo 4)
    TRADELAB_STEP_TIMEOUT=${TRADELAB_CAMPAIGN_TIMEOUT:-480} \
      bench bench campaign --runs auto,gpu --trials "$cores" --gpu-trials 32
  fi
fi

printf '\n' | show
node "$here/results.mjs" ratios "$results" | show
printf '\ntradelab-gpu: results in %s\n' "$dir" | show
exit "$failed"
