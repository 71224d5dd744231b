/**
 * Purging and embargo for training ranges of an RL trading agent (López de Prado, "Advances in
 * Financial Machine Learning", ch. 7, restated for env transitions instead of labels).
 *
 * With lookback L, the transition at bar t observes bars [t − L + 1, t] and is rewarded with the
 * move from t to t + 1 (its action fills at t + 1): it reads bars [t − L + 1, t + 1]. An env range
 * [a, b) holds the transitions a … b − 2 (bar b − 1 is only the last fill), so it reads bars
 * [a − L + 1, b). Training must never read a bar of a test range [s, e). For each test range:
 *
 * - Purge before: transition t is dropped when its reward bar reaches the test, t + 1 ≥ s, so the
 *   last training transition before the test is s − 2 and a training range before it may end at s
 *   (bar s − 1 is then only a fill), never later.
 * - Purge after: transition t is dropped when its observation window reaches back into the test,
 *   t − L + 1 < e, so a training range after the test starts at e + L − 1 or later.
 * - Embargo E: the E bars after those are dropped too, so training resumes at e + L − 1 + E. It
 *   covers what the window does not: serial correlation that carries test-period information
 *   into the bars just after it.
 *
 * Together: no training range may hold a bar of the exclusion zone [s, e + L − 1 + E). The
 * training ranges are the maximal runs of bars outside every exclusion zone, so an episode never
 * crosses a test range (no price jump at a seam between non-adjacent periods). Runs shorter than
 * `minTrainBars` are left out and reported, since the env cannot hold an episode in them.
 */
import type { EnvRange } from '../env/env-config.js';

/** What purging needs to know besides the ranges. */
export interface PurgeOptions {
  /** Bars in each observation: the env's `lookback`. */
  lookback: number;
  /** Bars dropped after the purge that follows each test range. */
  embargo: number;
  /** Runs with fewer bars are left out of training. At least 2 (one to act on, one to fill at). */
  minTrainBars: number;
}

/** The training ranges left after purging, and the runs left out for being too short. */
export interface TrainingRuns {
  /** Maximal runs outside every exclusion zone, ascending. */
  train: EnvRange[];
  /** Runs outside every exclusion zone but shorter than `minTrainBars`. */
  dropped: EnvRange[];
}

/** The bars `[s, e + lookback − 1 + embargo)` no training range may hold because of test `[s, e)`. */
export function exclusionZone(test: EnvRange, lookback: number, embargo: number): EnvRange {
  return [test[0], test[1] + lookback - 1 + embargo];
}

/** The training ranges of `domain` around `tests` (disjoint, any order), purged and embargoed. */
export function trainingRuns(
  domain: EnvRange,
  tests: readonly EnvRange[],
  options: PurgeOptions,
): TrainingRuns {
  const zones = tests
    .map((test) => exclusionZone(test, options.lookback, options.embargo))
    .sort((a, b) => a[0] - b[0]);
  const train: EnvRange[] = [];
  const dropped: EnvRange[] = [];
  const keep = (start: number, end: number): void => {
    if (end <= start) return;
    (end - start >= options.minTrainBars ? train : dropped).push([start, end]);
  };
  let cursor = domain[0];
  for (const [zoneStart, zoneEnd] of zones) {
    keep(cursor, Math.min(zoneStart, domain[1]));
    cursor = Math.max(cursor, zoneEnd);
  }
  keep(cursor, domain[1]);
  return { train, dropped };
}
