#!/usr/bin/env bash
# Cleans up after a test run however it ends: waits for process PID (the Vitest main process) to
# exit, then stops the throwaway PostgreSQL server in RUN_DIR/pg (if one was started) and removes
# RUN_DIR, the run's temporary directory. Vitest's teardown does the same on a normal exit; this
# covers a run killed part-way (kill -9, a closed terminal), which runs no teardown.
#
#   scripts/test-run-watchdog.sh PID RUN_DIR
set -u
pid=${1:?usage: $0 PID RUN_DIR}
run_dir=${2:?usage: $0 PID RUN_DIR}
case "$run_dir" in
  */tradelab-vitest-*) ;;
  *) echo "test-run-watchdog: refusing to remove $run_dir (not a test run directory)" >&2; exit 2 ;;
esac
while kill -0 "$pid" 2>/dev/null && ! grep -qs '^State:[[:space:]]*Z' "/proc/$pid/status"; do
  sleep 1
done
if [ -d "$run_dir/pg" ]; then
  TRADELAB_PG_DIR="$run_dir/pg" bash "$(dirname "$0")/postgres-test-server.sh" stop 2>/dev/null
fi
rm -rf "$run_dir"
