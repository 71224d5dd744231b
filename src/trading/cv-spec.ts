import type { EnvRange } from '../env/env-config.js';
import { TradelabError } from '../core/index.js';
import { cpcv, purgedKFold } from '../eval/cv-splits.js';
import { holdout as cutHoldout } from '../eval/cv-holdout.js';
import { walkForward } from '../eval/cv-walk-forward.js';
import type { CvSplit } from '../eval/cv-window.js';

/*
 * How a trading study cross-validates: the splitter (CPCV, purged k-fold or walk-forward), the
 * embargo, and the final holdout cut off before any split. Written as on the command line
 * (`cpcv:4:2`, `kfold:5`, `walk-forward:3`; `--holdout 20%` or a bar index) and stored resolved.
 */

/** The splitter and its sizes. */
export type CvMethod =
  | { method: 'cpcv'; groups: number; testGroups: number }
  | { method: 'kfold'; k: number }
  | { method: 'walk-forward'; folds: number };

/** The final holdout: a share of the bars at the end, or from a bar on; null for none. */
export type HoldoutSpec = { fraction: number } | { at: number } | null;

/** Parses `cpcv:N:k`, `kfold:K` or `walk-forward:F`. */
export function parseCvMethod(text: string, where = '--cv'): CvMethod {
  const [name, ...rest] = text.split(':');
  const numbers = rest.map(Number);
  const whole = (n: number | undefined, min: number): n is number =>
    n !== undefined && Number.isSafeInteger(n) && n >= min;
  if (name === 'cpcv' && numbers.length === 2 && whole(numbers[0], 2) && whole(numbers[1], 1))
    if (numbers[1] < numbers[0])
      return { method: 'cpcv', groups: numbers[0], testGroups: numbers[1] };
  if (name === 'kfold' && numbers.length === 1 && whole(numbers[0], 2))
    return { method: 'kfold', k: numbers[0] };
  if (name === 'walk-forward' && numbers.length === 1 && whole(numbers[0], 1))
    return { method: 'walk-forward', folds: numbers[0] };
  throw new TradelabError('INVALID_ARGUMENT', `${where}: "${text}" is not a cross-validation`, {
    hint: 'use cpcv:N:k (N groups, k tested per split, k < N; cpcv:4:2 gives 6 splits), kfold:K (K ≥ 2) or walk-forward:F (F ≥ 1 folds)',
  });
}

/** Writes a {@link CvMethod} back as parsed. */
export function formatCvMethod(cv: CvMethod): string {
  switch (cv.method) {
    case 'cpcv':
      return `cpcv:${cv.groups}:${cv.testGroups}`;
    case 'kfold':
      return `kfold:${cv.k}`;
    case 'walk-forward':
      return `walk-forward:${cv.folds}`;
  }
}

/** Parses `20%`, `0.2` (a share), `none`, or a whole bar index `5000` (the first held-out bar). */
export function parseHoldout(text: string, where = '--holdout'): HoldoutSpec {
  if (text === 'none') return null;
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(text);
  const share = percent === null ? Number(text) : Number(percent[1]) / 100;
  if (Number.isFinite(share) && share > 0 && share < 1) return { fraction: share };
  if (percent === null && Number.isSafeInteger(share) && share >= 2) return { at: share };
  throw new TradelabError('INVALID_ARGUMENT', `${where}: "${text}" is not a holdout`, {
    hint: 'use a share of the bars at the end (20% or 0.2), the first held-out bar index (5000), or none',
  });
}

/** A study's splits over `bars` bars: the holdout cut first, then the splitter on what is left. */
export interface StudySplits {
  /** Bars the splits use: everything before the holdout. */
  available: EnvRange;
  holdout: EnvRange | undefined;
  splits: CvSplit[];
  /** CPCV's backtest paths (split index per group and path); undefined for the others. */
  paths?: number[][];
}

/** Cuts the holdout and splits the rest, purging around test ranges with `lookback` and `embargo`. */
export function studySplits(
  bars: number,
  cv: CvMethod,
  options: { holdout: HoldoutSpec; lookback: number; embargo: number },
): StudySplits {
  const cut = options.holdout === null ? undefined : cutHoldout({ bars, ...options.holdout });
  const within: EnvRange = cut?.available ?? [0, bars];
  const { lookback, embargo } = options;
  const base = { bars, within, lookback, embargo };
  const result = { available: within, holdout: cut?.holdout };
  switch (cv.method) {
    case 'cpcv': {
      const s = cpcv({ ...base, groups: cv.groups, testGroups: cv.testGroups });
      return { ...result, splits: s.splits, paths: s.paths };
    }
    case 'kfold':
      return { ...result, splits: purgedKFold({ ...base, k: cv.k }).splits };
    case 'walk-forward': {
      // F folds over F + 1 equal blocks: fold i trains on blocks 0..i (an expanding window) and
      // tests block i + 1; the embargo is the gap between them.
      const first = Math.max(within[0], lookback - 1);
      const block = Math.floor((within[1] - first - embargo) / (cv.folds + 1));
      if (block < 2)
        throw new TradelabError(
          'DATA_TOO_SHORT',
          `walk-forward:${cv.folds}: ${within[1] - first} bars leave ${block} per block`,
          { hint: 'use fewer folds or more bars' },
        );
      return {
        ...result,
        splits: walkForward({
          bars,
          within: [first, first + block * (cv.folds + 1) + embargo],
          train: block,
          test: block,
          gap: embargo,
          anchored: true,
          lookback,
        }).splits,
      };
    }
  }
}
