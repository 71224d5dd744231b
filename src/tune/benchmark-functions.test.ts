import { describe, expect, it } from 'vitest';
import { Rng } from '../core/random.js';
import { BENCHMARK_FUNCTIONS, branin, hartmann6, quadratic10 } from './benchmark-functions.js';

describe('benchmark functions', () => {
  it('attain their known minima', () => {
    expect(branin.evaluate([-Math.PI, 12.275])).toBeCloseTo(0.397887, 6);
    expect(branin.evaluate([Math.PI, 2.275])).toBeCloseTo(0.397887, 6);
    expect(branin.evaluate([9.42478, 2.475])).toBeCloseTo(0.397887, 6);
    expect(hartmann6.evaluate(hartmann6.argmin)).toBeCloseTo(-3.32237, 5);
    expect(quadratic10.evaluate(quadratic10.argmin)).toBe(0);
    for (const fn of BENCHMARK_FUNCTIONS) {
      expect(fn.evaluate(fn.argmin)).toBeCloseTo(fn.minimum, 6);
      fn.argmin.forEach((x, i) => {
        const [low, high] = fn.bounds[i] ?? [Number.NaN, Number.NaN];
        expect(x >= low && x <= high).toBe(true);
      });
    }
  });

  it('are nowhere below their minima (random points and local perturbations)', () => {
    const rng = new Rng(1);
    for (const fn of BENCHMARK_FUNCTIONS) {
      for (let i = 0; i < 5000; i++) {
        const x = fn.bounds.map(([low, high]) => low + (high - low) * rng.uniform());
        expect(fn.evaluate(x)).toBeGreaterThanOrEqual(fn.minimum - 1e-9);
      }
      for (let i = 0; i < 500; i++) {
        const x = fn.argmin.map((v, d) => {
          const [low, high] = fn.bounds[d] ?? [0, 0];
          return Math.min(high, Math.max(low, v + 1e-3 * rng.normal()));
        });
        expect(fn.evaluate(x)).toBeGreaterThanOrEqual(fn.minimum - 1e-9);
      }
    }
  });

  it('have the documented dimensions', () => {
    expect(BENCHMARK_FUNCTIONS.map((f) => [f.name, f.bounds.length])).toEqual([
      ['branin', 2],
      ['hartmann6', 6],
      ['quadratic10', 10],
    ]);
  });
});
