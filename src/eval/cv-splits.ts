/**
 * Purged k-fold and combinatorial purged cross-validation (CPCV) over contiguous groups of bars
 * (López de Prado, "Advances in Financial Machine Learning", ch. 7 and 12).
 *
 * The domain is cut into N groups of nearly equal size (sizes differ by at most one bar). Each
 * split tests some groups and trains on what is left after purging and embargo around every tested
 * group (rules in cv-purge.ts). Purged k-fold tests one group per split; CPCV tests every
 * combination of k of the N groups, C(N, k) splits, and reassembles the per-group test results
 * into φ = C(N − 1, k − 1) = k/N · C(N, k) backtest paths, each covering every group once.
 *
 * Test ranges stay one per group, even for adjacent groups, so a group's result can be routed to
 * its path; the price of that is one untested transition at each group boundary.
 */
import type { EnvRange } from '../env/env-config.js';
import { trainingRuns } from './cv-purge.js';
import {
  checkInteger,
  cvError,
  splitDomain,
  type CvSplit,
  type CvWindowOptions,
} from './cv-window.js';

/** A split of a grouped splitter. */
export interface GroupSplit extends CvSplit {
  /** The groups this split tests, ascending; `test[i]` is group `testGroups[i]`. */
  testGroups: number[];
  /** Runs outside the exclusion zones left out of `train` for being shorter than `minTrainBars`. */
  dropped: EnvRange[];
}

/** The result of {@link purgedKFold}. */
export interface GroupedSplits {
  /** The bars split: `within`, its start raised to lookback − 1. */
  domain: EnvRange;
  /** The contiguous groups the domain is cut into, in time order. */
  groups: EnvRange[];
  /** The splits, in lexicographic order of their `testGroups`. */
  splits: GroupSplit[];
}

/** The result of {@link cpcv}. */
export interface CpcvSplits extends GroupedSplits {
  /**
   * The backtest paths: `paths[p][g]` is the index of the split whose test of group `g` forms
   * path `p`. Path p takes, for each group, the p-th split (in split order) that tests it.
   */
  paths: number[][];
}

/** Options shared by the grouped splitters. */
export interface PurgeSplitOptions extends CvWindowOptions {
  /** Bars in each observation: the env's `lookback`. No default, since a smaller one leaks. */
  lookback: number;
  /** Bars dropped from training after each test range's purge; ≥ 0. No default. */
  embargo: number;
  /** Training runs with fewer bars are left out (see `dropped`). At least 2; default 2. */
  minTrainBars?: number;
}

/** Options of {@link purgedKFold}. */
export interface PurgedKFoldOptions extends PurgeSplitOptions {
  /** Groups, and splits: each split tests one group. At least 2. */
  k: number;
}

/** Options of {@link cpcv}. */
export interface CpcvOptions extends PurgeSplitOptions {
  /** N: the groups the domain is cut into. At least 2. */
  groups: number;
  /** k: the groups each split tests; in [1, N). */
  testGroups: number;
}

/** CPCV refuses more splits than this: each one is a full training run. */
export const MAX_CPCV_SPLITS = 10_000;

/** Purged k-fold: k contiguous groups, split i tests group i and trains on the purged rest. */
export function purgedKFold(options: PurgedKFoldOptions): GroupedSplits {
  const k = checkInteger('purgedKFold', 'k', options.k, 2);
  const testSets = Array.from({ length: k }, (_, group) => [group]);
  return groupedSplits('purgedKFold', options, k, testSets);
}

/** Combinatorial purged CV: C(N, k) splits, one per set of k tested groups, and their backtest paths. */
export function cpcv(options: CpcvOptions): CpcvSplits {
  const name = 'cpcv';
  const groups = checkInteger(name, 'groups', options.groups, 2);
  const testGroups = checkInteger(name, 'testGroups', options.testGroups, 1);
  if (testGroups >= groups)
    throw cvError(
      name,
      `testGroups ${testGroups} must be below groups ${groups}, or nothing is left to train on`,
      `use testGroups in [1, ${groups - 1}], e.g. groups: 6, testGroups: 2`,
    );
  const count = binomial(groups, testGroups);
  if (count > MAX_CPCV_SPLITS)
    throw cvError(
      name,
      `groups ${groups} with testGroups ${testGroups} make C(${groups}, ${testGroups}) = ${count} splits, above ${MAX_CPCV_SPLITS}`,
      'each split is a training run; use fewer groups or fewer test groups',
    );
  const result = groupedSplits(name, options, groups, combinations(groups, testGroups));
  return { ...result, paths: backtestPaths(groups, result.splits) };
}

/** The k-subsets of {0, …, n − 1}, each ascending, in lexicographic order. */
export function combinations(n: number, k: number): number[][] {
  const result: number[][] = [];
  const chosen: number[] = [];
  const extend = (next: number): void => {
    if (chosen.length === k) {
      result.push([...chosen]);
      return;
    }
    // Stop early where too few numbers remain to fill the subset.
    for (let i = next; i <= n - (k - chosen.length); i++) {
      chosen.push(i);
      extend(i + 1);
      chosen.pop();
    }
  };
  extend(0);
  return result;
}

/** C(n, k), exact while it stays below 2^53. */
export function binomial(n: number, k: number): number {
  const r = Math.min(k, n - k); // C(n, k) = C(n, n − k): the shorter product
  let result = 1;
  for (let i = 1; i <= r; i++) result = (result * (n - r + i)) / i;
  return Math.round(result);
}

/** `count` contiguous groups covering `domain`, sizes differing by at most one bar. */
function cutGroups(domain: EnvRange, count: number): EnvRange[] {
  const [start, end] = domain;
  const size = end - start;
  return Array.from({ length: count }, (_, i): EnvRange => [
    start + Math.floor((i * size) / count),
    start + Math.floor(((i + 1) * size) / count),
  ]);
}

/** One split per set in `testSets`, over `groupCount` groups of the domain. */
function groupedSplits(
  name: string,
  options: PurgeSplitOptions,
  groupCount: number,
  testSets: readonly number[][],
): GroupedSplits {
  const lookback = checkInteger(name, 'lookback', options.lookback, 1);
  const embargo = checkInteger(name, 'embargo', options.embargo, 0);
  const minTrainBars = checkInteger(name, 'minTrainBars', options.minTrainBars ?? 2, 2);
  const domain = splitDomain(name, options, lookback);
  const size = domain[1] - domain[0];
  // Every group is a test range, so it needs the env's minimum of 2 bars.
  if (2 * groupCount > size)
    throw cvError(
      name,
      `${groupCount} groups over the ${size} bars of [${domain[0]}, ${domain[1]}) leave fewer than 2 bars per group`,
      `use at most ${Math.floor(size / 2)} groups, or split more bars`,
    );
  const groups = cutGroups(domain, groupCount);
  const splits = testSets.map((testGroups, index): GroupSplit => {
    const test = testGroups.map((g) => groups[g] as EnvRange);
    const { train, dropped } = trainingRuns(domain, test, { lookback, embargo, minTrainBars });
    if (train.length === 0)
      throw cvError(
        name,
        `split ${index} (testing group${testGroups.length > 1 ? 's' : ''} ${testGroups.join(', ')}) has no training range of at least ${minTrainBars} bars left after purging with lookback ${lookback} and embargo ${embargo}`,
        'lower the embargo or lookback, test fewer groups per split, or split more bars',
      );
    return { train, test, testGroups, dropped };
  });
  return { domain, groups, splits };
}

/** Path p takes, for each group, the p-th split that tests that group. */
function backtestPaths(groupCount: number, splits: readonly GroupSplit[]): number[][] {
  const testers: number[][] = Array.from({ length: groupCount }, () => []);
  splits.forEach((split, index) => {
    for (const group of split.testGroups) testers[group]?.push(index);
  });
  // Every group is tested by the same number of splits, C(N − 1, k − 1), by symmetry.
  const pathCount = testers[0]?.length ?? 0;
  return Array.from({ length: pathCount }, (_, p) =>
    testers.map((splitsOfGroup) => splitsOfGroup[p] as number),
  );
}
