import { describe, expect, it } from 'vitest';
import { errorOf } from '../../test/support/assertions.js';
import {
  HAR_WARMUP,
  fitHar,
  fitOls,
  harFeatures,
  harRows,
  predictHar,
  solveLinearSystem,
  type HarRows,
} from './har-features.js';
import { forwardRealizedVariance } from './realized-vol.js';

/** Deterministic uniform [0, 1) numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal draws (Box-Muller). */
function normal(next: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}

/** A persistent, positive daily RV series (log RV an AR(1) around log 1e-4). */
function rvSeries(n: number, seed: number): Float64Array {
  const z = normal(rng(seed));
  const out = new Float64Array(n);
  let x = 0;
  for (let i = 0; i < n; i++) {
    x = 0.95 * x + 0.3 * z();
    out[i] = 1e-4 * Math.exp(x);
  }
  return out;
}

describe('harFeatures', () => {
  it('gives log RV, log 5-day mean and log 22-day mean, NaN during the 21-day warm-up', () => {
    const rv = Float64Array.from({ length: 30 }, (_, i) => i + 1); // rv[d] = d + 1
    const { daily, weekly, monthly } = harFeatures(rv);
    expect(HAR_WARMUP).toBe(21);
    for (let d = 0; d < 21; d++) {
      expect([daily[d], weekly[d], monthly[d]].every(Number.isNaN)).toBe(true);
    }
    // Day 21: rv 22; week = mean(18, 19, 20, 21, 22) = 20; month = mean(1 … 22) = 11.5.
    expect(daily[21]).toBeCloseTo(Math.log(22), 14);
    expect(weekly[21]).toBeCloseTo(Math.log(20), 14);
    expect(monthly[21]).toBeCloseTo(Math.log(11.5), 14);
    // Day 29: rv 30; week = mean(26 … 30) = 28; month = mean(9 … 30) = 19.5.
    expect(weekly[29]).toBeCloseTo(Math.log(28), 14);
    expect(monthly[29]).toBeCloseTo(Math.log(19.5), 14);
  });

  it('is causal: changing days after d leaves every feature at d unchanged', () => {
    const rv = rvSeries(60, 1);
    const base = harFeatures(rv);
    for (let d = 0; d < rv.length - 1; d++) {
      const changed = Float64Array.from(rv);
      for (let j = d + 1; j < rv.length; j++) changed[j] = (changed[j] ?? 0) * 3;
      const f = harFeatures(changed);
      expect([f.daily[d], f.weekly[d], f.monthly[d]]).toEqual([
        base.daily[d],
        base.weekly[d],
        base.monthly[d],
      ]);
    }
  });
});

describe('harRows', () => {
  it('aligns the features at day d with log of the mean RV over d+1 … d+h, dropping NaN rows', () => {
    const rv = rvSeries(100, 2);
    rv[60] = 0; // log 0 = -Infinity: rows using day 60 as their daily feature are dropped
    const rows = harRows(rv, 22);
    const features = harFeatures(rv);
    const target = forwardRealizedVariance(rv, 22);
    // Days 21 … 77 have features and a target (100 - 22 = 78 days have a target); day 60 has
    // log RV = -Infinity and no other row is affected (means stay positive).
    const expectedDays = Array.from({ length: 57 }, (_, i) => 21 + i).filter((d) => d !== 60);
    expect(Array.from(rows.index)).toEqual(expectedDays);
    expect(rows.rows).toBe(56);
    rows.index.forEach((d, r) => {
      expect(rows.x[r * 3]).toBe(features.daily[d]);
      expect(rows.x[r * 3 + 1]).toBe(features.weekly[d]);
      expect(rows.x[r * 3 + 2]).toBe(features.monthly[d]);
      expect(rows.y[r]).toBe(Math.log(target[d] ?? Number.NaN));
    });
  });
});

describe('fitOls', () => {
  it('fits a line through three points (hand-computed)', () => {
    // x = 0, 1, 2; y = 1, 2, 4: x̄ = 1, ȳ = 7/3, Sxy = (-1)(-4/3) + 0 + (1)(5/3) = 3, Sxx = 2,
    // slope = 3/2, intercept = 7/3 - 3/2 = 5/6.
    const beta = fitOls(Float64Array.from([0, 1, 2]), Float64Array.from([1, 2, 4]), 1);
    expect(beta[0]).toBeCloseTo(5 / 6, 14);
    expect(beta[1]).toBeCloseTo(1.5, 14);
  });

  it('refuses too few rows', () => {
    expect(
      errorOf(() => fitOls(Float64Array.from([0, 1, 2, 3]), Float64Array.from([1, 2]), 2)).message,
    ).toMatch(/needs at least 3 rows, got 2/);
  });
});

describe('solveLinearSystem', () => {
  it('pivots past a zero on the diagonal', () => {
    // [0 1; 1 1] x = [1; 2] → x = [1; 1]; without row exchange the first pivot is 0.
    const x = solveLinearSystem(Float64Array.from([0, 1, 1, 1]), Float64Array.from([1, 2]), 2);
    expect(x[0]).toBeCloseTo(1, 15);
    expect(x[1]).toBeCloseTo(1, 15);
  });

  it('solves a 4 × 4 system and leaves its inputs unchanged', () => {
    const a = Float64Array.from([2, 1, -1, 3, 4, -6, 0, 1, -2, 7, 2, 0, 1, 1, 1, 1]);
    const expected = [1, -2, 3, 0.5];
    const b = Float64Array.from(
      [0, 1, 2, 3].map((i) => expected.reduce((s, x, j) => s + (a[i * 4 + j] ?? 0) * x, 0)),
    );
    const before = [Array.from(a), Array.from(b)];
    const x = solveLinearSystem(a, b, 4);
    for (const [i, v] of expected.entries()) expect(x[i]).toBeCloseTo(v, 12);
    expect([Array.from(a), Array.from(b)]).toEqual(before);
  });

  it('reports a singular system', () => {
    const error = errorOf(() =>
      solveLinearSystem(Float64Array.from([1, 2, 2, 4]), Float64Array.from([1, 2]), 2),
    );
    expect(error.code).toBe('DATA_INVALID');
    expect(error.message).toMatch(/singular/);
  });
});

describe('fitHar and predictHar', () => {
  it('recovers known coefficients from synthetic HAR rows', () => {
    const next = rng(3);
    const z = normal(next);
    const n = 2000;
    const x = new Float64Array(n * 3);
    const y = new Float64Array(n);
    const truth = [-0.8, 0.35, 0.4, 0.15];
    for (let r = 0; r < n; r++) {
      // Correlated features, like real daily/weekly/monthly log RV.
      const level = -9 + z();
      const a = level + 0.5 * z();
      const b = level + 0.3 * z();
      const c = level + 0.2 * z();
      x.set([a, b, c], r * 3);
      y[r] =
        (truth[0] ?? 0) +
        (truth[1] ?? 0) * a +
        (truth[2] ?? 0) * b +
        (truth[3] ?? 0) * c +
        0.01 * z();
    }
    const data: HarRows = { x, y, index: Int32Array.from({ length: n }, (_, i) => i), rows: n };
    const model = fitHar(data);
    expect(model.intercept).toBeCloseTo(truth[0] ?? 0, 1);
    expect(Math.abs(model.intercept - (truth[0] ?? 0))).toBeLessThan(0.02);
    expect(Math.abs(model.daily - (truth[1] ?? 0))).toBeLessThan(0.005);
    expect(Math.abs(model.weekly - (truth[2] ?? 0))).toBeLessThan(0.005);
    expect(Math.abs(model.monthly - (truth[3] ?? 0))).toBeLessThan(0.005);
    expect(model.rows).toBe(n);
  });

  it('fits real-shaped RV and predicts NaN during warm-up, the fitted values elsewhere', () => {
    const rv = rvSeries(600, 4);
    const rows = harRows(rv);
    const model = fitHar(rows);
    // A persistent series: today's RV levels carry over (positive total loading), and the forecast
    // beats the mean of y by a clear margin in-sample.
    expect(model.daily + model.weekly + model.monthly).toBeGreaterThan(0.3);
    const predicted = predictHar(model, harFeatures(rv));
    expect(predicted.subarray(0, HAR_WARMUP).every(Number.isNaN)).toBe(true);
    let sse = 0;
    let sst = 0;
    const mean = rows.y.reduce((s, v) => s + v, 0) / rows.rows;
    rows.index.forEach((d, r) => {
      const residual = (rows.y[r] ?? 0) - (predicted[d] ?? Number.NaN);
      sse += residual * residual;
      sst += ((rows.y[r] ?? 0) - mean) ** 2;
    });
    expect(1 - sse / sst).toBeGreaterThan(0.3);
    // OLS with an intercept: residuals sum to zero.
    let residualSum = 0;
    rows.index.forEach((d, r) => (residualSum += (rows.y[r] ?? 0) - (predicted[d] ?? 0)));
    expect(Math.abs(residualSum)).toBeLessThan(1e-8);
  });
});
