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
    // A worker runs its test files one after another in one process, without a fresh module
    // graph for each: a fresh one (a new process per file, TensorFlow.js and zod loaded again)
    // was half the CPU time of the unit tests. So a test file must leave the process as it found
    // it: tests that set environment variables restore them, and every file that uses TensorFlow.js
    // picks its backend in its own beforeAll. The suite passes in shuffled file orders
    // (--sequence.shuffle.files).
    isolate: false,
    // Limits that only stop a hang: a beforeAll that runs CLI processes (a study of 12 trials)
    // takes seconds on two idle cores and far longer on a crowded machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
