import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/*
 * This run's temporary directory: test/support/postgres-global-setup.ts makes it and removes it
 * (or its watchdog does, when the run is killed), and the tests' tempDir() makes theirs inside it.
 * An environment variable, so the test workers started after this inherit it.
 */
process.env.TRADELAB_TEST_RUN_DIR ??= join(tmpdir(), `tradelab-vitest-${process.pid}`);

/*
 * The test files that take longest (15-45 s of two busy cores each), longest first. Two workers
 * take files from one queue; a long file taken last runs alone while the other worker has nothing
 * left, which cost the suite half a minute. Vitest orders by the last run's durations when it has
 * them (node_modules/.vite), which a fresh clone, as in CI, has not, and then by file size: that
 * put src/agents/ppo-learning.test.ts, 1.6 kB and the longest of all, near the end.
 */
const LONGEST_FIRST = [
  // The GPU engine's tests on lavapipe: LLVM compiles each kernel at its first dispatch (~10 s a
  // GEMM variant in a fresh CI home, cached in ~/.cache/mesa_shader_cache_db after).
  'src/gpu/kernels/gemm.test.ts',
  'src/gpu/kernels/gemm-f16.test.ts',
  'src/bench/gpu-gemm-bench.test.ts',
  'src/agents/ppo-gpu-update.test.ts',
  'src/agents/gpu-trading-env.test.ts',
  'src/agents/gae-gpu.test.ts',
  'src/bench/ppo-bench.test.ts',
  'src/agents/gpu-resident-ppo.test.ts',
  'src/agents/gpu-evaluation.test.ts',
  'src/trading/drl-objective-gpu.test.ts',
  'test/campaign-gpu-cli.test.ts',
  'src/gpu/kernels/conv-gemm.test.ts',
  'src/gpu/kernels/weight-norm.test.ts',
  'src/gpu/kernels/tcn-parts.test.ts',
  'src/models/tcn-gpu-step.test.ts',
  'test/pretrain-gpu-cli.test.ts',
  'test/forecast-gpu-cli.test.ts',
  'test/bench-tcn-gpu.test.ts',
  'test/gpu-plan.test.ts',
  'test/train-gpu-cli.test.ts',
  'test/container-build.test.ts',
  'src/agents/ppo-learning.test.ts',
  'test/service-load.test.ts',
  'test/trading-study-cli.test.ts',
  'test/study-cli.test.ts',
  'test/data-store-concurrency.test.ts',
  'test/gpu-bundle.test.ts',
  'test/package-api.test.ts',
  'src/tune/worker-pool.test.ts',
  'test/train-cli.test.ts',
  'test/train-stop-cli.test.ts',
  'test/study-run-stop-cli.test.ts',
  'test/data-store-repair.test.ts',
  'test/data-cli.test.ts',
  'test/train-resume-cli.test.ts',
  'test/dashboard-browser.test.ts',
  'test/service-api.test.ts',
].map((file) => {
  // A renamed file must not silently drop out of the list.
  if (!existsSync(file))
    throw new Error(`vitest.config.ts: LONGEST_FIRST names ${file}, which is gone`);
  return resolve(file);
});

/** Vitest's order, with {@link LONGEST_FIRST} taken out and put in front. */
class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification): number => LONGEST_FIRST.indexOf(file.moduleId);
    const listed = files.filter((f) => rank(f) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...listed, ...(await super.sort(files.filter((f) => rank(f) < 0)))];
  }
}

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
    sequence: { sequencer: LongestFirstSequencer },
  },
});
