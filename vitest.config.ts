import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // A PostgreSQL server for the PostgreSQL storage suite (skipped without one, except in CI).
    globalSetup: ['test/support/postgres-global-setup.ts'],
    // End-to-end tests spawn the built CLI; two cores, so keep parallelism modest.
    maxWorkers: 2,
    testTimeout: 30_000,
  },
});
