/*
 * Does TPE actually beat random search? 100 trials on each benchmark function, 10 seeds each,
 * compared with a one-sided Mann–Whitney U test on the best values found.
 */
import { describe, expect, it } from 'vitest';
import {
  trialRecord,
  type Distribution,
  type ParamValue,
  type TrialRecord,
} from '../../storage/records.js';
import { branin, hartmann6, quadratic10, type BenchmarkFunction } from '../benchmark-functions.js';
import type { Sampler } from '../sampler.js';
import { RandomSampler } from './random-sampler.js';
import { TpeSampler } from './tpe-sampler.js';

const N_TRIALS = 100;
const SEEDS = Array.from({ length: 10 }, (_, i) => i + 1);

/** A minimal ask/tell loop: returns the best value found in `N_TRIALS` trials. */
function optimise(sampler: Sampler, fn: BenchmarkFunction): number {
  const names = fn.bounds.map((_, i) => `x${i}`);
  const dists: Distribution[] = fn.bounds.map(([low, high]) => ({
    type: 'float',
    low,
    high,
    log: false,
    step: null,
  }));
  const trials: TrialRecord[] = [];
  let best = Infinity;
  for (let n = 0; n < N_TRIALS; n++) {
    const trial = trialRecord({ number: n });
    const context = { direction: 'minimize' as const, trials: [...trials], trial };
    const relative: Record<string, ParamValue> = sampler.sampleRelative?.(context) ?? {};
    const x = names.map((name, i) => {
      const dist = dists[i] as Distribution;
      const value = relative[name] ?? sampler.sampleIndependent(context, name, dist);
      trial.params[name] = value;
      trial.distributions[name] = dist;
      return value as number;
    });
    const value = fn.evaluate(x);
    trials.push({ ...trial, state: 'complete', value });
    best = Math.min(best, value);
  }
  return best;
}

/**
 * One-sided Mann–Whitney U test that `a` tends to be smaller than `b`: the exact p-value (by
 * counting rank sums) when there are no ties, else the normal approximation with tie correction.
 */
function mannWhitneyLess(a: readonly number[], b: readonly number[]): number {
  const n1 = a.length;
  const n2 = b.length;
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort(
    (p, q) => p.v - q.v,
  );
  const ranks = new Array<number>(all.length);
  let ties = false;
  let tieTerm = 0;
  for (let i = 0; i < all.length;) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]?.v === all[i]?.v) j++;
    const t = j - i + 1;
    if (t > 1) {
      ties = true;
      tieTerm += t * t * t - t;
    }
    for (let k = i; k <= j; k++) ranks[k] = (i + j) / 2 + 1;
    i = j + 1;
  }
  let rankSumA = 0;
  all.forEach((p, i) => {
    if (p.g === 0) rankSumA += ranks[i] ?? 0;
  });
  const u = rankSumA - (n1 * (n1 + 1)) / 2; // small when a's values are small
  if (!ties) {
    // counts[s] = number of n1-subsets of ranks 1..n1+n2 with U statistic s.
    const maxU = n1 * n2;
    let dp: number[][] = Array.from({ length: n1 + 1 }, () => new Array<number>(maxU + 1).fill(0));
    (dp[0] as number[])[0] = 1;
    for (let item = 0; item < n1 + n2; item++) {
      const next = dp.map((row) => [...row]);
      for (let k = 0; k < n1; k++) {
        const bBefore = item - k; // b items ranked below this one if it joins a as the k+1-th
        if (bBefore < 0 || bBefore > n2) continue;
        const row = dp[k] as number[];
        const target = next[k + 1] as number[];
        for (let s = 0; s + bBefore <= maxU; s++)
          target[s + bBefore] = (target[s + bBefore] ?? 0) + (row[s] ?? 0);
      }
      dp = next;
    }
    const counts = dp[n1] as number[];
    const total = counts.reduce((x, y) => x + y, 0);
    let tail = 0;
    for (let s = 0; s <= Math.floor(u); s++) tail += counts[s] ?? 0;
    return tail / total;
  }
  const n = n1 + n2;
  const mean = (n1 * n2) / 2;
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  const z = (u - mean + 0.5) / Math.sqrt(variance);
  return 0.5 * erfcApprox(-z / Math.SQRT2);
}

function erfcApprox(x: number): number {
  // Abramowitz–Stegun 7.1.26 is plenty for a p-value.
  const t = 1 / (1 + 0.3275911 * Math.abs(x));
  const y =
    t *
    (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const r = y * Math.exp(-x * x);
  return x >= 0 ? r : 2 - r;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((p, q) => p - q);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

function compare(fn: BenchmarkFunction, multivariate: boolean): void {
  const tpe = SEEDS.map((seed) => optimise(new TpeSampler({ seed, multivariate }), fn));
  const random = SEEDS.map((seed) => optimise(new RandomSampler({ seed }), fn));
  const p = mannWhitneyLess(tpe, random);
  console.log(
    `${fn.name}${multivariate ? ' (multivariate)' : ''}: median best TPE ${median(tpe).toPrecision(6)}, random ${median(random).toPrecision(6)}, one-sided Mann–Whitney p = ${p.toPrecision(3)}`,
  );
  expect(median(tpe)).toBeLessThan(median(random));
  expect(p).toBeLessThan(0.05);
}

describe('mannWhitneyLess', () => {
  it('gives the exact tail probability without ties', () => {
    // Complete separation of 3 vs 3: p = 1 / C(6, 3).
    expect(mannWhitneyLess([1, 2, 3], [4, 5, 6])).toBeCloseTo(1 / 20, 12);
    expect(mannWhitneyLess([4, 5, 6], [1, 2, 3])).toBeCloseTo(1, 12);
    // U = 1 (one b below one a): 2 of 20 arrangements.
    expect(mannWhitneyLess([1, 2, 4], [3, 5, 6])).toBeCloseTo(2 / 20, 12);
  });
  it('falls back to the normal approximation with ties', () => {
    const p = mannWhitneyLess([1, 1, 2, 2, 3], [3, 4, 4, 5, 5]);
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.05);
  });
});

describe('TPE beats random search (100 trials, 10 seeds, minimise)', () => {
  it.each([branin, hartmann6, quadratic10])('on $name', (fn) => {
    compare(fn, false);
  });
  it('multivariate TPE on hartmann6', () => {
    compare(hartmann6, true);
  });
});
