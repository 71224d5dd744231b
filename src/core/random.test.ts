import { describe, expect, it } from 'vitest';
import { errorOf } from '../../test/support/assertions.js';
import { Rng } from './random.js';

function draws(n: number, next: () => number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = next();
  return out;
}

/** Mean, variance and kurtosis (not excess) of a sample. */
function moments(xs: Float64Array): { mean: number; variance: number; kurtosis: number } {
  let sum = 0;
  for (const x of xs) sum += x;
  const mean = sum / xs.length;
  let m2 = 0;
  let m4 = 0;
  for (const x of xs) {
    const d = (x - mean) ** 2;
    m2 += d;
    m4 += d * d;
  }
  m2 /= xs.length;
  m4 /= xs.length;
  return { mean, variance: m2, kurtosis: m4 / (m2 * m2) };
}

function fractionAbove(xs: Float64Array, threshold: number): number {
  let count = 0;
  for (const x of xs) if (Math.abs(x) > threshold) count++;
  return count / xs.length;
}

describe('Rng', () => {
  it('implements xoshiro128** (reference outputs of the C code from state 1, 2, 3, 4)', () => {
    const rng = Rng.fromState(1, 2, 3, 4);
    const expected = [11520, 0, 5927040, 70819200, 2031721883, 1637235492, 1287239034, 3734860849];
    expect(expected.map(() => rng.nextUint32())).toEqual(expected);
  });

  it('gives the same sequence for a seed on every platform (golden values)', () => {
    const rng = new Rng(42);
    expect([rng.nextUint32(), rng.nextUint32(), rng.nextUint32(), rng.nextUint32()]).toEqual([
      3425869113, 591758768, 3805508139, 3951741185,
    ]);
    const stream = new Rng(42, 7, 3);
    expect([stream.nextUint32(), stream.nextUint32()]).toEqual([1819792511, 2352666881]);
    expect(new Rng(-1).nextUint32()).toBe(3459034105);
    expect(new Rng(2 ** 40).nextUint32()).toBe(1679429323);
  });

  it('repeats a (seed, stream) exactly and separates different ones', () => {
    const a = new Rng(7, 1, 2);
    const b = new Rng(7, 1, 2);
    expect(draws(1000, () => a.normal())).toEqual(draws(1000, () => b.normal()));
    const firsts = [
      new Rng(7),
      new Rng(7, 0),
      new Rng(7, 1),
      new Rng(7, 0, 1),
      new Rng(7, 1, 0),
      new Rng(8),
    ];
    const values = new Set(firsts.map((r) => r.nextUint32()));
    expect(values.size).toBe(firsts.length);
  });

  it('gives uncorrelated sub-streams', () => {
    const n = 200_000;
    const s1 = new Rng(1, 10);
    const s2 = new Rng(1, 11);
    const x = draws(n, () => s1.normal());
    const y = draws(n, () => s2.normal());
    let cross = 0;
    for (let i = 0; i < n; i++) cross += (x[i] ?? 0) * (y[i] ?? 0);
    expect(Math.abs(cross / n)).toBeLessThan(4 / Math.sqrt(n));
  });

  it('draws uniforms in [0, 1) with mean 1/2 and variance 1/12', () => {
    const rng = new Rng(3);
    const xs = draws(200_000, () => rng.uniform());
    expect(xs.reduce((a, b) => Math.min(a, b))).toBeGreaterThanOrEqual(0);
    expect(xs.reduce((a, b) => Math.max(a, b))).toBeLessThan(1);
    const { mean, variance } = moments(xs);
    expect(mean).toBeCloseTo(0.5, 2);
    expect(variance).toBeCloseTo(1 / 12, 3);
  });

  it('draws standard normals, tails included', () => {
    const rng = new Rng(4);
    const n = 2_000_000;
    const xs = draws(n, () => rng.normal());
    const { mean, variance, kurtosis } = moments(xs);
    expect(Math.abs(mean)).toBeLessThan(4 / Math.sqrt(n));
    expect(Math.abs(variance - 1)).toBeLessThan(4 * Math.sqrt(2 / n));
    expect(Math.abs(kurtosis - 3)).toBeLessThan(0.03);
    // Two-sided normal tail probabilities, with the ziggurat's tail beyond 3.4426 among them.
    for (const [z, p] of [
      [1, 0.317311],
      [1.959964, 0.05],
      [3, 0.0026998],
      [3.5, 0.00046526],
    ] as const) {
      const se = Math.sqrt((p * (1 - p)) / n);
      expect(Math.abs(fractionAbove(xs, z) - p)).toBeLessThan(5 * se);
    }
  });

  it('draws unit-variance Student-t values with fat tails', () => {
    const rng = new Rng(5);
    const n = 1_000_000;
    const xs = draws(n, () => rng.studentT(5));
    const { mean, variance, kurtosis } = moments(xs);
    expect(Math.abs(mean)).toBeLessThan(0.005);
    expect(variance).toBeGreaterThan(0.97);
    expect(variance).toBeLessThan(1.03);
    expect(kurtosis).toBeGreaterThan(5); // 9 in theory; the sample value converges slowly
    // P(|t5| > 2.570582) = 0.05; scaled to unit variance by √(3/5).
    const p = fractionAbove(xs, 2.570582 * Math.sqrt(3 / 5));
    expect(Math.abs(p - 0.05)).toBeLessThan(5 * Math.sqrt((0.05 * 0.95) / n));
  });

  it('rejects Student-t degrees of freedom without a finite variance', () => {
    const rng = new Rng(1);
    expect(errorOf(() => rng.studentT(2)).code).toBe('INVALID_ARGUMENT');
    expect(errorOf(() => rng.studentT(Number.NaN)).message).toMatch(/degrees of freedom NaN/);
  });

  it('draws exponentials with mean 1', () => {
    const rng = new Rng(6);
    const xs = draws(500_000, () => rng.exponential());
    expect(xs.reduce((a, b) => Math.min(a, b), Infinity)).toBeGreaterThan(0);
    const { mean, variance } = moments(xs);
    expect(mean).toBeCloseTo(1, 2);
    expect(variance).toBeCloseTo(1, 1);
  });

  it('rejects a seed that is not an integer', () => {
    expect(errorOf(() => new Rng(1.5)).message).toMatch(/seed 1.5 is not allowed/);
    expect(errorOf(() => new Rng(1, Number.NaN)).message).toMatch(/stream id NaN/);
  });
});
