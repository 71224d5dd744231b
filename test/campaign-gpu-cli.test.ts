import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, runCliSignalled, tempDir, type CliResult } from './support/run-cli.js';
import { gpuTestAdapter } from './support/webgpu.js';

/*
 * `tradelab campaign run` on a GPU profile with tradelab's engine (lavapipe here and in CI): the
 * planner sizes how many trials are resident on the card at once, one worker process runs them
 * in its slots, and every split's env, rollout and update stay on the device. Killed with SIGKILL
 * when its first trial ends (the breakStep range makes trials of unequal length) and run again,
 * the campaign ends at its targets, and every trial reports the value an uninterrupted run of the
 * same campaign reports for it (by its seed number: a retry seeds as its original), as does a
 * run of one trial at a time. Tiny budgets: lavapipe is the CPU.
 */

const found = await gpuTestAdapter('test/campaign-gpu-cli.test.ts');

const dir = tempDir('tradelab-campaign-gpu-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const CAMPAIGN = `name: dev
data: SYN0,SYN1:1h
cv: walk-forward:2
embargo: 6
holdout: 20%
sampler: { type: random, seed: 9 }
pruner: { type: nop }
studies:
  - preset: ensemble_balanced
    trials: 5
    params: &tiny
      netDim: [16, 32]
      nEnvs: 8
      targetStep: 128
      batchSize: 64
      breakStep: [256, 4096]
      repeatTimes: 1
      episodeLength: 32
  - preset: ensemble_aggressive
    trials: 4
    params: *tiny
`;
const TARGETS: Record<string, number> = { ensemble_balanced: 5, ensemble_aggressive: 4 };
const RUN = ['campaign', 'run', 'dev.yaml', '--profile', 'h100', '--backend', 'gpu', '--json'];
const env = { TRADELAB_DETECT: 'false' };

interface TrialRow {
  number: number;
  state: string;
  value: number | null;
  retryOf: number | null;
  intermediate: Record<string, number>;
  userAttrs: Record<string, unknown>;
}

/** A project directory with the campaign's data and file. */
async function project(name: string): Promise<string> {
  const cwd = join(dir, name);
  mkdirSync(cwd);
  const synth = await runCli(['data', 'synth', '--symbols', '2', '--bars', '900'], {
    cwd,
    env,
  });
  expect(synth.code, synth.stderr).toBe(0);
  writeFileSync(join(cwd, 'dev.yaml'), CAMPAIGN);
  return cwd;
}

/** A study's trials, each complete one keyed by its seed number (its original's, for a retry). */
async function completeBySeed(cwd: string, study: string): Promise<Map<number, TrialRow>> {
  const listed = await runCli(['study', 'trials', `dev.${study}`, '--json'], { cwd, env });
  expect(listed.code, listed.stderr).toBe(0);
  const rows = jsonLines(listed.stdout) as unknown as TrialRow[];
  const byNumber = new Map(rows.map((r) => [r.number, r]));
  const seedOf = (row: TrialRow): number => {
    let at = row;
    while (at.retryOf !== null) at = byNumber.get(at.retryOf) ?? { ...at, retryOf: null };
    return at.number;
  };
  return new Map(rows.filter((r) => r.state === 'complete').map((r) => [seedOf(r), r]));
}

const trialsPrinted =
  (n: number) =>
  (stdout: string): boolean =>
    (stdout.match(/"type":"trial"/g) ?? []).length >= n;

describe.skipIf(!found)('tradelab campaign run on the GPU engine', { timeout: 600_000 }, () => {
  let straight: string;
  let killed: string;
  let alone: string;
  let run: CliResult;
  beforeAll(async () => {
    straight = await project('straight');
    killed = await project('killed');
    alone = await project('alone');
    run = await runCli(RUN, { cwd: straight, env });
  }, 600_000);

  it('runs its trials resident on the card, several at once in one worker, sized by the planner', async () => {
    expect(run.code, run.stderr).toBe(0);
    const summary = jsonLines(run.stdout).find((r) => r.type === 'summary') as {
      workers: number;
      trialsPerWorker: number;
    };
    expect(summary.workers).toBe(1);
    // The H100's VRAM holds far more of these trials than the 9 to run: capped at the trials left.
    expect(summary.trialsPerWorker).toBe(9);
    for (const study of Object.keys(TARGETS)) {
      const trials = await completeBySeed(straight, study);
      expect(trials.size).toBe(TARGETS[study]);
      for (const trial of trials.values()) {
        expect(trial.userAttrs.envDevice).toBe('gpu');
        expect(trial.userAttrs.updateDevice).toBe('gpu');
      }
    }
  });

  it('gives each trial the same value alone (one trial a worker) as among 9 at once', async () => {
    const one = await runCli([...RUN, '--workers', '1'], { cwd: alone, env });
    expect(one.code, one.stderr).toBe(0);
    const summary = jsonLines(one.stdout).find((r) => r.type === 'summary') as {
      trialsPerWorker: number;
    };
    expect(summary.trialsPerWorker).toBe(1);
    for (const study of Object.keys(TARGETS)) {
      const single = await completeBySeed(alone, study);
      const batched = await completeBySeed(straight, study);
      expect([...single.keys()].sort()).toEqual([...batched.keys()].sort());
      for (const [seed, trial] of single)
        expect([trial.value, trial.intermediate], `${study} seed ${seed}`).toEqual([
          batched.get(seed)?.value,
          batched.get(seed)?.intermediate,
        ]);
    }
  });

  it('killed with SIGKILL and run again, ends at its targets with the values of an uninterrupted run', async () => {
    const first = await runCliSignalled(RUN, {
      cwd: killed,
      env,
      signal: 'SIGKILL',
      when: trialsPrinted(1),
    });
    expect(first.signal).toBe('SIGKILL');
    // The orphaned worker sees its parent gone and fails its running trials as interrupted.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const rest = await runCli(RUN, { cwd: killed, env });
    expect(rest.code, rest.stderr).toBe(0);

    let retried = 0;
    for (const study of Object.keys(TARGETS)) {
      const resumed = await completeBySeed(killed, study);
      const reference = await completeBySeed(straight, study);
      expect(resumed.size, study).toBe(TARGETS[study]);
      let compared = 0;
      for (const [seed, trial] of resumed) {
        if (trial.retryOf !== null) retried++;
        const same = reference.get(seed);
        if (same === undefined) continue; // a number the uninterrupted run never reached
        compared++;
        expect([trial.value, trial.intermediate], `${study} seed ${seed}`).toEqual([
          same.value,
          same.intermediate,
        ]);
      }
      expect(compared).toBeGreaterThan(0);
    }
    // The kill landed while trials ran: some were retried, and matched their originals' values.
    expect(retried).toBeGreaterThan(0);
  });
});
