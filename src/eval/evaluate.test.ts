import { describe, expect, it } from 'vitest';
import { scriptedMarket, syntheticMarket } from '../env/synthetic-market.js';
import { buyAndHoldEquity } from './benchmark.js';
import { evaluate } from './evaluate.js';

describe('evaluate', () => {
  const closes = [
    [100, 50],
    [110, 50],
    [121, 45],
    [110, 54],
    [132, 60],
    [120, 66],
  ];
  const market = scriptedMarket(closes);

  it('holds cash with no trades, and values the benchmark from the prices', async () => {
    const [result] = await evaluate(market, undefined, () => undefined, [[0, 6]], {
      initialCash: 1000,
      buyFeeBps: 0,
      sellFeeBps: 0,
    });
    if (result === undefined) throw new Error('no result');
    expect(Array.from(result.equity).every((v) => v === 1000)).toBe(true);
    expect(result.metrics.sharpe).toBe(0);
    expect(result.metrics.flags).toContain('zero-variance');
    expect(result.bars[0]).toBe(0);
    expect(Math.max(...result.bars)).toBeLessThan(6);
    // The env's benchmark buys at its first fill (bar 1) and drifts with the prices from there.
    const first = result.bars[1] ?? 1;
    const reference = buyAndHoldEquity(market.priceArray, 2, {
      start: first,
      end: (result.bars.at(-1) ?? 0) + 1,
      initialCash: 1000,
    });
    const tail = result.benchmark.subarray(1);
    tail.forEach((v, k) => {
      expect(v).toBeCloseTo(reference[k] ?? Number.NaN, 6);
    });
  });

  it('tracks buy-and-hold minus one round of fees when it buys everything at the start', async () => {
    const buyAll = (obs: Float32Array, actions: Float32Array, step: number): void => {
      actions.fill(step === 0 ? 1 : 0);
    };
    const [result] = await evaluate(market, undefined, buyAll, [[0, 6]], {
      initialCash: 1000,
      buyFeeBps: 10,
      sellFeeBps: 10,
      maxTradeFraction: 0.5,
    });
    if (result === undefined) throw new Error('no result');
    const strategy = (result.equity.at(-1) ?? 0) / (result.equity[1] ?? 1);
    const benchmark = (result.benchmark.at(-1) ?? 0) / (result.benchmark[1] ?? 1);
    expect(strategy).toBeGreaterThan(1);
    expect(strategy).toBeCloseTo(benchmark, 2);
    expect(result.fees).toBeGreaterThan(0);
  });

  it('gives each range the same result whether evaluated alone or with others', async () => {
    const data = syntheticMarket({ assets: 3, bars: 400, seed: 5 });
    const policy = (obs: Float32Array, actions: Float32Array, step: number): void => {
      // The same rule for every env: it depends on the asset, not on the env's position.
      for (let i = 0; i < actions.length; i++) actions[i] = Math.sin(step * 0.7 + (i % 3));
    };
    const ranges = [
      [10, 120],
      [150, 260],
      [300, 390],
    ] as const;
    const together = await evaluate(data, undefined, policy, ranges);
    for (const [k, range] of ranges.entries()) {
      const [alone] = await evaluate(data, undefined, policy, [range]);
      expect(Array.from(alone?.equity ?? [])).toEqual(Array.from(together[k]?.equity ?? []));
      expect(Math.min(...(together[k]?.bars ?? []))).toBeGreaterThanOrEqual(range[0]);
      expect(Math.max(...(together[k]?.bars ?? []))).toBeLessThan(range[1]);
    }
  });

  it('replays scripted actions per range', async () => {
    const script = new Float32Array([1, 0, 0, 0, -1, 0]);
    const [result] = await evaluate(market, undefined, [script], [[0, 6]], {
      initialCash: 1000,
      buyFeeBps: 0,
      sellFeeBps: 0,
    });
    expect(result?.fees).toBe(0);
    expect(result?.equity.length).toBeGreaterThan(3);
  });
});
