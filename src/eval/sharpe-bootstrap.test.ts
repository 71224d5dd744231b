import { describe, expect, it } from 'vitest';
import { Rng } from '../core/random.js';
import { bootstrapSharpeDifference } from './sharpe-bootstrap.js';

/** An equity curve from per-bar log returns. */
function curve(returns: ArrayLike<number>): Float64Array {
  const out = new Float64Array(returns.length + 1);
  out[0] = 1;
  for (let i = 0; i < returns.length; i++)
    out[i + 1] = (out[i] as number) * Math.exp(returns[i] as number);
  return out;
}

describe('the block bootstrap of a Sharpe difference', () => {
  const rng = new Rng(7);
  const market = Float64Array.from({ length: 4000 }, () => 0.0002 + 0.01 * rng.normal());
  const hold = curve(market);

  it('finds a strategy with a planted edge ahead, its whole interval above 0', () => {
    // The market plus a steady 0.05% a bar: a Sharpe about 0.05 · √252 ≈ 0.8 higher.
    const edge = curve(market.map((r) => r + 0.0005));
    const result = bootstrapSharpeDifference(edge, hold, { periodsPerYear: 252 });
    expect(result.difference).toBeGreaterThan(0.5);
    expect(result.lower).toBeGreaterThan(0);
    expect(result.upper).toBeGreaterThan(result.difference);
    expect(result.shareAhead).toBe(1);
    expect(result).toMatchObject({
      blockLength: 16,
      resamples: 1000,
      bars: 4000,
      confidence: 0.95,
    });
  });

  it('puts 0 inside the interval for a strategy that is noise, and is the same for the same seed', () => {
    const other = new Rng(8);
    const noise = curve(Float64Array.from({ length: 4000 }, () => 0.0002 + 0.01 * other.normal()));
    const result = bootstrapSharpeDifference(noise, hold, { periodsPerYear: 252, seed: 4 });
    expect(result.lower).toBeLessThan(0);
    expect(result.upper).toBeGreaterThan(0);
    expect(result.shareAhead).toBeGreaterThan(0.02);
    expect(result.shareAhead).toBeLessThan(0.98);
    expect(bootstrapSharpeDifference(noise, hold, { periodsPerYear: 252, seed: 4 })).toEqual(
      result,
    );
    // The same curve against itself: every resample is a difference of 0.
    const same = bootstrapSharpeDifference(hold, hold, { periodsPerYear: 252, resamples: 50 });
    expect([same.difference, same.lower, same.upper, same.shareAhead]).toEqual([0, 0, 0, 0]);
  });

  it('refuses curves of different bars, too short, or ruined', () => {
    expect(() =>
      bootstrapSharpeDifference([1, 1.1, 1.2], [1, 1.1], { periodsPerYear: 252 }),
    ).toThrow(/same bars, at least 3 values each; got 3 and 2/);
    expect(() =>
      bootstrapSharpeDifference([1, 0, 1], [1, 1.1, 1.2], { periodsPerYear: 252 }),
    ).toThrow(/the strategy’s equity must stay above 0 .* value 1 is 0/);
  });
});
