import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { openStorage, type StudyStorage, type TrialRecord } from '../../src/storage/index.js';
import { Study, type SamplerSpec } from '../../src/tune/index.js';
import { BIN, REPO_ROOT, runCli, runCliInProcess, tempDir, type CliResult } from './run-cli.js';

/*
 * Project directories for the `tradelab study …` tests: the CLI as real processes (or in this
 * process for message variants) on a real SQLite file, trial workers as real child processes.
 */

/** The test objectives (ES modules that import the built engine). */
export const OBJECTIVES = join(REPO_ROOT, 'test', 'fixtures', 'objectives');
/** x² after a pause of TRADELAB_TEST_TRIAL_MS. */
export const SLOW_QUADRATIC = join(OBJECTIVES, 'slow-quadratic.mjs');

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh project directory (no config: the storage is `sqlite:./tradelab.db` in it). */
export function project(): string {
  const dir = tempDir('tradelab-study-cli-');
  made.push(dir);
  return dir;
}

/** Environment of every run: short trials, no GPU detection. */
export function environment(trialMs: number): Record<string, string> {
  return { TRADELAB_TEST_TRIAL_MS: String(trialMs), TRADELAB_DETECT: 'false' };
}

/** `tradelab ARGS` in project `dir`, as a real process. */
export const cli = (dir: string, ...args: string[]): Promise<CliResult> =>
  runCli(args, { cwd: dir, env: environment(20) });

/** {@link cli} in this process (runCliInProcess): for messages that need no process of their own. */
export const cliInProcess = (dir: string, ...args: string[]): Promise<CliResult> =>
  runCliInProcess(args, { cwd: dir, env: environment(20) });

/** A CLI process the test signals while it runs. */
export interface Running {
  pid: number;
  done: Promise<CliResult>;
}

/** Starts the CLI (in its own process group when `group`, as a terminal's foreground job is). */
export function start(
  dir: string,
  args: readonly string[],
  trialMs: number,
  group = false,
): Running {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: dir,
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: dir, ...environment(trialMs) },
    detached: group,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
  if (child.pid === undefined) throw new Error('the CLI did not start');
  return { pid: child.pid, done };
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** The project's storage, opened by the test itself to look at (or wait for) trial states. */
export function storageOf(dir: string): Promise<StudyStorage> {
  return openStorage(`sqlite:${join(dir, 'tradelab.db')}`);
}

/**
 * Creates study `name` in the project's storage through the library, as `study create` stores it
 * (Study.create writes the sampler and pruner specs, whoever calls it): for tests whose subject is
 * what comes after. `study create` itself is tested as a process in study-cli.test.ts.
 */
export async function createStudy(
  dir: string,
  name: string,
  options: { sampler?: SamplerSpec } = {},
): Promise<void> {
  const storage = await storageOf(dir);
  try {
    await Study.create(storage, { name, direction: 'minimize', ...options });
  } finally {
    await storage.close();
  }
}

/** The trials of `study` in the project's storage. */
export async function trialsOf(dir: string, study: string): Promise<TrialRecord[]> {
  const storage = await storageOf(dir);
  try {
    return await storage.getTrials((await storage.getStudy(study)).id);
  } finally {
    await storage.close();
  }
}

/** Waits until `study` has `n` running trials; returns them. */
export async function untilRunning(dir: string, study: string, n: number): Promise<TrialRecord[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const running = (await trialsOf(dir, study)).filter((t) => t.state === 'running');
    if (running.length >= n) return running;
    if (Date.now() > deadline) throw new Error(`${study}: ${n} trials never ran at once`);
    await sleep(50);
  }
}
