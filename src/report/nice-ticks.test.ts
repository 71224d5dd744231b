import { describe, expect, it } from 'vitest';
import { isTradelabError } from '../core/index.js';
import { logTicks, niceTicks } from './nice-ticks.js';

// Deterministic pseudo-random numbers in [0, 1) (mulberry32).
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function isNiceStep(step: number): boolean {
  const mantissa = step / 10 ** Math.floor(Math.log10(step));
  return [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-9);
}

describe('niceTicks', () => {
  it('covers the data range with 1/2/5 × 10^k steps and at most maxTicks values', () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 500; trial++) {
      const scale = 10 ** Math.floor(random() * 12 - 6);
      const a = (random() - 0.5) * 100 * scale;
      const b = a + random() * 50 * scale + 1e-9;
      const maxTicks = 3 + Math.floor(random() * 8);
      const ticks = niceTicks(a, b, maxTicks);
      expect(ticks.min).toBeLessThanOrEqual(a);
      expect(ticks.max).toBeGreaterThanOrEqual(b);
      expect(ticks.values.length).toBeLessThanOrEqual(maxTicks);
      expect(ticks.values.length).toBeGreaterThanOrEqual(2);
      expect(isNiceStep(ticks.step)).toBe(true);
      expect(ticks.values[0]).toBe(ticks.min);
      expect(ticks.values.at(-1)).toBe(ticks.max);
    }
  });
  it('gives round values without floating-point noise', () => {
    const ticks = niceTicks(0.1, 0.7, 8);
    expect(ticks.values).toEqual([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]);
  });
  it('picks familiar steps for equity-like ranges', () => {
    expect(niceTicks(9_432, 12_871, 6)).toMatchObject({ min: 9_000, max: 13_000, step: 1_000 });
  });
  it('widens a constant range so it still has an axis', () => {
    const ticks = niceTicks(100, 100, 6);
    expect(ticks.min).toBeLessThan(100);
    expect(ticks.max).toBeGreaterThan(100);
    expect(niceTicks(0, 0).values).toContain(0);
  });
  it('rejects non-finite or reversed bounds', () => {
    expect(() => niceTicks(Number.NaN, 1)).toThrow(/no ticks/);
    let caught: unknown;
    try {
      niceTicks(2, 1);
    } catch (error) {
      caught = error;
    }
    expect(isTradelabError(caught, 'INVALID_ARGUMENT')).toBe(true);
  });
});

describe('logTicks', () => {
  it('uses powers of ten over several decades', () => {
    expect(logTicks(1, 1e6, 8).values).toEqual([1, 10, 100, 1000, 10000, 100000, 1000000]);
  });
  it('thins decades to stay within maxTicks', () => {
    const values = logTicks(1e-3, 1e9, 5).values;
    expect(values.length).toBeLessThanOrEqual(5);
    expect(values[0]).toBe(0.001);
  });
  it('adds 2 and 5 multiples over a decade or two', () => {
    expect(logTicks(3, 70, 8).values).toEqual([5, 10, 20, 50]);
  });
  it('falls back to round linear values inside a single decade', () => {
    const ticks = logTicks(9_000, 12_500, 6);
    expect(ticks.values).toEqual([9_000, 10_000, 11_000, 12_000]);
    expect(ticks.step).toBe(1_000);
  });
  it('prefers denser round linear values when 1-2-5 would leave two ticks', () => {
    expect(logTicks(7_500, 46_000, 6).values).toEqual([10_000, 20_000, 30_000, 40_000]);
  });
  it('rejects a range that reaches zero', () => {
    expect(() => logTicks(0, 10)).toThrow(/log ticks/);
  });
});
