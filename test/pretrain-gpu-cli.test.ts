import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliInProcess, runCliSignalled, tempDir } from './support/run-cli.js';
import { gpuTestAdapter } from './support/webgpu.js';

/*
 * `tradelab pretrain tcn --backend gpu`: the TCN's steps on tradelab's GPU engine (lavapipe here
 * and in CI), through the real CLI. A run stopped with SIGTERM after its first epoch and resumed
 * ends with the checkpoint of a run that never stopped, byte for byte: the engine's sums are in a
 * fixed order, its dropout draws the CPU's masks by step, and Adam's state goes to the checkpoint
 * and back exactly.
 */

const found = await gpuTestAdapter('test/pretrain-gpu-cli.test.ts');

const RUN = [
  'pretrain',
  'tcn',
  '--data',
  'SYN0,SYN1:30m',
  '--hidden',
  '8',
  '--layers',
  '3',
  '--chunk-len',
  '24',
  '--horizon',
  '5',
  '--chunks',
  '8',
  '--accum',
  '2',
  '--steps-per-epoch',
  '4',
  '--epochs',
  '3',
  '--patience',
  '9',
  '--backend',
  'gpu',
  '--json',
];

let dir: string;
let straight: Awaited<ReturnType<typeof runCli>>;

describe.skipIf(!found)('tradelab pretrain tcn --backend gpu', { timeout: 300_000 }, () => {
  beforeAll(async () => {
    dir = tempDir('tradelab-pretrain-gpu-');
    const made = await runCliInProcess(
      [
        'data',
        'synth',
        '--symbols',
        '2',
        '--bars',
        String(160 * 48),
        '--timeframe',
        '30m',
        '--seed',
        '5',
      ],
      { cwd: dir },
    );
    expect(made.code, made.stderr).toBe(0);
    straight = await runCli([...RUN, '--out', 'straight'], { cwd: dir });
    expect(straight.code, straight.stderr).toBe(0);
  }, 300_000);

  it('trains on the engine and says so', () => {
    const run = JSON.parse(readFileSync(join(dir, 'straight', 'run.json'), 'utf8')) as {
      backend: string;
      status: string;
      history: unknown[];
    };
    expect(run.backend).toMatch(/^gpu \(/);
    expect(run.history).toHaveLength(3);
    expect(straight.stderr).toContain("the TCN's steps run on tradelab's GPU engine");
  });

  it('resumes a run stopped after an epoch to exactly the checkpoint of one that never stopped', async () => {
    const stopped = await runCliSignalled([...RUN, '--out', 'resumed'], {
      cwd: dir,
      signal: 'SIGTERM',
      when: (stdout) => stdout.includes('"type":"epoch"'),
    });
    expect(stopped.code, stopped.stderr).not.toBe(0);
    const resumed = await runCli([...RUN, '--out', 'resumed', '--resume'], { cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const file of ['checkpoint/weights.bin', 'checkpoint/optimizer.bin'])
      expect(readFileSync(join(dir, 'resumed', file)), file).toEqual(
        readFileSync(join(dir, 'straight', file)),
      );
  });
});
