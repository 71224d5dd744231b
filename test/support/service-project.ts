import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { openProject } from '../../src/app/index.js';
import { COMMANDS } from '../../src/cli/command-table.js';
import { jobCommandsOf } from '../../src/cli/job-commands.js';
import { startService, type RunningService, type ServiceOptions } from '../../src/server/index.js';
import { BIN, runCliInProcess, tempDir } from './run-cli.js';

/*
 * Projects for the service's tests: synthetic data, a tiny campaign file, and `startService` on a
 * real port of this machine (port 0: any free one), its jobs real tradelab processes.
 */

/** The environment of the service and its jobs: no GPU detection. */
export const SERVICE_ENV = { TRADELAB_DETECT: 'false' };

/** A campaign small enough to end in seconds: two studies of tiny trials. */
export function tinyCampaign(name: string, trials: [number, number]): string {
  return `name: ${name}
data: SYN0,SYN1:1h
cv: walk-forward:3
embargo: 12
holdout: 20%
sampler: { type: random, seed: 5 }
pruner: { type: median }
studies:
  - preset: ensemble_balanced
    trials: ${trials[0]}
    weight: 2
    params: &tiny
      netDim: [16, 32]
      nEnvs: 4
      targetStep: 256
      batchSize: 128
      breakStep: 2048
      repeatTimes: 1
      episodeLength: 64
  - preset: ensemble_aggressive
    trials: ${trials[1]}
    params: *tiny
`;
}

/** A fresh project with SYN0:1h and SYN1:1h (1,500 bars) and campaign file `tiny.yaml`. */
export async function serviceProject(trials: [number, number] = [6, 4]): Promise<string> {
  const dir = tempDir('tradelab-service-');
  const synth = await runCliInProcess(['data', 'synth', '--symbols', '2', '--bars', '1500'], {
    cwd: dir,
    env: SERVICE_ENV,
  });
  expect(synth.code, synth.stderr).toBe(0);
  writeFileSync(join(dir, 'tiny.yaml'), tinyCampaign('tiny', trials));
  return dir;
}

/**
 * Starts the service of project `dir` in this process (its jobs are real processes), with `env`
 * added to the environment of the project and of its jobs (e.g. TRADELAB_STORAGE).
 */
export function startTestService(
  dir: string,
  options: Partial<Omit<ServiceOptions, 'project'>> = {},
  env: Record<string, string> = {},
): Promise<RunningService> {
  const environment = { ...process.env, ...SERVICE_ENV, ...env };
  return startService({
    project: openProject({ cwd: dir, env: environment }),
    host: '127.0.0.1',
    port: 0,
    commands: jobCommandsOf(COMMANDS),
    jobCommand: [process.execPath, BIN],
    jobEnv: environment,
    ...options,
  });
}

/** A JSON request to the service: status, body and headers. */
export async function call(
  base: string,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a page, a stream): the text.
  }
  return { status: response.status, body, headers: response.headers };
}

/** POSTs JSON. */
export function post(base: string, path: string, body: unknown = {}): ReturnType<typeof call> {
  return call(base, path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** Polls job `id` until it is in one of `states` (or fails the test after `ms`). */
export async function waitForJob(
  base: string,
  id: number,
  states: string[],
  ms = 120_000,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const { body } = await call(base, `/api/jobs/${id}`);
    const job = body as Record<string, unknown>;
    if (states.includes(String(job.state))) return job;
    if (Date.now() > deadline) {
      throw new Error(
        `job ${id} is ${String(job.state)}, not ${states.join('|')}: ${JSON.stringify(job)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
