import { availableParallelism } from 'node:os';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, runCliInProcess, tempDir } from './support/run-cli.js';

/*
 * How many workers a GPU profile gets when its trials and forecasting models train on the CPU
 * (the wasm backend: backend auto's choice wherever the native GEMM is built). The card's figures
 * (drl.maxWorkers, the memory of a forecasting model) are not charged there: the cores, the RAM
 * and a wasm heap's 4 GiB are. Every surface that sizes workers says the same: `profiles plan`,
 * `study run --workers auto`, `campaign project --to`, `train forecast`.
 */

let dir: string;
const wasm = { TRADELAB_DETECT: 'false', TRADELAB_BACKEND: 'wasm' };

/** Tiny trials of a trading study: a few hundred MiB a worker, so the cores decide. */
const TINY_PARAMS =
  '{ netDim: 16, nEnvs: 4, targetStep: 256, batchSize: 128, breakStep: 512, repeatTimes: 1, episodeLength: 64 }';

/** A trading study file of such trials. */
const STUDY = `preset: ensemble_balanced
data: SYN0,SYN1:1h
cv: walk-forward:2
holdout: 20%
params: ${TINY_PARAMS}
`;

/** One tiny trading study of one trial: a campaign to project. */
const CAMPAIGN = `name: one
data: SYN0,SYN1:1h
cv: walk-forward:2
holdout: 20%
workers: 1
sampler: { type: random, seed: 5 }
pruner: { type: nop }
studies:
  - preset: ensemble_balanced
    trials: 1
    params: ${TINY_PARAMS}
`;

interface Limit {
  by: string;
  workers: number;
  detail: string;
}
interface PlanRecord {
  workers: number;
  limitedBy: string;
  limits: Limit[];
  backend: string;
}

/** `profiles plan --json` on `profile`, as the plan record. */
async function plan(profile: string, ...args: string[]): Promise<PlanRecord> {
  const result = await runCliInProcess(['profiles', 'plan', '--json', ...args], {
    cwd: dir,
    env: { ...wasm, GPU_PROFILE: profile },
  });
  expect(result.code, result.stderr).toBe(0);
  return jsonLines(result.stdout)[0] as unknown as PlanRecord;
}

beforeAll(async () => {
  dir = tempDir('tradelab-train-workers-');
  const made = await runCliInProcess(['data', 'synth', '--symbols', '2', '--bars', '1500'], {
    cwd: dir,
  });
  expect(made.code, made.stderr).toBe(0);
}, 60_000);

describe('workers of a GPU profile whose trials train on the CPU', () => {
  it("drl: profiles plan, study run --workers auto and campaign project leave out rtx_3070's cap of 1", async () => {
    const cores = availableParallelism();
    const small = ['--net-dim', '16', '--batch-size', '128', '--envs', '4', '--target-step', '256'];
    const here = await plan('rtx_3070', ...small);
    expect(here.backend).toBe('wasm');
    expect(here.limits.map((l) => l.by)).not.toContain('maxWorkers');
    expect(here.limits.find((l) => l.by === 'cpuCores')?.detail).toContain(
      "not on the card: profile rtx_3070's drl.maxWorkers 1 is for its card",
    );
    expect(here).toMatchObject({ workers: cores, limitedBy: 'cpuCores' });

    // study run --workers auto (the default) plans the study's largest trial the same way.
    const env = { ...wasm, GPU_PROFILE: 'rtx_3070' };
    writeFileSync(join(dir, 'small.yaml'), STUDY);
    const created = await runCliInProcess(
      ['study', 'create', 'small', '--direction', 'max', '--file', 'small.yaml'],
      { cwd: dir, env },
    );
    expect(created.code, created.stderr).toBe(0);
    const trials = Math.min(cores, 4);
    const run = await runCli(['study', 'run', 'small', '--trials', String(trials)], {
      cwd: dir,
      env,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `${trials} worker process(es)? \\(auto: ${cores} fit on profile rtx_3070 for the study's largest model .*, limited by cpuCores`,
      ),
    );
    expect(run.stderr).toContain(
      `GPU: using profile 'NVIDIA RTX 3070' (8 GB VRAM) from GPU_PROFILE; workers: ${trials}`,
    );

    // A campaign projected onto an rtx_3070 box of 4 cores and 64 GiB: its trials train on the
    // cores there too, 4 at once.
    writeFileSync(join(dir, 'one.yaml'), CAMPAIGN);
    const campaign = await runCli(['campaign', 'run', 'one.yaml'], { cwd: dir, env: wasm });
    expect(campaign.code, campaign.stderr).toBe(0);
    const projected = await runCliInProcess(
      [
        'campaign',
        'project',
        'one',
        '--to',
        'rtx_3070',
        '--cores',
        '4',
        '--ram-gb',
        '64',
        '--json',
      ],
      { cwd: dir, env: wasm },
    );
    expect(projected.code, projected.stderr).toBe(0);
    const [projection] = jsonLines(projected.stdout) as unknown as [
      { to: { workers: number; limitedBy: string } },
    ];
    expect(projection.to).toEqual(expect.objectContaining({ workers: 4, limitedBy: 'cpuCores' }));
  }, 60_000);

  it("forecast: train forecast on rtx_4090 sizes its models, not the card's 12 GB a model, as profiles plan does", async () => {
    const here = await plan('rtx_4090', '--workload', 'forecast');
    expect(here.limits.map((l) => l.by)).not.toContain('maxWorkers');
    expect(here.limits.map((l) => l.by)).not.toContain('wasm32');
    expect(here.workers).toBeGreaterThanOrEqual(1);
    const models = Math.min(here.workers, 3);
    const result = await runCli(
      [
        'train',
        'forecast',
        '--data',
        'SYN0:1h',
        '--models',
        String(models),
        '--epochs',
        '1',
        '--steps-per-epoch',
        '1',
      ],
      { cwd: dir, env: { ...wasm, GPU_PROFILE: 'rtx_4090' } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `GPU: using profile 'NVIDIA RTX 4090' (24 GB VRAM) from GPU_PROFILE; workers: ${models}`,
    );
    expect(result.stderr).toContain(`${models} at once (${here.limitedBy}: `);
    expect(result.stdout).toContain(`mean of ${models}`);
  }, 60_000);
});
