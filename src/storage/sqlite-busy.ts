/*
 * Writers on one SQLite file from many processes: WAL lets readers go on, but two writers queue.
 * Shared by the study storage and the job queue, which write the same file.
 */

/** Waits this long for another process's write lock before failing. */
const BUSY_TIMEOUT_MS = 120_000;
/**
 * SQLite's own busy handler sleeps 1, 2, 5, 10… ms between tries, so two processes writing small
 * transactions spend most of their time asleep. It is off (timeout 0); a busy database is instead
 * retried by {@link retryBusy} after sleeps of 20 µs growing to 2 ms, with jitter.
 */
const FIRST_RETRY_MS = 0.02;
const LONGEST_RETRY_MS = 2;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` (fractions allowed), without spinning. */
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Whether `error` is SQLite saying another connection holds the lock. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** Runs `fn`, again and again while the database is busy (another process writes), for 2 min. */
export function retryBusy<T>(fn: () => T): T {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  let wait = FIRST_RETRY_MS;
  for (;;) {
    try {
      return fn();
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      sleepSync(wait * (0.5 + Math.random()));
      wait = Math.min(LONGEST_RETRY_MS, wait * 2);
    }
  }
}
