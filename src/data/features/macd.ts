import { TradelabError } from '../../core/index.js';
import { nanArray, periodOption } from './parameters.js';
import { ema } from './smoothing.js';

/** Options for {@link macd}. */
export interface MacdOptions {
  /** Bars in the fast EMA of the close. Default 12. */
  fast?: number;
  /** Bars in the slow EMA of the close; more than `fast`. Default 26. */
  slow?: number;
  /** Bars in the signal EMA of the MACD line. Default 9. */
  signal?: number;
}

/** MACD options with every default filled in and checked. */
export function resolveMacdOptions(options: MacdOptions = {}): Required<MacdOptions> {
  const fast = periodOption(options.fast, 12, 'macd.fast');
  const slow = periodOption(options.slow, 26, 'macd.slow');
  const signal = periodOption(options.signal, 9, 'macd.signal');
  if (fast >= slow) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `macd.fast (${fast}) must be less than macd.slow (${slow})`,
      { hint: 'e.g. fast 12, slow 26' },
    );
  }
  return { fast, slow, signal };
}

/** MACD line, signal and histogram, bar by bar. */
export interface MacdSeries {
  /** EMA(fast) − EMA(slow) of the close. First value at bar `slow - 1`. */
  line: Float64Array;
  /** EMA(signal) of the line, seeded with the mean of its first `signal` values. First at `slow + signal - 2`. */
  signal: Float64Array;
  /** line − signal. */
  histogram: Float64Array;
}

/**
 * Appel's MACD in price units. Both EMAs are seeded with a simple average (StockCharts' convention),
 * so the line starts at bar `slow - 1` and the signal and histogram at `slow + signal - 2`.
 */
export function macd(close: Float64Array, options: MacdOptions = {}): MacdSeries {
  const { fast, slow, signal } = resolveMacdOptions(options);
  const n = close.length;
  const line = nanArray(n, slow - 1);
  // Both EMAs in one pass, each seeded with its simple average (as `ema` does).
  const fastAlpha = 2 / (fast + 1);
  const slowAlpha = 2 / (slow + 1);
  let fastEma = 0;
  let slowEma = 0;
  for (let t = 0; t < n; t++) {
    const price = close[t] ?? 0;
    if (t < fast - 1) fastEma += price;
    else if (t === fast - 1) fastEma = (fastEma + price) / fast;
    else fastEma += fastAlpha * (price - fastEma);
    if (t < slow - 1) slowEma += price;
    else if (t === slow - 1) slowEma = (slowEma + price) / slow;
    else slowEma += slowAlpha * (price - slowEma);
    if (t >= slow - 1) line[t] = fastEma - slowEma;
  }
  const signalLine = ema(line, signal, slow - 1);
  const histogram = new Float64Array(n);
  for (let t = 0; t < n; t++) histogram[t] = (line[t] ?? NaN) - (signalLine[t] ?? NaN);
  return { line, signal: signalLine, histogram };
}

/**
 * MACD made scale-free for use as a feature: line, signal and histogram each divided by the close of
 * the same bar, so a value means the same on a $50 stock and on BTC at $60,000 (the histogram is
 * still line − signal).
 */
export function relativeMacd(close: Float64Array, options: MacdOptions = {}): MacdSeries {
  const series = macd(close, options);
  for (let t = 0; t < close.length; t++) {
    const price = close[t] ?? NaN;
    series.line[t] = (series.line[t] ?? NaN) / price;
    series.signal[t] = (series.signal[t] ?? NaN) / price;
    series.histogram[t] = (series.histogram[t] ?? NaN) / price;
  }
  return series;
}
