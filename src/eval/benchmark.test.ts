import { describe, expect, it } from 'vitest';
import { buyAndHoldEquity, excessMetrics } from './benchmark.js';
import { simpleReturns } from './returns.js';

// Two assets, close prices per bar (row-major T × 2):
//   bar 0: A 10,   B 20
//   bar 1: A 11,   B 18
//   bar 2: A 13.2, B 18
//   bar 3: A 13.2, B 27
const prices = Float64Array.of(10, 20, 11, 18, 13.2, 18, 13.2, 27);

describe('buyAndHoldEquity', () => {
  it('values equal-weight holdings bought at the close of start', () => {
    // 1000 cash: 500 / 10 = 50 A, 500 / 20 = 25 B
    // bar 1: 50·11 + 25·18 = 550 + 450 = 1000
    // bar 2: 50·13.2 + 25·18 = 660 + 450 = 1110
    // bar 3: 50·13.2 + 25·27 = 660 + 675 = 1335
    const equity = buyAndHoldEquity(prices, 2, { start: 0, end: 4, initialCash: 1000 });
    expect(equity.length).toBe(4);
    [1000, 1000, 1110, 1335].forEach((v, i) => {
      expect(equity[i]).toBeCloseTo(v, 9);
    });
  });

  it('has drifting-weight returns Σ w_i,t−1 · p_i,t / p_i,t−1 − 1, not inverted', () => {
    const r = simpleReturns(buyAndHoldEquity(prices, 2, { start: 0, end: 4, initialCash: 1000 }));
    // bar 1: 0.5·1.1 + 0.5·0.9 − 1 = 0
    expect(r[0]).toBeCloseTo(0, 12);
    // bar 2: weights drifted to 550/1000, 450/1000: 0.55·1.2 + 0.45·1 − 1 = 0.11
    // (an equal-weight average of returns, rebalanced, would say 0.10)
    expect(r[1]).toBeCloseTo(0.11, 12);
    // bar 3: weights 660/1110, 450/1110: (660·1 + 450·1.5) / 1110 − 1 = 1335/1110 − 1 = 0.202703
    expect(r[2]).toBeCloseTo(1335 / 1110 - 1, 12);
    // rising prices make a rising benchmark
    expect(r[2]).toBeGreaterThan(0);
  });

  it('pays the fee once, in the first bar, and starts later in the array', () => {
    // start 1, 10 bps: 1000 · 0.999 = 999 spent, 499.5 per asset at A 11, B 18
    // bar 2: 499.5 · 13.2/11 + 499.5 · 18/18 = 599.4 + 499.5 = 1098.9
    // bar 3: 599.4 + 499.5 · 27/18 = 599.4 + 749.25 = 1348.65
    const equity = buyAndHoldEquity(prices, 2, { start: 1, end: 4, initialCash: 1000, feeBps: 10 });
    [1000, 1098.9, 1348.65].forEach((v, i) => {
      expect(equity[i]).toBeCloseTo(v, 9);
    });
  });

  it('defaults to 1 unit of cash and a one-bar range is just the cash', () => {
    expect([...buyAndHoldEquity(prices, 2, { start: 2, end: 3 })]).toEqual([1]);
  });

  it('rejects bad shapes, ranges, fees and prices', () => {
    expect(() => buyAndHoldEquity(prices, 3, { start: 0, end: 2 })).toThrow(/does not divide/);
    expect(() => buyAndHoldEquity(prices, 2, { start: 2, end: 2 })).toThrow(/range/);
    expect(() => buyAndHoldEquity(prices, 2, { start: 0, end: 5 })).toThrow(/range/);
    expect(() => buyAndHoldEquity(prices, 2, { start: 0, end: 2, feeBps: -1 })).toThrow(/feeBps/);
    const zero = Float64Array.of(0, 1, 1, 1);
    expect(() => buyAndHoldEquity(zero, 2, { start: 0, end: 2 })).toThrow(/positive price/);
  });
});

describe('excessMetrics', () => {
  it('is flat with no drawdown when the strategy is the benchmark', () => {
    const b = buyAndHoldEquity(prices, 2, { start: 0, end: 4, initialCash: 1000 });
    const m = excessMetrics(b, b, 252);
    expect(m.totalReturn).toBeCloseTo(0, 12);
    expect(m.sharpe).toBe(0);
    expect(m.flags).toEqual(['zero-variance', 'no-drawdown', 'no-nonzero-returns']);
  });

  it('uses excess log returns: ln(S_t/S_t−1) − ln(B_t/B_t−1)', () => {
    // strategy 1 → 1.1 → 1.21, benchmark 100 → 100 → 110 (scale does not matter)
    // excess log returns: ln 1.1 − 0 = 0.0953102, ln 1.1 − ln 1.1 = 0
    // relative wealth 1 → 1.1 → 1.1: total excess 0.1
    // information ratio = mean / std · √ppy = (ln1.1 / 2) / (ln1.1 / √2) · √252 = √2 / 2 · √252
    const m = excessMetrics(Float64Array.of(1, 1.1, 1.21), Float64Array.of(100, 100, 110), 252);
    expect(m.totalReturn).toBeCloseTo(0.1, 12);
    expect(m.sharpe).toBeCloseTo((Math.SQRT2 / 2) * Math.sqrt(252), 9);
    // tracking error = std · √ppy = ln 1.1 / √2 · √252
    expect(m.annualizedVolatility).toBeCloseTo((Math.log(1.1) / Math.SQRT2) * Math.sqrt(252), 9);
  });

  it('measures underperformance as a relative drawdown', () => {
    // strategy flat at 1, benchmark 1 → 2 → 1: relative wealth 1 → 0.5 → 1, drawdown 50 % at index 1
    const m = excessMetrics(Float64Array.of(1, 1, 1), Float64Array.of(1, 2, 1), 252);
    expect(m.maxDrawdown).toBeCloseTo(0.5, 12);
    expect(m.drawdownTroughIndex).toBe(1);
  });

  it('rejects curves of different lengths', () => {
    expect(() => excessMetrics(Float64Array.of(1, 2), Float64Array.of(1), 252)).toThrow(
      /has 2 values and benchmark equity 1/,
    );
  });
});
