import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

/*
 * Vitest global setup: one temporary directory for the whole run ($TRADELAB_TEST_RUN_DIR, named
 * by vitest.config.ts; the tests' tempDir() and the PostgreSQL server's directory live there), cleaned up at teardown — or by a
 * watchdog process when the run is killed part-way and no teardown runs — and a PostgreSQL server for src/storage/postgres-storage.test.ts. It uses
 * TRADELAB_TEST_POSTGRES_URL when set; else it starts a throwaway server with
 * scripts/postgres-test-server.sh, but only when the server binaries are installed already (npm
 * test never runs apt-get), and stops it at teardown. Without a server the PostgreSQL suite is
 * skipped, except under CI=true, where that fails the run.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    /** A superuser URL of the test PostgreSQL server; '' when there is none. */
    postgresUrl: string;
  }
}

const SCRIPTS = resolve(dirname(fileURLToPath(import.meta.url)), '../../scripts');
const SCRIPT = join(SCRIPTS, 'postgres-test-server.sh');
const WATCHDOG = join(SCRIPTS, 'test-run-watchdog.sh');
/** Prefix of a run's temporary directory; the watchdog refuses to remove anything else. */
const RUN_DIR_PREFIX = 'tradelab-vitest-';
/** The script's exit status for "no server binaries installed". */
const NO_BINARIES = 3;
const SCRIPT_TIMEOUT_MS = 120_000;

/** The directory of the server this run started, to stop at teardown; undefined if none. */
let startedDir: string | undefined;
/** This run's temporary directory, and the watchdog that removes it if the run is killed. */
let runDir: string | undefined;
let watchdog: ReturnType<typeof spawn> | undefined;

/** Whether process `pid` exists. */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Makes this run's temporary directory (removing those of earlier runs whose process is gone) and
 * starts its watchdog.
 */
function startRunDir(): string {
  const base = tmpdir();
  for (const name of readdirSync(base)) {
    const pid = Number(name.slice(RUN_DIR_PREFIX.length));
    if (name.startsWith(RUN_DIR_PREFIX) && Number.isInteger(pid) && !processExists(pid))
      rmSync(join(base, name), { recursive: true, force: true });
  }
  const dir = process.env.TRADELAB_TEST_RUN_DIR ?? join(base, `${RUN_DIR_PREFIX}${process.pid}`);
  mkdirSync(dir, { recursive: true });
  watchdog = spawn('bash', [WATCHDOG, String(process.pid), dir], {
    detached: true,
    stdio: 'ignore',
  });
  watchdog.unref();
  return dir;
}

interface ScriptResult {
  code: number;
  stdout: string;
  stderr: string;
}

function runScript(command: 'start' | 'stop', dir: string): Promise<ScriptResult> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      [SCRIPT, command],
      {
        env: { ...process.env, TRADELAB_PG_DIR: dir, TRADELAB_PG_NO_INSTALL: '1' },
        timeout: SCRIPT_TIMEOUT_MS,
      },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr: error !== null && stderr === '' ? error.message : stderr });
      },
    );
  });
}

/** Provides `postgresUrl` to the tests, starting a server when there is none yet. */
export async function setup(project: TestProject): Promise<void> {
  runDir = startRunDir();
  const given = process.env.TRADELAB_TEST_POSTGRES_URL;
  if (given !== undefined && given !== '') {
    project.provide('postgresUrl', given);
    return;
  }
  const dir = join(runDir, 'pg');
  const started = await runScript('start', dir);
  const url = /^TRADELAB_TEST_POSTGRES_URL=(.+)$/m.exec(started.stdout)?.[1];
  if (started.code === 0 && url !== undefined) {
    startedDir = dir;
    project.provide('postgresUrl', url);
    return;
  }
  const why =
    started.code === NO_BINARIES
      ? 'no server (set TRADELAB_TEST_POSTGRES_URL or install postgresql)'
      : `the test server did not start (set TRADELAB_TEST_POSTGRES_URL, or fix this):\n${started.stderr.trim()}`;
  if (started.code !== NO_BINARIES) await runScript('stop', dir);
  if (process.env.CI === 'true')
    throw new Error(`PostgreSQL suite cannot run in CI: ${why}; CI=true makes this a failure`);
  console.log(`PostgreSQL suite skipped: ${why}; CI=true makes this a failure`);
  project.provide('postgresUrl', '');
}

/** Stops the server {@link setup} started and removes the run's temporary directory. */
export async function teardown(): Promise<void> {
  watchdog?.kill();
  watchdog = undefined;
  if (startedDir !== undefined) {
    const stopped = await runScript('stop', startedDir);
    startedDir = undefined;
    if (stopped.code !== 0)
      throw new Error(`could not stop the test PostgreSQL server: ${stopped.stderr}`);
  }
  if (runDir !== undefined) rmSync(runDir, { recursive: true, force: true });
  runDir = undefined;
}
