import { checkSameLength, nanArray, periodOption } from './parameters.js';

/**
 * Wilder's true range: `max(high, prevClose) − min(low, prevClose)`, which is the largest of
 * high − low, |high − prevClose| and |low − prevClose|. Bar 0 has no previous close and gets
 * high − low, as in Wilder's tables.
 */
export function trueRange(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
): Float64Array {
  checkSameLength('true range', { high, low, close });
  const n = close.length;
  const out = new Float64Array(n);
  if (n > 0) out[0] = (high[0] ?? 0) - (low[0] ?? 0);
  for (let t = 1; t < n; t++) out[t] = trueRangeAt(high, low, close, t);
  return out;
}

/** The true range of bar `t` ≥ 1: `max(high, prevClose) − min(low, prevClose)`. */
export function trueRangeAt(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  t: number,
): number {
  const previous = close[t - 1] ?? 0;
  return Math.max(high[t] ?? 0, previous) - Math.min(low[t] ?? 0, previous);
}

/** Options for {@link averageTrueRange}. */
export interface AtrOptions {
  /** Bars in Wilder's smoothing of the true range. Default 14. */
  period?: number;
}

/** ATR options with every default filled in and checked. */
export function resolveAtrOptions(options: AtrOptions = {}): Required<AtrOptions> {
  return { period: periodOption(options.period, 14, 'atr.period') };
}

/**
 * Wilder's Average True Range in price units: the mean of the first `period` true ranges (bar 0's
 * being high − low), then Wilder-smoothed. First value at bar `period - 1`.
 */
export function averageTrueRange(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  options: AtrOptions = {},
): Float64Array {
  const { period } = resolveAtrOptions(options);
  checkSameLength('atr', { high, low, close });
  const n = close.length;
  const out = nanArray(n, period - 1);
  // The true range and Wilder's smoothing in one pass (see trueRange and wilderSmoothing).
  const alpha = 1 / period;
  let atr = 0;
  for (let t = 0; t < n; t++) {
    const range = t === 0 ? (high[0] ?? 0) - (low[0] ?? 0) : trueRangeAt(high, low, close, t);
    if (t < period - 1) {
      atr += range;
      continue;
    }
    if (t === period - 1) atr = (atr + range) / period;
    else atr += alpha * (range - atr);
    out[t] = atr;
  }
  return out;
}

/** ATR as a fraction of the same bar's close (0.01 = the typical range is 1% of the price). */
export function atrRatio(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  options: AtrOptions = {},
): Float64Array {
  const out = averageTrueRange(high, low, close, options);
  for (let t = 0; t < out.length; t++) out[t] = (out[t] ?? NaN) / (close[t] ?? NaN);
  return out;
}
