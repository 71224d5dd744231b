import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, runCliSignalled } from './support/run-cli.js';
import { trialsOf } from './support/study-project.js';
import { syntheticProject, tinyRunFlags } from './support/train-fixture.js';
import { gpuTestAdapter } from './support/webgpu.js';

/*
 * `tradelab train ppo --backend gpu`: the update on tradelab's GPU engine (lavapipe here and in
 * CI), through the real CLI. A run stopped with Ctrl-C and resumed ends with the weights.bin of a
 * run that never stopped, byte for byte (the engine's sums are in a fixed order, and Adam's state
 * goes to the checkpoint and back exactly); the model it trained backtests on the CPU (wasm) with
 * the figures its own evaluation printed.
 */

const found = await gpuTestAdapter('test/train-gpu-cli.test.ts');

const UPDATES = 6;
const RUN = [
  ...tinyRunFlags({ 'target-step': '128', 'batch-size': '48' }),
  '--steps',
  String(128 * UPDATES),
  '--backend',
  'gpu',
  '--threads',
  '1',
  '--json',
];

/** A tiny trading study: two splits of two updates, to check the wiring, not the learning. */
const STUDY_FILE = `preset: ensemble_conservative
data: SYN0,SYN1:1h
cv: walk-forward:2
holdout: 20%
sampler: { type: random, seed: 5 }
params:
  netDim: 16
  nEnvs: 4
  targetStep: 128
  batchSize: 64
  breakStep: 256
  repeatTimes: 1
  episodeLength: 64
`;

let dir: string;
const read = (path: string): string => readFileSync(join(dir, path), 'utf8');
const json = (path: string): Record<string, unknown> =>
  JSON.parse(read(path)) as Record<string, unknown>;

describe.skipIf(!found)('tradelab train ppo --backend gpu', { timeout: 180_000 }, () => {
  beforeAll(async () => {
    dir = await syntheticProject('tradelab-gpu-train-', 0.2);
    const straight = await runCli(['train', 'ppo', ...RUN, '--out', 'runs/straight'], { cwd: dir });
    expect(straight.code, straight.stderr).toBe(0);
  }, 300_000);

  it('records the engine as the run backend and trains every update on it', () => {
    const manifest = json('runs/straight/manifest.json') as {
      backend: { name: string; matmul: string };
      status: string;
    };
    expect(manifest.status).toBe('finished');
    expect(manifest.backend.name).toBe('gpu');
    expect(manifest.backend.matmul).toContain("tradelab's WebGPU kernels");
    const updates = jsonLines(read('runs/straight/updates.jsonl'));
    expect(updates.map((u) => u.update)).toEqual(Array.from({ length: UPDATES }, (_, i) => i + 1));
    // 128 rows in minibatches of 48 (48, 48, 32), two passes.
    for (const u of updates) expect(u.minibatches).toBe(6);
  });

  it('resumes a run stopped with Ctrl-C to exactly the weights of one that never stopped', async () => {
    const stopped = await runCliSignalled(['train', 'ppo', ...RUN, '--out', 'runs/resumed'], {
      cwd: dir,
      signal: 'SIGINT',
      when: (stdout) => stdout.includes('"type":"update","update":3,'),
    });
    expect(stopped.code, stopped.stderr).not.toBe(0);
    const resumed = await runCli(
      [
        'train',
        'ppo',
        '--out',
        'runs/resumed',
        '--resume',
        '--backend',
        'gpu',
        '--threads',
        '1',
        '--json',
      ],
      {
        cwd: dir,
      },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(join(dir, 'runs/resumed/model/weights.bin'))).toEqual(
      readFileSync(join(dir, 'runs/straight/model/weights.bin')),
    );
    expect(json('runs/resumed/manifest.json').evaluation).toEqual(
      json('runs/straight/manifest.json').evaluation,
    );
  }, 300_000);

  it('runs a trading study whose workers train on the engine', async () => {
    writeFileSync(join(dir, 'study.yaml'), STUDY_FILE);
    const created = await runCli(['study', 'create', 'gpu', '--file', 'study.yaml'], { cwd: dir });
    expect(created.code, created.stderr).toBe(0);
    const ran = await runCli(
      ['study', 'run', 'gpu', '--trials', '2', '--workers', '1', '--backend', 'gpu'],
      { cwd: dir },
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/Finished 2 trials .*: 2 complete, 0 pruned, 0 failed/);
    const trials = await trialsOf(dir, 'gpu');
    expect(trials.map((t) => t.userAttrs.updateDevice)).toEqual(['gpu', 'gpu']);
  }, 300_000);

  it("says an FT-Transformer's update stays on the CPU, and trains it there", async () => {
    const ft = await runCli(
      [
        'train',
        'ppo',
        ...tinyRunFlags({ 'target-step': '128', 'batch-size': '64', 'repeat-times': '1' }),
        '--steps',
        '128',
        '--policy',
        'ft_transformer',
        '--backend',
        'gpu',
        '--out',
        'runs/ft',
      ],
      { cwd: dir },
    );
    expect(ft.code, ft.stderr).toBe(0);
    expect(ft.stdout).toContain(
      "the FT-Transformer's update stays on the CPU (wasm): the GPU engine trains MLP actors",
    );
  }, 120_000);

  it('backtests the model it trained on the CPU with the figures of its own evaluation', async () => {
    const backtest = await runCli(
      ['backtest', '--model', 'runs/straight', '--backend', 'wasm', '--json'],
      { cwd: dir },
    );
    expect(backtest.code, backtest.stderr).toBe(0);
    const evaluation = json('runs/straight/manifest.json').evaluation as { metrics: unknown };
    const printed = jsonLines(backtest.stdout).find((r) => r.type === 'backtest');
    expect(printed?.metrics).toEqual(evaluation.metrics);
  });
});
