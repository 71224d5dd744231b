/**
 * The final holdout: the last bars of the data, cut off before any cross-validation so that model
 * selection never sees them. Pass `available` as `within` to the splitters.
 *
 * No gap is needed at the cut: a training range inside `available` reads bars before the cut only,
 * and the holdout's observation windows reading back into `available` read the past, not the future.
 */
import type { EnvRange } from '../env/env-config.js';
import { checkInteger, cvError } from './cv-window.js';

/** Options of {@link holdout}; give `fraction` or `at`, not both. */
export interface HoldoutOptions {
  /** Bars in the market data. */
  bars: number;
  /** Share of the bars, at the end, to hold out; in (0, 1). Default 0.2 when `at` is not given. */
  fraction?: number;
  /** The first held-out bar. */
  at?: number;
}

/** The bars left for cross-validation and the bars held out after them. */
export interface Holdout {
  /** `[0, cut)`: the bars the splitters may use. */
  available: EnvRange;
  /** `[cut, bars)`: the bars kept for the final evaluation. */
  holdout: EnvRange;
}

/** Splits the bars at a cut into `available` (before) and `holdout` (from the cut on). */
export function holdout(options: HoldoutOptions): Holdout {
  const bars = checkInteger('holdout', 'bars', options.bars, 4);
  if (options.fraction !== undefined && options.at !== undefined)
    throw cvError(
      'holdout',
      `both fraction ${options.fraction} and at ${options.at} given`,
      'give one: fraction (share of bars held out) or at (the first held-out bar)',
    );
  let cut: number;
  if (options.at === undefined) {
    const fraction = options.fraction ?? 0.2;
    if (!Number.isFinite(fraction) || fraction <= 0 || fraction >= 1)
      throw cvError(
        'holdout',
        `fraction must be in (0, 1), got ${fraction}`,
        'e.g. fraction: 0.2 holds out the last 20% of the bars',
      );
    cut = Math.round(bars * (1 - fraction));
  } else {
    cut = checkInteger('holdout', 'at', options.at, 0);
  }
  // Both parts must hold an env range: one bar to act on and one to fill at.
  if (cut < 2 || bars - cut < 2)
    throw cvError(
      'holdout',
      `cut at bar ${cut} of ${bars} leaves ${cut} bars available and ${bars - cut} held out; each needs at least 2`,
      `choose a cut in [2, ${bars - 2}]`,
    );
  return { available: [0, cut], holdout: [cut, bars] };
}
