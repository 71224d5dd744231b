/**
 * The bars a cross-validation splitter divides, what every split looks like, and the argument
 * checks the splitters share.
 *
 * Ranges are the env's `[start, end)` bar ranges ({@link EnvRange}), so a split's `train` can be
 * passed as `ranges` to the training env and each `test` range to the evaluator unchanged.
 */
import type { EnvRange } from '../env/env-config.js';
import { TradelabError } from '../core/index.js';

/** Where a splitter works: the market data's length and, optionally, a window of it. */
export interface CvWindowOptions {
  /** Bars in the market data. */
  bars: number;
  /**
   * The bars `[start, end)` to split, e.g. `available` from {@link holdout} so the holdout stays
   * out of every split. Default `[0, bars)`.
   */
  within?: EnvRange;
}

/** One split: the ranges to train on and the ranges to test on. */
export interface CvSplit {
  /** Disjoint training ranges, ascending; each is one contiguous run of bars (no seams). */
  train: EnvRange[];
  /** Test ranges, ascending. */
  test: EnvRange[];
}

/** The error every splitter throws for a bad argument. */
export function cvError(splitter: string, message: string, hint: string): TradelabError {
  return new TradelabError('INVALID_ARGUMENT', `${splitter}: ${message}`, { hint });
}

/** `value`, checked to be an integer ≥ `min`. */
export function checkInteger(splitter: string, name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min)
    throw cvError(
      splitter,
      `${name} must be an integer ≥ ${min}, got ${value}`,
      `e.g. ${name}: ${Math.max(min, 1)}`,
    );
  return value;
}

/**
 * The bars to split: `within` (default all bars), its start raised to `lookback − 1` because
 * the env reads `lookback − 1` bars of history before a range's first bar, so no range may start
 * earlier. Those first bars are history only: never tested, never a training range's start.
 */
export function splitDomain(
  splitter: string,
  options: CvWindowOptions,
  lookback: number,
): EnvRange {
  const bars = checkInteger(splitter, 'bars', options.bars, 1);
  checkInteger(splitter, 'lookback', lookback, 1);
  const [start, end] = options.within ?? [0, bars];
  const text = `[${start}, ${end})`;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end > bars)
    throw cvError(
      splitter,
      `within ${text} is not a range of integer bar indexes in [0, ${bars})`,
      'pass within as [start, end) bar indexes of the market data, e.g. holdout(…).available',
    );
  const first = Math.max(start, lookback - 1);
  if (end - first < 2)
    throw cvError(
      splitter,
      `within ${text} leaves ${Math.max(0, end - first)} bars to split after the lookback ${lookback}; a range needs at least 2`,
      `widen within, or lower lookback (the first lookback − 1 = ${lookback - 1} bars are history only)`,
    );
  return [first, end];
}
