import { describe, expect, it } from 'vitest';
import { Rng } from '../core/random.js';
import { deflatedSharpe, expectedMaxSharpe, returnMoments } from './deflated-sharpe.js';
import { inverseNormalCdf, normalCdf } from './normal-distribution.js';

describe('the normal distribution', () => {
  it('has the CDF values of the tables and an inverse that undoes it', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959963985)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-2.326347874)).toBeCloseTo(0.01, 6);
    expect(inverseNormalCdf(0.975)).toBeCloseTo(1.959963985, 6);
    expect(inverseNormalCdf(0.01)).toBeCloseTo(-2.326347874, 6);
    for (const p of [1e-6, 0.02, 0.3, 0.5, 0.77, 0.999])
      expect(normalCdf(inverseNormalCdf(p))).toBeCloseTo(p, 6);
    expect(inverseNormalCdf(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(inverseNormalCdf(1.5)).toBeNaN();
  });
});

describe('the deflated Sharpe ratio', () => {
  it("reproduces Bailey and López de Prado's example: 0.9004", () => {
    // Annual SR 2.5 over 1,250 daily returns, skew −3, kurtosis 10, 100 trials whose annual SRs
    // vary by 0.5 (the paper's numbers, per day here).
    const result = deflatedSharpe({
      sharpe: 2.5 / Math.sqrt(250),
      bars: 1250,
      skewness: -3,
      kurtosis: 10,
      trials: 100,
      trialSharpeVariance: 0.5 / 250,
    });
    expect(result.expectedMaxSharpe * Math.sqrt(250)).toBeCloseTo(1.7894, 3);
    expect(result.probability).toBeCloseTo(0.9004, 3);
  });

  it('demands more of a trial chosen among more, and is the plain PSR for one', () => {
    const base = { sharpe: 0.05, bars: 2000, skewness: 0, kurtosis: 3, trialSharpeVariance: 4e-4 };
    const one = deflatedSharpe({ ...base, trials: 1 });
    expect(one.expectedMaxSharpe).toBe(0);
    // PSR against 0 for a normal: Φ(SR √(T − 1) / √(1 + SR²/2)).
    expect(one.probability).toBeCloseTo(
      normalCdf((0.05 * Math.sqrt(1999)) / Math.sqrt(1 + 0.05 ** 2 / 2)),
      9,
    );
    const ten = deflatedSharpe({ ...base, trials: 10 });
    const thousand = deflatedSharpe({ ...base, trials: 1000 });
    expect(ten.probability).toBeLessThan(one.probability);
    expect(thousand.probability).toBeLessThan(ten.probability);
    expect(expectedMaxSharpe(1000, 4e-4)).toBeGreaterThan(expectedMaxSharpe(10, 4e-4));
  });

  it('measures the moments of returns, and refuses what it cannot deflate', () => {
    const rng = new Rng(3);
    const normal = Float64Array.from({ length: 200_000 }, () => 0.001 + 0.01 * rng.normal());
    const moments = returnMoments(normal);
    expect(moments.sharpe).toBeCloseTo(0.1, 2);
    expect(moments.skewness).toBeCloseTo(0, 1);
    expect(moments.kurtosis).toBeCloseTo(3, 1);
    expect(returnMoments([0.01, 0.01, 0.01])).toEqual({
      sharpe: 0,
      skewness: 0,
      kurtosis: 3,
      bars: 3,
    });
    expect(() =>
      deflatedSharpe({
        sharpe: Number.NaN,
        bars: 10,
        skewness: 0,
        kurtosis: 3,
        trials: 2,
        trialSharpeVariance: 0,
      }),
    ).toThrow(/deflated Sharpe: sharpe is NaN/);
    expect(() =>
      deflatedSharpe({
        sharpe: 0.1,
        bars: 1,
        skewness: 0,
        kurtosis: 3,
        trials: 2,
        trialSharpeVariance: 0,
      }),
    ).toThrow(/at least 2 returns and 1 trial, got 1 and 2/);
  });
});
