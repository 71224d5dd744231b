import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, type CliResult } from './support/run-cli.js';
import { runCliBatch } from './support/run-cli-batch.js';
import { syntheticProject, tinyRunFlags } from './support/train-fixture.js';

/*
 * A model or checkpoint damaged after it was saved is refused, never used: `backtest` of a
 * weights.bin with one flipped bit, or of weights that are all NaN, fails naming the file (it used
 * to print other figures, or "return 0.00 %, Sharpe 0.00"), and `train ppo --resume` from a damaged
 * checkpoint fails instead of training on. A model from an older tradelab, with no checksum, still
 * backtests, with a warning.
 */

let dir: string;
/** What each damaged copy's command (see {@link DAMAGED}) printed. */
let results: Record<string, CliResult>;

beforeAll(async () => {
  dir = await syntheticProject('tradelab-integrity-', 0.2);
  const trained = await runCli(
    [
      'train',
      'ppo',
      ...tinyRunFlags({
        'repeat-times': '1',
        'checkpoint-every': '1',
        'episode-length': undefined,
        seed: undefined,
      }),
      '--steps',
      '512',
      '--threads',
      '1',
      '--out',
      'runs/m',
    ],
    { cwd: dir },
  );
  expect(trained.code, trained.stderr).toBe(0);
  // The damaged copies' commands, run together in one process (runCliBatch).
  const names = Object.keys(DAMAGED);
  for (const name of names) DAMAGED[name]?.damage(copyRun(`runs/${name}`));
  const ran = await runCliBatch(
    names.map((name) => ({ args: DAMAGED[name]?.args ?? [], cwd: dir })),
  );
  results = Object.fromEntries(names.map((name, i) => [name, ran[i] as CliResult]));
}, 90_000);

/** A copy of the trained run, to damage. */
function copyRun(name: string): string {
  cpSync(join(dir, 'runs/m'), join(dir, name), { recursive: true });
  return join(dir, name);
}

/** Flips one bit in the middle of `file`. */
function flipBit(file: string): void {
  const bytes = readFileSync(file);
  const at = Math.floor(bytes.length / 2);
  bytes[at] = (bytes[at] as number) ^ 0x01;
  writeFileSync(file, bytes);
}

/** Rewrites `model.json` of the model directory `model` with `edit`. */
function editModelJson(model: string, edit: (json: Record<string, unknown>) => void): void {
  const path = join(model, 'model.json');
  const json = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  edit(json);
  writeFileSync(path, JSON.stringify(json));
}

/** The copies, damaged as each test says, and the command each one's test checks. */
const DAMAGED: Record<string, { damage: (run: string) => void; args: string[] }> = {
  flipped: {
    damage: (run) => {
      flipBit(join(run, 'model/weights.bin'));
    },
    args: ['backtest', '--model', 'runs/flipped'],
  },
  nan: {
    damage: (run) => {
      const file = join(run, 'model/weights.bin');
      const nan = new Float32Array(readFileSync(file).length / 4).fill(Number.NaN);
      writeFileSync(file, new Uint8Array(nan.buffer));
      editModelJson(join(run, 'model'), (json) => {
        json.weightsSha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
      });
    },
    args: ['backtest', '--model', 'runs/nan'],
  },
  'damaged-checkpoint': {
    damage: (run) => {
      flipBit(join(run, 'checkpoints/latest/optimizer.bin'));
    },
    // --steps extends the finished run, so the resume has updates left to train.
    args: ['train', 'ppo', '--out', 'runs/damaged-checkpoint', '--resume', '--steps', '1024'],
  },
  older: {
    damage: (run) => {
      editModelJson(join(run, 'model'), (json) => {
        delete json.weightsSha256;
      });
    },
    args: ['backtest', '--model', 'runs/older', '--json'],
  },
};

describe('model and checkpoint integrity', () => {
  it("records the env's defaults as the run resolved them, so a later default cannot change it", () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'runs/m/manifest.json'), 'utf8')) as {
      env: Record<string, unknown>;
    };
    // No --episode-length: train ppo's 256-step episodes; fills at the next bar's open.
    expect(manifest.env).toMatchObject({ episodeLength: 256, executionPrice: 'open' });
    const model = JSON.parse(readFileSync(join(dir, 'runs/m/model/model.json'), 'utf8')) as {
      meta: { env: Record<string, unknown> };
    };
    expect(model.meta.env).toEqual(manifest.env);
  });

  it('refuses to backtest a model whose weights.bin changed after it was saved', () => {
    const run = join(dir, 'runs/flipped');
    const result = results.flipped as CliResult;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error [MODEL_INVALID]');
    expect(result.stderr).toContain(join(run, 'model/weights.bin'));
    expect(result.stderr).toMatch(/is corrupted: its SHA-256 is/);
    expect(result.stderr).toMatch(/hint: .*restore its directory from a backup, or train again/);
  });

  it('refuses to backtest weights that are not finite, even when the checksum matches them', () => {
    const result = results.nan as CliResult;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error [MODEL_INVALID]');
    expect(result.stderr).toMatch(/weights\.bin: actor\/\S+ holds NaN/);
    expect(result.stdout).not.toMatch(/Sharpe/);
  });

  it('refuses to resume from a checkpoint whose optimizer.bin changed after it was saved', () => {
    const run = join(dir, 'runs/damaged-checkpoint');
    const result = results['damaged-checkpoint'] as CliResult;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error [MODEL_INVALID]');
    expect(result.stderr).toContain(join(run, 'checkpoints/latest/optimizer.bin'));
    expect(result.stderr).toMatch(/is corrupted/);
    expect(result.stderr).toMatch(/hint: .*cannot be resumed/);
  });

  it('backtests a model of an older tradelab, which has no checksum, with a warning', () => {
    const result = results.older as CliResult;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /warning: .*model\/weights\.bin has no checksum \(written by an older tradelab\), so it cannot be checked for damage/,
    );
    // The figures of the run's own evaluation on the same (test) range.
    const manifest = JSON.parse(readFileSync(join(dir, 'runs/m/manifest.json'), 'utf8')) as {
      evaluation: { metrics: unknown; benchmarkMetrics: unknown };
    };
    const [row] = jsonLines(result.stdout);
    expect(row?.metrics).toEqual(manifest.evaluation.metrics);
    expect(row?.benchmarkMetrics).toEqual(manifest.evaluation.benchmarkMetrics);
  });
});
