import { describe, expect, it } from 'vitest';
import { isTradelabError } from '../core/index.js';
import { maxDrawdown } from './drawdown.js';
import { computeMetrics, type TradingMetrics } from './metrics.js';
import { equityFromReturns, simpleReturns } from './returns.js';

/** mulberry32: a small seeded PRNG so the random comparisons are reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random walk of `n` returns, roughly normal with the given per-bar std. */
function randomEquity(rand: () => number, n: number, std: number): Float64Array {
  const returns: number[] = [];
  for (let i = 0; i < n; i++) {
    const z = rand() + rand() + rand() + rand() - 2; // Irwin-Hall, std √(4/12)
    returns.push(0.0002 + (std * z) / Math.sqrt(1 / 3));
  }
  return equityFromReturns(returns, 1000);
}

/** The metrics again, written the plain way: arrays, Math.pow, nothing shared with metrics.ts. */
function naiveMetrics(equity: number[], ppy: number): Record<string, number> {
  const logs: number[] = [];
  const simple: number[] = [];
  for (let i = 1; i < equity.length; i++) {
    const a = equity[i - 1] ?? 0;
    const b = equity[i] ?? 0;
    logs.push(Math.log(b / a));
    simple.push(b / a - 1);
  }
  const n = logs.length;
  const mean = logs.reduce((s, x) => s + x, 0) / n;
  const variance = logs.reduce((s, x) => s + (x - mean) * (x - mean), 0) / (n - 1);
  const downVar = logs.reduce((s, x) => s + (x < 0 ? x * x : 0), 0) / (n - 1);
  const total = (equity[n] ?? 0) / (equity[0] ?? 1) - 1;
  const annual = Math.pow(1 + total, ppy / n) - 1;
  let worst = 0;
  for (let j = 0; j < equity.length; j++) {
    for (let i = 0; i <= j; i++) {
      worst = Math.max(worst, ((equity[i] ?? 0) - (equity[j] ?? 0)) / (equity[i] ?? 1));
    }
  }
  const ups = simple.filter((r) => r > 0).length;
  const moves = simple.filter((r) => r !== 0).length;
  return {
    totalReturn: total,
    annualizedReturn: annual,
    annualizedVolatility: Math.sqrt(variance) * Math.sqrt(ppy),
    sharpe: (mean / Math.sqrt(variance)) * Math.sqrt(ppy),
    sortino: (mean / Math.sqrt(downVar)) * Math.sqrt(ppy),
    maxDrawdown: worst,
    calmar: annual / worst,
    hitRate: ups / moves,
  };
}

function expectAllFinite(m: TradingMetrics): void {
  for (const [key, value] of Object.entries(m)) {
    if (typeof value === 'number') expect(Number.isFinite(value), key).toBe(true);
  }
}

describe('computeMetrics on a hand-computed curve', () => {
  // equity 100 → 120 → 90 → 135; simple returns +0.2, −0.25, +0.5; 3 bars, 3 periods per year.
  const m = computeMetrics({ equity: Float64Array.of(100, 120, 90, 135), periodsPerYear: 3 });

  it('computes returns', () => {
    expect(m.bars).toBe(3);
    expect(m.totalReturn).toBeCloseTo(0.35, 12); // 135 / 100 − 1
    expect(m.annualizedReturn).toBeCloseTo(0.35, 12); // 1.35^(3/3) − 1: the curve spans one year
    expect(m.hitRate).toBeCloseTo(2 / 3, 12); // 2 of 3 moves are up
  });

  it('computes Sharpe, Sortino and volatility from log returns', () => {
    // log returns: ln 1.2 = 0.182322, ln 0.75 = −0.287682, ln 1.5 = 0.405465; mean = ln 1.35 / 3 = 0.100035
    // squared deviations 0.006771 + 0.150324 + 0.093288 = 0.250383; / (n−1 = 2) = 0.125192; std = 0.353824
    // Sharpe = 0.100035 / 0.353824 · √3 = 0.489694; volatility = 0.353824 · √3 = 0.612842
    // downside deviation = √(0.287682² / 2) = 0.203422; Sortino = 0.100035 / 0.203422 · √3 = 0.851754
    expect(m.sharpe).toBeCloseTo(0.4896936, 6);
    expect(m.annualizedVolatility).toBeCloseTo(0.6128415, 6);
    expect(m.sortino).toBeCloseTo(0.8517541, 6);
  });

  it('computes max drawdown and Calmar', () => {
    // peak 120 at index 1, trough 90 at index 2: 1 − 90/120 = 0.25; Calmar = 0.35 / 0.25 = 1.4
    expect(m.maxDrawdown).toBeCloseTo(0.25, 12);
    expect(m.drawdownPeakIndex).toBe(1);
    expect(m.drawdownTroughIndex).toBe(2);
    expect(m.calmar).toBeCloseTo(1.4, 12);
    expect(m.flags).toEqual([]);
  });

  it('annualizes geometrically over the number of bars', () => {
    // 1.21 over 2 bars at 12 per year: 1.21^(12/2) − 1 = 1.1^12 − 1 = 2.138428…
    const r = computeMetrics({ equity: Float64Array.of(1, 1.1, 1.21), periodsPerYear: 12 });
    expect(r.annualizedReturn).toBeCloseTo(Math.pow(1.1, 12) - 1, 10);
  });
});

describe('maxDrawdown', () => {
  it('finds the deepest fall, not the latest or the first', () => {
    // falls: 10→8 (20 %), then peak 12 at index 4 → 6 at index 6 (50 %), then 14 → 11 (21 %)
    const dd = maxDrawdown(Float64Array.of(10, 8, 9, 11, 12, 9, 6, 14, 11));
    expect(dd.depth).toBeCloseTo(0.5, 12);
    expect(dd.peakIndex).toBe(4);
    expect(dd.troughIndex).toBe(6);
  });

  it('is 0 with null indexes on a curve that never falls', () => {
    expect(maxDrawdown(Float64Array.of(1, 1, 2, 3))).toEqual({
      depth: 0,
      peakIndex: null,
      troughIndex: null,
    });
  });
});

describe('computeMetrics against a naive implementation', () => {
  it('agrees on random curves', () => {
    const rand = prng(42);
    for (let trial = 0; trial < 20; trial++) {
      const n = 5 + Math.floor(rand() * 300);
      const ppy = [252, 8760, 525_600][trial % 3] ?? 252;
      const equity = randomEquity(rand, n, 0.002 + rand() * 0.02);
      const fast = computeMetrics({ equity, periodsPerYear: ppy });
      const slow = naiveMetrics([...equity], ppy);
      expect(fast.flags).toEqual([]);
      for (const [key, expected] of Object.entries(slow)) {
        const actual = fast[key as keyof TradingMetrics] as number;
        expect(Math.abs(actual - expected), `${key} trial ${trial}`).toBeLessThanOrEqual(
          1e-9 * Math.max(1, Math.abs(expected)),
        );
      }
    }
  });

  it('scales Sharpe and Sortino by √2 when periods per year double', () => {
    const equity = randomEquity(prng(7), 500, 0.01);
    const a = computeMetrics({ equity, periodsPerYear: 8760 });
    const b = computeMetrics({ equity, periodsPerYear: 2 * 8760 });
    expect(b.sharpe / a.sharpe).toBeCloseTo(Math.SQRT2, 12);
    expect(b.sortino / a.sortino).toBeCloseTo(Math.SQRT2, 12);
    expect(b.annualizedVolatility / a.annualizedVolatility).toBeCloseTo(Math.SQRT2, 12);
  });

  it('does not compute Sharpe on dollar differences', () => {
    // The same curve in cents must give the same Sharpe as in dollars.
    const dollars = randomEquity(prng(3), 200, 0.01);
    const cents = dollars.map((v) => v * 100);
    const a = computeMetrics({ equity: dollars, periodsPerYear: 252 });
    const b = computeMetrics({ equity: cents, periodsPerYear: 252 });
    expect(b.sharpe).toBeCloseTo(a.sharpe, 10);
  });

  it('accepts per-bar simple returns through equityFromReturns', () => {
    const returns = [0.2, -0.25, 0.5];
    const equity = equityFromReturns(returns, 100);
    expect([...equity]).toEqual([100, 120, 90, 135].map((v) => expect.closeTo(v, 10) as number));
    const back = simpleReturns(equity);
    back.forEach((r, i) => {
      expect(r).toBeCloseTo(returns[i] ?? Number.NaN, 12);
    });
  });
});

describe('computeMetrics edge cases', () => {
  it('empty curve: all zero, flag empty', () => {
    const m = computeMetrics({ equity: new Float64Array(0), periodsPerYear: 252 });
    expect(m.flags).toEqual(['empty']);
    expect(m.bars).toBe(0);
    expect(m.totalReturn).toBe(0);
    expect(m.sharpe).toBe(0);
    expect(m.drawdownPeakIndex).toBeNull();
    expectAllFinite(m);
  });

  it('one value: too-few-bars', () => {
    const m = computeMetrics({ equity: Float64Array.of(100), periodsPerYear: 252 });
    expect(m.flags).toContain('too-few-bars');
    expect(m.annualizedReturn).toBe(0);
    expectAllFinite(m);
  });

  it('one return: returns are computed, Sharpe is 0 with too-few-bars', () => {
    const m = computeMetrics({ equity: Float64Array.of(100, 110), periodsPerYear: 252 });
    expect(m.flags).toEqual(['too-few-bars', 'no-drawdown']);
    expect(m.totalReturn).toBeCloseTo(0.1, 12);
    expect(m.annualizedReturn).toBeCloseTo(Math.pow(1.1, 252) - 1, 0);
    expect(m.sharpe).toBe(0);
    expect(m.annualizedVolatility).toBe(0);
    expectAllFinite(m);
  });

  it('flat curve: zero-variance, no-drawdown, no-nonzero-returns', () => {
    const m = computeMetrics({ equity: Float64Array.of(5, 5, 5, 5), periodsPerYear: 252 });
    expect(m.flags).toEqual(['zero-variance', 'no-drawdown', 'no-nonzero-returns']);
    expect(m.sharpe).toBe(0);
    expect(m.hitRate).toBe(0);
    expect(m.calmar).toBe(0);
    expectAllFinite(m);
  });

  it('constant growth: zero-variance despite rounding noise, not a huge Sharpe', () => {
    const equity = equityFromReturns(new Array<number>(50).fill(0.01), 1);
    const m = computeMetrics({ equity, periodsPerYear: 252 });
    expect(m.flags).toContain('zero-variance');
    expect(m.sharpe).toBe(0);
    expect(m.hitRate).toBe(1);
    expectAllFinite(m);
  });

  it('rising curve with varying steps: no-downside and no-drawdown', () => {
    const m = computeMetrics({ equity: Float64Array.of(1, 1.1, 1.3, 1.31), periodsPerYear: 252 });
    expect(m.flags).toEqual(['no-downside', 'no-drawdown']);
    expect(m.sharpe).toBeGreaterThan(0);
    expect(m.sortino).toBe(0);
    expect(m.calmar).toBe(0);
    expectAllFinite(m);
  });

  it('ruin: total and annualized return −1, drawdown 1, log returns stop at the ruin', () => {
    const m = computeMetrics({ equity: Float64Array.of(1, 0.5, 0.8, 0, 0), periodsPerYear: 252 });
    expect(m.flags).toContain('ruin');
    expect(m.totalReturn).toBe(-1);
    expect(m.annualizedReturn).toBe(-1);
    expect(m.maxDrawdown).toBe(1);
    expect(m.drawdownTroughIndex).toBe(3);
    // Sharpe over ln 0.5 = −0.693147 and ln 1.6 = 0.470004 only: mean −0.111572,
    // std |−0.693147 − 0.470004| / √2 = 0.822470; Sharpe = −0.111572 / 0.822470 · √252 = −2.153444
    expect(m.sharpe).toBeCloseTo(-2.153444, 5);
    expectAllFinite(m);
  });

  it('overflow: a short steep curve annualizes to MAX_VALUE, not Infinity', () => {
    const m = computeMetrics({ equity: Float64Array.of(1, 2, 3), periodsPerYear: 525_600 });
    expect(m.flags).toContain('overflow');
    expect(m.annualizedReturn).toBe(Number.MAX_VALUE);
    expectAllFinite(m);
  });

  it('throws on NaN equity, a non-positive start or bad periods per year', () => {
    const bad = (equity: Float64Array, ppy = 252): unknown => {
      try {
        computeMetrics({ equity, periodsPerYear: ppy });
      } catch (error) {
        return error;
      }
      return undefined;
    };
    expect(isTradelabError(bad(Float64Array.of(1, Number.NaN, 2)), 'INVALID_ARGUMENT')).toBe(true);
    expect(isTradelabError(bad(Float64Array.of(0, 1, 2)), 'INVALID_ARGUMENT')).toBe(true);
    expect(isTradelabError(bad(Float64Array.of(1, 2), 0), 'INVALID_ARGUMENT')).toBe(true);
    expect(() =>
      computeMetrics({ equity: Float64Array.of(1, 2), periodsPerYear: 1, turnover: [Number.NaN] }),
    ).toThrow(/turnover\[0\] is NaN/);
  });
});

describe('turnover and exposure', () => {
  it('sums and annualizes turnover, counts exposed bars', () => {
    const m = computeMetrics({
      equity: Float64Array.of(1, 1.01, 1, 1.02, 1.03),
      periodsPerYear: 4,
      turnover: [0.5, 0, 0.5, 1], // Σ = 2; mean 0.5 per bar · 4 bars/year = 2 per year
      exposure: [0, 1, 0.5, 0], // 2 of 4 bars hold a position
    });
    expect(m.totalTurnover).toBeCloseTo(2, 12);
    expect(m.annualizedTurnover).toBeCloseTo(2, 12);
    expect(m.exposure).toBeCloseTo(0.5, 12);
  });

  it('is null when not given and 0 when given empty', () => {
    const equity = Float64Array.of(1, 1.01, 1);
    expect(computeMetrics({ equity, periodsPerYear: 4 }).annualizedTurnover).toBeNull();
    expect(computeMetrics({ equity, periodsPerYear: 4 }).exposure).toBeNull();
    const m = computeMetrics({ equity, periodsPerYear: 4, turnover: [], exposure: [] });
    expect(m.annualizedTurnover).toBe(0);
    expect(m.exposure).toBe(0);
  });
});
