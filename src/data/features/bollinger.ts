import { periodOption, positiveOption } from './parameters.js';
import { rollingMeanStd } from './rolling.js';

/** Options for {@link bollinger}. */
export interface BollingerOptions {
  /** Bars in the moving average and standard deviation of the close. Default 20. */
  period?: number;
  /** Band distance from the average, in standard deviations. Default 2. */
  stdDevs?: number;
}

/** Bollinger options with every default filled in and checked. */
export function resolveBollingerOptions(
  options: BollingerOptions = {},
): Required<BollingerOptions> {
  return {
    period: periodOption(options.period, 20, 'bollinger.period'),
    stdDevs: positiveOption(options.stdDevs, 2, 'bollinger.stdDevs'),
  };
}

/** The scale-free Bollinger Band readings. */
export interface BollingerSeries {
  /** %B: `(close − lower) / (upper − lower)`; 0 on the lower band, 1 on the upper, 0.5 when the bands meet. */
  percentB: Float64Array;
  /** Bandwidth: `(upper − lower) / middle`, the band's width as a fraction of the average. */
  bandwidth: Float64Array;
}

/**
 * Bollinger Bands around the simple moving average of the close, with the population standard
 * deviation (divisor `period`, as Bollinger defines them). First value at bar `period - 1`. A flat
 * window (zero deviation) reads %B 0.5 and bandwidth 0.
 */
export function bollinger(close: Float64Array, options: BollingerOptions = {}): BollingerSeries {
  const { period, stdDevs } = resolveBollingerOptions(options);
  const n = close.length;
  const { mean, std } = rollingMeanStd(close, period);
  // The mean and std arrays become %B and bandwidth, bar by bar (NaN before the window is full).
  for (let t = period - 1; t < n; t++) {
    const middle = mean[t] ?? NaN;
    const width = 2 * stdDevs * (std[t] ?? NaN);
    mean[t] = width === 0 ? 0.5 : ((close[t] ?? NaN) - (middle - width / 2)) / width;
    std[t] = width / middle;
  }
  return { percentB: mean, bandwidth: std };
}
