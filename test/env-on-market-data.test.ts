import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitNormalizer } from '../src/data/features/normalizer.js';
import { loadMarketData, type MarketData } from '../src/data/load-market-data.js';
import { parseDatasetKey } from '../src/data/store/dataset-key.js';
import { openDatasetStore } from '../src/data/store/dataset-store.js';
import { Rng } from '../src/core/random.js';
import { VectorTradingEnv } from '../src/env/trading-env.js';
import { evaluate } from '../src/eval/evaluate.js';
import { runCli, tempDir } from './support/run-cli.js';

/*
 * The env on what a user has: datasets written by the real CLI (`data synth`), loaded with the
 * default indicators, a normalizer fitted on the training bars only, then trained-on ranges stepped
 * with random actions and a held-out range evaluated.
 */

let dir = '';
let data: MarketData;

beforeAll(async () => {
  dir = tempDir('tradelab-env-data-');
  const made = await runCli(
    ['data', 'synth', '--symbols', 'AAA,BBB,CCC', '--bars', '3000', '--seed', '7'],
    {
      cwd: dir,
    },
  );
  expect(made.code, made.stderr).toBe(0);
  const store = openDatasetStore(join(dir, '.tradelab', 'data'));
  data = await loadMarketData(
    store,
    ['AAA:1h', 'BBB:1h', 'CCC:1h'].map((k) => parseDatasetKey(k)),
  );
}, 60_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the env on loaded market data', () => {
  it('trades random actions on two training ranges with exact accounting', () => {
    const bars = data.timestamps.length;
    const assets = data.symbols.length;
    const width = data.featureNames.length;
    expect(bars).toBeGreaterThan(2500);
    expect(data.techArray.every(Number.isFinite)).toBe(true);
    const train = [
      [4, 1200],
      [1300, 2400],
    ] as const;
    const normalizer = fitNormalizer(data.techArray, { assets, features: width }, train);
    const env = new VectorTradingEnv(data, normalizer, {
      nEnvs: 8,
      lookback: 5,
      ranges: train,
      episodeLength: 300,
      seed: 3,
    });
    const actions = new Float32Array(env.nEnvs * assets);
    const rng = new Rng(11);
    let episodes = 0;
    // Plain checks inside the loop (an expect per value would take a minute); the first failure is kept.
    const problems: string[] = [];
    for (let s = 0; s < 2000 && problems.length === 0; s++) {
      for (let j = 0; j < actions.length; j++) actions[j] = rng.uniform() * 2 - 1;
      const { obs, info, truncations, terminations } = env.step(actions);
      for (let i = 0; i < env.nEnvs; i++) {
        const t = info.bar[i] as number;
        if (!train.some(([a, b]) => t >= a && t < b)) problems.push(`step ${s} env ${i}: bar ${t}`);
        let value = info.cash[i] as number;
        for (let a = 0; a < assets; a++) {
          const held = info.holdings[i * assets + a] as number;
          if (!(held >= 0)) problems.push(`step ${s} env ${i}: holding ${held}`);
          value += held * (data.priceArray[t * assets + a] as number);
        }
        if (!((info.cash[i] as number) >= 0)) problems.push(`step ${s} env ${i}: cash < 0`);
        const error = Math.abs(value - (info.value[i] as number)) / value;
        if (!(error < 1e-9)) problems.push(`step ${s} env ${i}: value off by ${error}`);
        episodes += (truncations[i] as number) + (terminations[i] as number);
      }
      // Normalized features: finite and clipped, never the NaN that marks unreadable bars.
      if (!obs.every(Number.isFinite)) problems.push(`step ${s}: a non-finite observation`);
    }
    expect(problems).toEqual([]);
    expect(episodes).toBeGreaterThan(20);
  });

  it('evaluates a held-out range against buy-and-hold on the same bars', async () => {
    const assets = data.symbols.length;
    const width = data.featureNames.length;
    const test = [2500, data.timestamps.length] as const;
    const normalizer = fitNormalizer(data.techArray, { assets, features: width }, [[0, 2400]]);
    const buyAll = (_obs: Float32Array, actions: Float32Array, step: number): void => {
      actions.fill(step === 0 ? 1 / assets : 0);
    };
    const [hold] = await evaluate(data, normalizer, buyAll, [test], { maxTradeFraction: 1 });
    const [idle] = await evaluate(data, normalizer, () => undefined, [test]);
    expect(hold).toBeDefined();
    expect(idle).toBeDefined();
    if (hold === undefined || idle === undefined) return;
    const steps = test[1] - test[0] - 1;
    expect(hold.equity.length).toBe(steps + 1);
    expect(hold.ended).toBe('truncated');
    // Buying a third of the book in each asset at the first fill is the benchmark, less its fees.
    const last = hold.equity.length - 1;
    const benchReturn = (hold.benchmark[last] as number) / (hold.benchmark[0] as number);
    const holdReturn = (hold.equity[last] as number) / (hold.equity[0] as number);
    expect(holdReturn).toBeCloseTo(benchReturn * (1 - 10e-4), 3);
    expect(hold.metrics.periodsPerYear).toBe(365 * 24);
    // The whole book is bought once (the fee comes out of the cash) and stays invested.
    expect(hold.metrics.totalTurnover).toBeCloseTo(1 / (1 + 10e-4), 9);
    expect(hold.metrics.exposure).toBe(1);
    expect(idle.metrics.exposure).toBe(0);
    expect(idle.metrics.totalTurnover).toBe(0);
    expect(idle.metrics.totalReturn).toBe(0);
    expect(idle.metrics.flags).toContain('zero-variance');
    expect(idle.benchmarkMetrics.totalReturn).toBeCloseTo(benchReturn - 1, 12);
  });
});
