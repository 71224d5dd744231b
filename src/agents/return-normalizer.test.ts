import { describe, expect, it } from 'vitest';
import { ReturnNormalizer, type ReturnStatistics } from './return-normalizer.js';

/** Population variance with cleanrl's pseudo-count: a prior of variance 1, mean 0 at count 1e-4. */
function expectedVariance(values: number[]): number {
  const prior = 1e-4;
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const squares = values.reduce((s, v) => s + (v - mean) ** 2, 0);
  const total = prior + n;
  return (prior * 1 + squares + (mean * mean * prior * n) / total) / total;
}

describe('ReturnNormalizer', () => {
  it('divides rewards by the running standard deviation of every env’s discounted return', () => {
    const gamma = 0.9;
    const normalizer = new ReturnNormalizer(2, gamma);
    const steps = [
      [0.01, -0.02],
      [0.03, 0.01],
      [-0.01, 0.02],
    ];
    const seen: number[] = [];
    const returns = [0, 0];
    for (const step of steps) {
      for (let e = 0; e < 2; e++) {
        returns[e] = (returns[e] as number) * gamma + (step[e] as number);
        seen.push(returns[e] as number);
      }
      const rewards = Float32Array.from(step);
      normalizer.scale(rewards, [1, 1], [0, 0]);
      const variance = expectedVariance(seen);
      expect(normalizer.statistics().variance).toBeCloseTo(variance, 9); // rewards are float32
      for (let e = 0; e < 2; e++)
        expect(rewards[e]).toBeCloseTo((step[e] as number) / Math.sqrt(variance + 1e-8), 4);
    }
    expect(normalizer.statistics().count).toBeCloseTo(6 + 1e-4, 9);
  });

  it('skips autoreset steps, restarts a sum when its episode ends, and clips at 10 sd', () => {
    const normalizer = new ReturnNormalizer(2, 0.5);
    const first = Float32Array.from([1, 5]);
    normalizer.scale(first, [1, 0], [1, 0]);
    // Env 1's step was an autoreset: not counted, so one return (1) has been seen.
    expect(normalizer.statistics().count).toBeCloseTo(1 + 1e-4, 9);
    const second = Float32Array.from([2, 0]);
    normalizer.scale(second, [1, 1], [0, 0]);
    // Env 0's episode ended: its sum restarts at 2 (not 0.5 · 1 + 2); env 1 starts at 0.
    const variance = expectedVariance([1, 2, 0]);
    expect(normalizer.statistics().variance).toBeCloseTo(variance, 12);
    // After a long calm (sd 0.001 over a million returns) a shock is clipped, not 1000 sd.
    const calm = new ReturnNormalizer(2, 0.5, { count: 1e6, mean: 0, variance: 1e-6 });
    const shock = Float32Array.from([1, -0.0005]);
    calm.scale(shock, [1, 1], [0, 0]);
    expect(shock[0]).toBe(10);
    const sd = Math.sqrt(calm.statistics().variance + 1e-8);
    expect(sd).toBeLessThan(0.002);
    expect(shock[1]).toBeCloseTo(Math.fround(-0.0005) / sd, 5);
  });

  it('continues from saved statistics exactly as one that never stopped', () => {
    const rewards = (t: number): Float32Array => Float32Array.from([Math.sin(t) / 100, t / 1000]);
    const straight = new ReturnNormalizer(2, 0.99);
    for (let t = 0; t < 10; t++) straight.scale(rewards(t), [1, 1], [0, 0]);
    straight.resetEpisodes();
    const first = new ReturnNormalizer(2, 0.99);
    for (let t = 0; t < 10; t++) first.scale(rewards(t), [1, 1], [0, 0]);
    const resumed = new ReturnNormalizer(
      2,
      0.99,
      JSON.parse(JSON.stringify(first.statistics())) as ReturnStatistics,
    );
    for (let t = 10; t < 20; t++) {
      const a = rewards(t);
      const b = rewards(t);
      straight.scale(a, [1, 1], [0, 0]);
      resumed.scale(b, [1, 1], [0, 0]);
      expect(Array.from(b)).toEqual(Array.from(a));
    }
    expect(resumed.statistics()).toEqual(straight.statistics());
  });
});
