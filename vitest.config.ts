import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/*
 * This run's temporary directory: test/support/postgres-global-setup.ts makes it and removes it
 * (or its watchdog does, when the run is killed), and the tests' tempDir() makes theirs inside it.
 * An environment variable, so the test workers started after this inherit it.
 */
process.env.TRADELAB_TEST_RUN_DIR ??= join(tmpdir(), `tradelab-vitest-${process.pid}`);

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The run directory and a PostgreSQL server for the PostgreSQL storage suite (skipped without
    // one, except in CI).
    globalSetup: ['test/support/postgres-global-setup.ts'],
    // End-to-end tests spawn the built CLI; two cores, so keep parallelism modest.
    maxWorkers: 2,
    testTimeout: 30_000,
  },
});
