import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, runCliInProcess, tempDir } from './support/run-cli.js';

/*
 * `tradelab train forecast` on data of the README tour's size (3 years of 15-minute bars): each
 * worker sends forecasts for every validation row (over 30,000 here, megabytes of JSON) and used to
 * disconnect before the message was written, so the set failed with "exited (code 0) without a
 * result". The models train for two steps: the size of the result is what matters.
 */

const dir = tempDir('tradelab-forecast-set-');
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

beforeAll(async () => {
  // The tour's bars (`data synth --symbols 4 --bars 105120 --timeframe 15m --seed 11`); the set
  // reads two of its symbols.
  const made = await runCliInProcess(
    ['data', 'synth', '--symbols', '2', '--bars', '105120', '--timeframe', '15m', '--seed', '11'],
    { cwd: dir },
  );
  expect(made.code, made.stderr).toBe(0);
}, 60_000);

describe('tradelab train forecast on the tour data', () => {
  it("receives every worker's result, however many validation rows it forecasts", async () => {
    const result = await runCli(
      [
        'train',
        'forecast',
        '--data',
        'SYN0,SYN1:15m',
        '--models',
        '3',
        '--model',
        'mlp',
        '--epochs',
        '1',
        '--steps-per-epoch',
        '2',
        '--json',
      ],
      { cwd: dir, env: { TRADELAB_DETECT: 'false' } },
    );
    expect(result.code, result.stderr).toBe(0);
    const records = jsonLines(result.stdout);
    expect(records.filter((r) => r.type === 'model').map((r) => r.index)).toEqual(
      expect.arrayContaining([0, 1, 2]),
    );
    const set = records.find((r) => r.type === 'set') as { ensemble: { rows: number } };
    expect(set.ensemble.rows).toBeGreaterThan(20_000);
  }, 60_000);
});
