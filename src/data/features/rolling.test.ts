import { describe, expect, it } from 'vitest';
import { errorOf } from '../../../test/support/assertions.js';
import { rollingMean, rollingMeanStd, rollingRatio, rollingSum } from './rolling.js';
import { ema, wilderSmoothing } from './smoothing.js';

/** mulberry32: a tiny seeded PRNG, so every run sees the same data. */
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

function randomSeries(n: number, seed: number, level = 0, spread = 1): Float64Array {
  const random = prng(seed);
  return Float64Array.from({ length: n }, () => level + spread * (random() * 2 - 1));
}

/** The window ending at t, or undefined before it is full. */
function windowAt(x: Float64Array, t: number, window: number, start: number): number[] | undefined {
  if (t < start + window - 1) return undefined;
  return Array.from(x.subarray(t - window + 1, t + 1));
}

const naiveSum = (w: number[]): number => w.reduce((a, b) => a + b, 0);
const naiveMean = (w: number[]): number => naiveSum(w) / w.length;
const naiveStd = (w: number[], ddof: number): number => {
  const m = naiveMean(w);
  return Math.sqrt(w.reduce((a, v) => a + (v - m) ** 2, 0) / (w.length - ddof));
};

/** |actual − expected| ≤ 1e-9 · max(|expected|, scale); NaN must match NaN. */
function expectNear(actual: number, expected: number, scale: number, where: string): void {
  if (Number.isNaN(expected)) {
    expect(actual, where).toBeNaN();
    return;
  }
  const tolerance = 1e-9 * Math.max(Math.abs(expected), scale);
  if (!(Math.abs(actual - expected) <= tolerance)) {
    expect.fail(`${where}: ${actual} differs from ${expected} by more than ${tolerance}`);
  }
}

describe('rolling helpers against a naive O(n · window) reference', () => {
  const cases = [
    { window: 1, start: 0 },
    { window: 2, start: 0 },
    { window: 7, start: 3 },
    { window: 20, start: 1 },
    { window: 64, start: 0 },
  ];
  for (const { window, start } of cases) {
    it(`window ${window}, start ${start}`, () => {
      const x = randomSeries(3000, window * 31 + start);
      const sums = rollingSum(x, window, start);
      const means = rollingMean(x, window, start);
      const population = rollingMeanStd(x, window, { start });
      const sample = window > 1 ? rollingMeanStd(x, window, { start, ddof: 1 }) : undefined;
      for (let t = 0; t < x.length; t++) {
        const w = windowAt(x, t, window, start);
        // A signed sum can be near 0: its error scales with the values summed, not with the sum.
        const scale = w === undefined ? 1 : naiveSum(w.map(Math.abs));
        expectNear(sums[t] ?? NaN, w ? naiveSum(w) : NaN, scale, `sum at ${t}`);
        expectNear(means[t] ?? NaN, w ? naiveMean(w) : NaN, scale / window, `mean at ${t}`);
        expectNear(
          population.mean[t] ?? NaN,
          w ? naiveMean(w) : NaN,
          scale / window,
          `mean at ${t}`,
        );
        expectNear(population.std[t] ?? NaN, w ? naiveStd(w, 0) : NaN, 1e-6, `std at ${t}`);
        if (sample) {
          expectNear(sample.std[t] ?? NaN, w ? naiveStd(w, 1) : NaN, 1e-6, `sample std at ${t}`);
        }
      }
    });
  }

  it('rollingRatio divides the window sums, with `empty` where the denominator sums to 0', () => {
    const top = randomSeries(2000, 41);
    const bottom = randomSeries(2000, 42).map((v, t) => (t % 300 < 40 ? 0 : Math.abs(v)));
    const window = 9;
    const ratio = rollingRatio(top, bottom, window, 2, -7);
    let empties = 0;
    for (let t = 0; t < top.length; t++) {
      const a = windowAt(top, t, window, 2);
      const b = windowAt(bottom, t, window, 2);
      if (a === undefined || b === undefined) {
        expect(ratio[t]).toBeNaN();
        continue;
      }
      const denominator = naiveSum(b);
      if (denominator === 0) empties++;
      const expected = denominator === 0 ? -7 : naiveSum(a) / denominator;
      const scale = naiveSum(a.map(Math.abs)) / Math.max(denominator, 1e-300);
      expectNear(ratio[t] ?? NaN, expected, scale, `ratio at ${t}`);
    }
    expect(empties).toBeGreaterThan(100);
  });

  it('does not drift over a long series at a high price level with a small spread', () => {
    // BTC-like: 60,000 ± 5. A sum-of-squares variance would lose ~60,000² · 2⁻⁵² ≈ 1e-6 of 25 here,
    // and a running sum would accumulate 200,000 rounding errors.
    const x = randomSeries(200_000, 7, 60_000, 5);
    const { mean, std } = rollingMeanStd(x, 20);
    for (let t = 19; t < x.length; t += 997) {
      const w = windowAt(x, t, 20, 0) ?? [];
      expectNear(mean[t] ?? NaN, naiveMean(w), 1, `mean at ${t}`);
      expectNear(std[t] ?? NaN, naiveStd(w, 0), 1, `std at ${t}`);
    }
  });

  it('comes back to exactly 0 after a spike leaves a window of zeros', () => {
    // A closed market after a huge print: the running values must not keep the spike's rounding.
    const x = new Float64Array(200);
    for (let t = 0; t < 50; t++) x[t] = 0.1 + (t % 7) * 0.37;
    x[50] = 3.7e9;
    const sums = rollingSum(x, 20);
    const { mean, std } = rollingMeanStd(x, 20);
    for (let t = 70; t < 200; t++) {
      expect(sums[t]).toBe(0);
      expect(mean[t]).toBe(0);
      expect(std[t]).toBe(0);
    }
  });

  it('gives a standard deviation of exactly 0 for a window of identical values', () => {
    // 0.1 · 3 / 3 is not 0.1 in binary: a plain mean would leave a tiny spread.
    const x = Float64Array.from([5, 1, 0.1, 0.1, 0.1, 0.1, 0.1, 2, 0.1, 0.1, 0.1]);
    const { std } = rollingMeanStd(x, 3);
    expect(Array.from(std.subarray(4, 7))).toEqual([0, 0, 0]);
    expect(std[7]).toBeGreaterThan(0);
    expect(std[10]).toBe(0);
  });

  it('rejects a window it cannot compute', () => {
    const x = new Float64Array(10);
    expect(errorOf(() => rollingSum(x, 0)).code).toBe('INVALID_ARGUMENT');
    expect(errorOf(() => rollingSum(x, 2.5)).message).toMatch(/rolling window must be an integer/);
    expect(errorOf(() => rollingMeanStd(x, 1, { ddof: 1 })).message).toMatch(/from 2/);
    expect(errorOf(() => rollingSum(x, 3, -1)).message).toMatch(/rolling start/);
  });
});

describe('seeded smoothing', () => {
  it('seeds with the simple average, then follows the recursion', () => {
    // EMA(3): alpha = 2 / 4 = 0.5. Seed at bar 2: (1 + 2 + 3) / 3 = 2; bar 3: 2 + 0.5 · (4 − 2) = 3;
    // bar 4: 3 + 0.5 · (8 − 3) = 5.5.
    expect(Array.from(ema(Float64Array.from([1, 2, 3, 4, 8]), 3))).toEqual([NaN, NaN, 2, 3, 5.5]);
    // Wilder(2) from bar 1: seed at bar 2 = (2 + 3) / 2 = 2.5; bar 3: 2.5 + (4 − 2.5) / 2 = 3.25;
    // bar 4: 3.25 + (8 − 3.25) / 2 = 5.625.
    expect(Array.from(wilderSmoothing(Float64Array.from([1, 2, 3, 4, 8]), 2, 1))).toEqual([
      NaN,
      NaN,
      2.5,
      3.25,
      5.625,
    ]);
  });

  it('is all NaN when the series is shorter than the seed', () => {
    expect(Array.from(ema(Float64Array.from([1, 2]), 3))).toEqual([NaN, NaN]);
  });
});
