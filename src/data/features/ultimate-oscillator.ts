import { TradelabError } from '../../core/index.js';
import { trueRange } from './atr.js';
import { checkSameLength, periodOption, positiveOption } from './parameters.js';
import { rollingRatio } from './rolling.js';

/** Options for {@link ultimateOscillator}. */
export interface UltimateOscillatorOptions {
  /** Bars in the short window. Default 7. */
  short?: number;
  /** Bars in the medium window; more than `short`. Default 14. */
  medium?: number;
  /** Bars in the long window; more than `medium`. Default 28. */
  long?: number;
  /** Weights of the short, medium and long averages (three numbers). Default [4, 2, 1] (Williams'). */
  weights?: readonly number[];
}

/** {@link UltimateOscillatorOptions} with every default filled in. */
export interface ResolvedUltimateOscillatorOptions {
  short: number;
  medium: number;
  long: number;
  weights: readonly [number, number, number];
}

/** Ultimate Oscillator options with every default filled in and checked. */
export function resolveUltimateOscillatorOptions(
  options: UltimateOscillatorOptions = {},
): ResolvedUltimateOscillatorOptions {
  const short = periodOption(options.short, 7, 'ultimateOscillator.short');
  const medium = periodOption(options.medium, 14, 'ultimateOscillator.medium');
  const long = periodOption(options.long, 28, 'ultimateOscillator.long');
  if (!(short < medium && medium < long)) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `ultimateOscillator windows must grow: short ${short} < medium ${medium} < long ${long}`,
      { hint: 'e.g. short 7, medium 14, long 28' },
    );
  }
  const given = options.weights ?? [4, 2, 1];
  if (given.length !== 3) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `ultimateOscillator.weights must hold 3 numbers (short, medium, long), got ${given.length}`,
      { hint: 'e.g. weights [4, 2, 1]' },
    );
  }
  const weights = [
    positiveOption(given[0], 4, 'ultimateOscillator.weights[0]'),
    positiveOption(given[1], 2, 'ultimateOscillator.weights[1]'),
    positiveOption(given[2], 1, 'ultimateOscillator.weights[2]'),
  ] as const;
  return { short, medium, long, weights };
}

/**
 * Larry Williams' Ultimate Oscillator, 0–100: buying pressure `close − min(low, prevClose)` summed over
 * three windows and divided by the true range summed over the same windows, combined with weights
 * 4:2:1. Both start at bar 1 (they need the previous close), so the first value is at bar `long`.
 * A window without any range counts as 0.5 (no side dominates).
 */
export function ultimateOscillator(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  options: UltimateOscillatorOptions = {},
): Float64Array {
  const { short, medium, long, weights } = resolveUltimateOscillatorOptions(options);
  checkSameLength('ultimate oscillator', { high, low, close });
  const n = close.length;
  const pressure = new Float64Array(n);
  for (let t = 1; t < n; t++) {
    pressure[t] = (close[t] ?? 0) - Math.min(low[t] ?? 0, close[t - 1] ?? 0);
  }
  const range = trueRange(high, low, close);
  // Pressure and range start at bar 1 (they need the previous close).
  const a = rollingRatio(pressure, range, short, 1, 0.5);
  const b = rollingRatio(pressure, range, medium, 1, 0.5);
  const c = rollingRatio(pressure, range, long, 1, 0.5);
  const [wa, wb, wc] = weights;
  const scale = 100 / (wa + wb + wc);
  // The short ratio becomes the oscillator in place (NaN until the long window is full).
  a.fill(NaN, 0, Math.min(long, n));
  for (let t = long; t < n; t++) {
    a[t] = scale * (wa * (a[t] ?? NaN) + wb * (b[t] ?? NaN) + wc * (c[t] ?? NaN));
  }
  return a;
}
