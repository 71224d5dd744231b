import { describe, expect, it } from 'vitest';
import { Rng } from '../core/random.js';
import { resolveEnvOptions, type EnvRange } from '../env/env-config.js';
import { isTradelabError, type TradelabError } from '../core/index.js';
import { holdout } from './cv-holdout.js';
import {
  binomial,
  combinations,
  cpcv,
  MAX_CPCV_SPLITS,
  purgedKFold,
  type GroupedSplits,
} from './cv-splits.js';

/** A uniform integer in [lo, hi]. */
function intIn(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng.uniform() * (hi - lo + 1));
}

/**
 * The purging rules written as transitions, independently of the range bookkeeping: training
 * transition t reads bars [t − L + 1, t + 1], none of which may be tested, and the `embargo`
 * transitions after the first one whose window clears a test are left out too.
 */
function transitionAllowed(
  t: number,
  tests: readonly EnvRange[],
  lookback: number,
  embargo: number,
): boolean {
  return tests.every(([s, e]) => {
    const readsNoTestBar = t + 1 < s || t - lookback + 1 >= e;
    const embargoed = t >= e + lookback - 1 && t < e + lookback - 1 + embargo;
    return readsNoTestBar && !embargoed;
  });
}

/** The transitions an env range holds: it acts at bars start … end − 2. */
function transitionsOf([start, end]: EnvRange): number[] {
  return Array.from({ length: Math.max(0, end - start - 1) }, (_, i) => start + i);
}

/** How many splits test each bar of [0, bars). */
function testCounts(bars: number, result: GroupedSplits): number[] {
  const counts = new Array<number>(bars).fill(0);
  for (const split of result.splits)
    for (const [start, end] of split.test)
      for (let bar = start; bar < end; bar++) counts[bar] = (counts[bar] ?? 0) + 1;
  return counts;
}

/** The error `run` throws. */
function thrown(run: () => unknown): TradelabError {
  try {
    run();
  } catch (error) {
    if (isTradelabError(error)) return error;
    throw error;
  }
  throw new Error('expected a TradelabError, nothing was thrown');
}

interface PurgeCase {
  bars: number;
  within: EnvRange;
  lookback: number;
  embargo: number;
  minTrainBars: number;
}

/**
 * Checks everything a grouped split promises: valid env ranges, no training transition that
 * reads a test bar or lies in an embargo, no training range across a test, and maximal training
 * (every allowed transition is trained on or in a run reported as dropped).
 */
function expectPurged(result: GroupedSplits, c: PurgeCase): void {
  const [first, end] = result.domain;
  expect(first).toBe(Math.max(c.within[0], c.lookback - 1));
  expect(end).toBe(c.within[1]);
  for (const split of result.splits) {
    expect(() =>
      resolveEnvOptions({ lookback: c.lookback, ranges: split.train }, c.bars, false),
    ).not.toThrow();
    for (const test of split.test)
      expect(() =>
        resolveEnvOptions({ lookback: c.lookback, ranges: [test] }, c.bars, false),
      ).not.toThrow();
    const allowed = (t: number): boolean => transitionAllowed(t, split.test, c.lookback, c.embargo);
    let previousEnd = -1;
    for (const range of split.train) {
      const [a, b] = range;
      expect(a).toBeGreaterThan(previousEnd); // ascending, and never touching: no seam
      previousEnd = b;
      expect(a).toBeGreaterThanOrEqual(first);
      expect(b).toBeLessThanOrEqual(end);
      expect(b - a).toBeGreaterThanOrEqual(c.minTrainBars);
      expect(transitionsOf(range).every(allowed)).toBe(true);
      for (const [s, e] of split.test) expect(b <= s || a >= e).toBe(true);
    }
    for (const range of split.dropped) {
      expect(range[1] - range[0]).toBeLessThan(c.minTrainBars);
      expect(transitionsOf(range).every(allowed)).toBe(true);
    }
    const held = [...split.train, ...split.dropped].flatMap(transitionsOf);
    const everyAllowed = transitionsOf(result.domain).filter(allowed);
    expect(held.sort((x, y) => x - y)).toEqual(everyAllowed);
  }
}

/** A seeded parameter set whose groups are wide enough to leave training in every split. */
function purgeCase(rng: Rng, groups: number): PurgeCase {
  const lookback = intIn(rng, 1, 12);
  const embargo = intIn(rng, 0, 8);
  const minTrainBars = intIn(rng, 2, 6);
  const groupBars = lookback - 1 + embargo + minTrainBars + 1;
  const needed = Math.ceil((groups * groupBars + lookback) / 0.8) + 2;
  const bars = intIn(rng, needed, 4 * needed);
  const within = rng.uniform() < 0.5 ? holdout({ bars }).available : ([0, bars] as const);
  return { bars, within, lookback, embargo, minTrainBars };
}

describe('purgedKFold', () => {
  it('tests every bar of the domain exactly once, in nearly equal groups', () => {
    const rng = new Rng(7);
    for (let round = 0; round < 40; round++) {
      const k = intIn(rng, 2, 8);
      const c = purgeCase(rng, k);
      const result = purgedKFold({ ...c, k });
      expect(result.splits.map((s) => s.testGroups)).toEqual(result.groups.map((_, g) => [g]));
      const sizes = result.groups.map(([a, b]) => b - a);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      const counts = testCounts(c.bars, result);
      counts.forEach((count, bar) => {
        const inDomain = bar >= result.domain[0] && bar < result.domain[1];
        expect(count).toBe(inDomain ? 1 : 0);
      });
    }
  });

  it('purges and embargoes every split, and trains on everything else', () => {
    const rng = new Rng(11);
    for (let round = 0; round < 40; round++) {
      const k = intIn(rng, 2, 8);
      const c = purgeCase(rng, k);
      expectPurged(purgedKFold({ ...c, k }), c);
    }
  });

  it('starts no range before bar lookback − 1: those bars are history only', () => {
    const result = purgedKFold({ bars: 100, k: 3, lookback: 10, embargo: 0 });
    expect(result.domain).toEqual([9, 100]);
    expect(result.groups).toEqual([
      [9, 39],
      [39, 69],
      [69, 100],
    ]);
    // After a test ending at e, training resumes at e + lookback − 1.
    expect(result.splits.map((s) => s.train)).toEqual([
      [[48, 100]],
      [
        [9, 39],
        [78, 100],
      ],
      [[9, 69]],
    ]);
    const later = purgedKFold({ bars: 100, within: [20, 100], k: 2, lookback: 10, embargo: 0 });
    expect(later.domain).toEqual([20, 100]);
  });

  it('keeps holdout bars out of every split, including the bars training reads', () => {
    const { available, holdout: held } = holdout({ bars: 500, fraction: 0.25 });
    const result = purgedKFold({ bars: 500, within: available, k: 5, lookback: 8, embargo: 3 });
    for (const split of result.splits)
      for (const [, end] of [...split.train, ...split.test])
        expect(end).toBeLessThanOrEqual(held[0]);
  });
});

describe('cpcv', () => {
  it('makes 6 splits and 3 paths for N = 4, k = 2', () => {
    const result = cpcv({ bars: 400, groups: 4, testGroups: 2, lookback: 5, embargo: 2 });
    expect(result.splits.map((s) => s.testGroups)).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
      [1, 2],
      [1, 3],
      [2, 3],
    ]);
    // Group 0 is tested by splits 0, 1, 2; group 1 by 0, 3, 4; group 2 by 1, 3, 5; group 3 by 2, 4, 5.
    expect(result.paths).toEqual([
      [0, 0, 1, 2],
      [1, 3, 3, 4],
      [2, 4, 5, 5],
    ]);
    // Split 2 tests the non-adjacent groups 0 and 3: it trains on groups 1-2 as one range.
    expect(result.splits[2]?.test).toEqual([result.groups[0], result.groups[3]]);
    expect(result.splits[2]?.train).toHaveLength(1);
  });

  it('tests every bar C(N − 1, k − 1) times and builds φ = k/N · C(N, k) complete paths', () => {
    const rng = new Rng(23);
    for (let round = 0; round < 30; round++) {
      const groups = intIn(rng, 2, 8);
      const testGroups = intIn(rng, 1, groups - 1);
      const c = purgeCase(rng, groups);
      const result = cpcv({ ...c, groups, testGroups });
      expect(result.splits).toHaveLength(binomial(groups, testGroups));
      const perBar = binomial(groups - 1, testGroups - 1);
      testCounts(c.bars, result).forEach((count, bar) => {
        const inDomain = bar >= result.domain[0] && bar < result.domain[1];
        expect(count).toBe(inDomain ? perBar : 0);
      });
      expect(result.paths).toHaveLength(perBar);
      expect(result.paths.length * groups).toBe(testGroups * result.splits.length);
      const used = new Set<string>();
      for (const path of result.paths) {
        expect(path).toHaveLength(groups);
        path.forEach((splitIndex, group) => {
          expect(result.splits[splitIndex]?.testGroups).toContain(group);
          used.add(`${splitIndex}:${group}`);
        });
      }
      // Every (split, tested group) result lands in exactly one path.
      expect(used.size).toBe(result.splits.length * testGroups);
    }
  });

  it('purges around every tested group and never trains across one', () => {
    const rng = new Rng(31);
    for (let round = 0; round < 30; round++) {
      const groups = intIn(rng, 2, 7);
      const testGroups = intIn(rng, 1, groups - 1);
      const c = purgeCase(rng, groups);
      expectPurged(cpcv({ ...c, groups, testGroups }), c);
    }
  });

  it('reports training runs too short for an episode as dropped', () => {
    const result = cpcv({ bars: 50, groups: 5, testGroups: 2, lookback: 1, embargo: 9 });
    const split = result.splits[1];
    expect(split?.testGroups).toEqual([0, 2]);
    // Zones [0, 19) and [20, 39) leave the 1-bar run [19, 20) and the run [39, 50).
    expect(split?.dropped).toEqual([[19, 20]]);
    expect(split?.train).toEqual([[39, 50]]);
  });
});

describe('combinations and binomial', () => {
  it('lists the k-subsets in lexicographic order, C(n, k) of them', () => {
    expect(combinations(4, 3)).toEqual([
      [0, 1, 2],
      [0, 1, 3],
      [0, 2, 3],
      [1, 2, 3],
    ]);
    for (let n = 1; n <= 9; n++)
      for (let k = 0; k <= n; k++) expect(combinations(n, k)).toHaveLength(binomial(n, k));
    expect(binomial(10, 3)).toBe(120);
    expect(binomial(20, 10)).toBe(184_756);
  });
});

describe('validation', () => {
  const base = { bars: 100, lookback: 1, embargo: 0 };
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['k below 2', () => purgedKFold({ ...base, k: 1 }), /k must be an integer ≥ 2, got 1/],
    [
      'testGroups not below groups',
      () => cpcv({ ...base, groups: 4, testGroups: 4 }),
      /testGroups 4 must be below groups 4/,
    ],
    [
      'groups of fewer than 2 bars',
      () => cpcv({ ...base, groups: 60, testGroups: 2 }),
      /60 groups over the 100 bars of \[0, 100\) leave fewer than 2 bars per group/,
    ],
    ['negative embargo', () => purgedKFold({ ...base, k: 3, embargo: -1 }), /embargo .* got -1/],
    ['zero lookback', () => purgedKFold({ ...base, k: 3, lookback: 0 }), /lookback .* got 0/],
    ['fractional lookback', () => purgedKFold({ ...base, k: 3, lookback: 2.5 }), /got 2\.5/],
    [
      'minTrainBars below 2',
      () => purgedKFold({ ...base, k: 3, minTrainBars: 1 }),
      /minTrainBars must be an integer ≥ 2, got 1/,
    ],
    [
      'within outside the data',
      () => purgedKFold({ ...base, k: 3, within: [0, 200] }),
      /within \[0, 200\) is not a range of integer bar indexes in \[0, 100\)/,
    ],
    [
      'a split with no training bars',
      () => purgedKFold({ bars: 10, k: 2, lookback: 1, embargo: 10 }),
      /split 0 \(testing group 0\) has no training range of at least 2 bars/,
    ],
    [
      'too many CPCV splits',
      () => cpcv({ bars: 1000, groups: 20, testGroups: 10, lookback: 1, embargo: 0 }),
      new RegExp(`C\\(20, 10\\) = 184756 splits, above ${MAX_CPCV_SPLITS}`),
    ],
  ];

  it.each(cases)('rejects %s with INVALID_ARGUMENT, the value and a hint', (_, run, message) => {
    const error = thrown(run);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(message);
    expect(error.hint).toMatch(/\w+/);
  });

  it('names the fix in the hint', () => {
    expect(thrown(() => cpcv({ ...base, groups: 60, testGroups: 2 })).hint).toMatch(
      /at most 50 groups/,
    );
    expect(thrown(() => cpcv({ ...base, groups: 4, testGroups: 5 })).hint).toMatch(
      /testGroups in \[1, 3\]/,
    );
  });
});
