import { checkSameLength, periodOption, positiveOption } from './parameters.js';
import { rollingMean } from './rolling.js';

/** Options for {@link cci}. */
export interface CciOptions {
  /** Bars in the moving average and mean deviation of the typical price. Default 20. */
  period?: number;
  /** Lambert's scaling constant (about 70–80% of values then fall within ±100). Default 0.015. */
  constant?: number;
}

/** CCI options with every default filled in and checked. */
export function resolveCciOptions(options: CciOptions = {}): Required<CciOptions> {
  return {
    period: periodOption(options.period, 20, 'cci.period'),
    constant: positiveOption(options.constant, 0.015, 'cci.constant'),
  };
}

/**
 * Lambert's Commodity Channel Index: `(tp - SMA(tp)) / (constant · meanDeviation(tp))` with the
 * typical price `tp = (high + low + close) / 3`. First value at bar `period - 1`; a window of
 * identical typical prices (mean deviation 0) reads 0.
 *
 * The mean absolute deviation is taken around the current window's mean, which moves with every
 * bar, so it has no O(1) running update: this is the one O(n · period) indicator (one pass over
 * the window per bar; the mean itself is a running one).
 */
export function cci(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  options: CciOptions = {},
): Float64Array {
  const { period, constant } = resolveCciOptions(options);
  checkSameLength('cci', { high, low, close });
  const n = close.length;
  const typical = new Float64Array(n);
  for (let t = 0; t < n; t++) typical[t] = ((high[t] ?? 0) + (low[t] ?? 0) + (close[t] ?? 0)) / 3;
  const out = rollingMean(typical, period);
  // A running mean of identical values need not equal them to the last bit, which would turn a
  // flat window into noise / noise; the run of identical typical prices catches that case exactly.
  let run = 1;
  for (let t = 1; t < period - 1 && t < n; t++) run = typical[t] === typical[t - 1] ? run + 1 : 1;
  for (let t = period - 1; t < n; t++) {
    if (t > 0) run = typical[t] === typical[t - 1] ? run + 1 : 1;
    const mean = out[t] ?? NaN;
    let deviation = 0;
    for (let i = t - period + 1; i <= t; i++) deviation += Math.abs((typical[i] ?? 0) - mean);
    deviation /= period;
    out[t] =
      run >= period || deviation === 0 ? 0 : ((typical[t] ?? 0) - mean) / (constant * deviation);
  }
  return out;
}
