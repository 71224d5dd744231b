import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A fresh directory inside this test run's directory (`TRADELAB_TEST_RUN_DIR`, set by
 * vitest.config.ts), so whatever a test leaves behind, even when the run is killed, goes with the
 * run: the global teardown or the watchdog removes the run directory.
 */
export function tempDir(prefix = 'tradelab-test-'): string {
  const base = process.env.TRADELAB_TEST_RUN_DIR ?? tmpdir();
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, prefix));
}
