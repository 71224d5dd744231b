import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp-dir.js';

export { tempDir };

/** The repository root (tests run the built CLI from here). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The installed entry point, as `npx tradelab` runs it. */
export const BIN = join(REPO_ROOT, 'bin', 'tradelab.js');
/** Recorded tool outputs. */
export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'detect');

/** What a CLI run printed and returned. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options for {@link runCli}. */
export interface RunOptions {
  cwd?: string;
  /** Extra environment; PATH defaults to a directory with no GPU tools. */
  env?: Record<string, string>;
  /** A directory of fake GPU tools put first on PATH. */
  tools?: string;
  /** Run as this user (only root may): permission tests, which root itself would pass by fiat. */
  user?: { uid: number; gid: number };
}

/** An empty DRM sysfs tree, so the machine's own /sys never leaks into a test. */
const EMPTY_DRM = (() => {
  const dir = join(tempDir('tradelab-drm-'), 'drm');
  mkdirSync(dir);
  return dir;
})();

/** The clean environment of a run: no GPU tools on PATH unless `tools`, no machine sysfs. */
function cliEnvironment(options: RunOptions): Record<string, string> {
  const systemPath = '/usr/local/bin:/usr/bin:/bin';
  return {
    PATH: options.tools === undefined ? systemPath : `${options.tools}:${systemPath}`,
    HOME: process.env.HOME ?? '/tmp',
    TRADELAB_SYSFS_DRM: EMPTY_DRM,
    ...options.env,
  };
}

/** Runs `node bin/tradelab.js ARGS` as a real process with a clean, controlled environment. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const env = cliEnvironment(options);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? tempDir(),
      env,
      ...(options.user === undefined ? {} : { uid: options.user.uid, gid: options.user.gid }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** A directory holding a `tradelab` that runs the built CLI, as `npm install -g .` would install. */
const TRADELAB_ON_PATH = (() => {
  const dir = tempDir('tradelab-bin-');
  writeFileSync(join(dir, 'tradelab'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(dir, 'tradelab'), 0o755);
  return dir;
})();

/**
 * Runs a command line exactly as tradelab printed it (a suggested next step), in `sh` with
 * `tradelab` on PATH and {@link runCli}'s clean environment.
 */
export function runPrintedCommand(line: string, options: RunOptions = {}): Promise<CliResult> {
  const env = cliEnvironment(options);
  env.PATH = `${TRADELAB_ON_PATH}:${env.PATH ?? ''}`;
  return new Promise((resolvePromise, reject) => {
    const child = spawn('/bin/sh', ['-c', line], { cwd: options.cwd ?? tempDir(), env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/**
 * Runs a command line in this process, through the function the installed entry point calls
 * (src/cli/main.ts's runCli), with {@link runCli}'s environment and working directory: the same
 * output and exit code, without a Node.js start and a module graph loaded for each run (about
 * half a second of CPU). For the many variants of a message (usage errors, bad files, help);
 * signals, exit on a real stream, concurrency and anything that starts workers need a real
 * process, and each command keeps at least one test that runs it as one. Not for a command that
 * starts a compute backend (train, backtest, a trading study's holdout): TensorFlow.js and the
 * native kernels' settings are process-wide, and this process runs other test files next.
 */
export async function runCliInProcess(
  args: readonly string[],
  options: Omit<RunOptions, 'user'> = {},
): Promise<CliResult> {
  const { runCli: run } = await import('../../src/cli/main.js');
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    cwd: options.cwd ?? tempDir(),
    env: cliEnvironment(options),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/**
 * Runs the CLI (minimal environment) and sends it `signal` once its stdout so far satisfies
 * `when`: a stop at a chosen point of a real run, as a user's Ctrl-C or a kill would be.
 */
export function runCliSignalled(
  args: readonly string[],
  options: {
    cwd: string;
    signal: NodeJS.Signals;
    when: (stdout: string) => boolean;
    /** Added to the minimal environment. */
    env?: Record<string, string>;
  },
): Promise<CliResult & { signal: NodeJS.Signals | null }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd,
      env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!sent && options.when(stdout)) {
        sent = true;
        child.kill(options.signal);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      resolvePromise({ code, signal, stdout, stderr });
    });
  });
}

/** Writes fake GPU tools (bash scripts) into a fresh directory; returns the directory for `tools`. */
export function fakeTools(scripts: Record<string, string>): string {
  const dir = tempDir('tradelab-tools-');
  for (const [name, body] of Object.entries(scripts)) {
    const path = join(dir, name);
    writeFileSync(path, `#!/bin/bash\n${body}\n`);
    chmodSync(path, 0o755);
  }
  return dir;
}

/** A fake tool body that prints a fixture file and exits with `code`. */
export function printsFixture(fixture: string, code = 0): string {
  return `cat '${join(FIXTURES, fixture)}'\nexit ${code}`;
}

/** Parses JSON-lines output. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
