import { nanArray, periodOption } from './parameters.js';

/** Options for {@link rsi}. */
export interface RsiOptions {
  /** Bars in Wilder's averages of gains and losses. Default 14. */
  period?: number;
}

/** RSI options with every default filled in and checked. */
export function resolveRsiOptions(options: RsiOptions = {}): Required<RsiOptions> {
  return { period: periodOption(options.period, 14, 'rsi.period') };
}

/**
 * Wilder's Relative Strength Index, 0–100: `100 · avgGain / (avgGain + avgLoss)` with both averages
 * Wilder-smoothed close-to-close changes (the first average is the plain mean of the first `period`
 * changes). First value at bar `period`. A window with no change at all reads 50 (neither side
 * dominates), not NaN.
 */
export function rsi(close: Float64Array, options: RsiOptions = {}): Float64Array {
  const { period } = resolveRsiOptions(options);
  const n = close.length;
  const out = nanArray(n, period);
  // Wilder's averages in one pass: plain means of the first `period` changes (bars 1 … period),
  // then avg += (value − avg) / period, as wilderSmoothing does.
  const alpha = 1 / period;
  let avgGain = 0;
  let avgLoss = 0;
  for (let t = 1; t < n; t++) {
    const change = (close[t] ?? 0) - (close[t - 1] ?? 0);
    const gain = change > 0 ? change : 0;
    const loss = change < 0 ? -change : 0;
    if (t < period) {
      avgGain += gain;
      avgLoss += loss;
      continue;
    }
    if (t === period) {
      avgGain = (avgGain + gain) / period;
      avgLoss = (avgLoss + loss) / period;
    } else {
      avgGain += alpha * (gain - avgGain);
      avgLoss += alpha * (loss - avgLoss);
    }
    const total = avgGain + avgLoss;
    out[t] = total === 0 ? 50 : (100 * avgGain) / total;
  }
  return out;
}
