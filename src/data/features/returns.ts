import { TradelabError } from '../../core/index.js';
import { checkInteger, nanArray, periodOption } from './parameters.js';
import { rollingMeanStd } from './rolling.js';

/**
 * `ln(close[t] / close[t − h])` for each horizon h, NaN for the first h bars. Computed as
 * `ln(close[t]) − ln(close[t − h])`, one logarithm per bar whatever the number of horizons; the
 * rounding of that difference (about 2e-15 at BTC prices) is far below the Float32 resolution the
 * features are stored at, and an unchanged price still gives exactly 0.
 */
export function logReturnsForHorizons(
  close: Float64Array,
  horizons: readonly number[],
): Float64Array[] {
  horizons.forEach((h) => checkInteger(h, 'log-return horizon'));
  const n = close.length;
  const logs = new Float64Array(n);
  for (let t = 0; t < n; t++) logs[t] = Math.log(close[t] ?? NaN);
  return horizons.map((h) => {
    const out = nanArray(n, h);
    for (let t = h; t < n; t++) out[t] = (logs[t] ?? NaN) - (logs[t - h] ?? NaN);
    return out;
  });
}

/** `ln(close[t] / close[t − horizon])`, NaN for the first `horizon` bars. */
export function logReturns(close: Float64Array, horizon = 1): Float64Array {
  const [out] = logReturnsForHorizons(close, [horizon]);
  return out ?? new Float64Array(0);
}

/** Options for the log-return features. */
export interface LogReturnOptions {
  /** Horizons in bars, one feature each (`logret_1`, `logret_5`, …). Default [1, 5, 20]. */
  horizons?: readonly number[];
}

/** Log-return options with every default filled in and checked. */
export function resolveLogReturnOptions(
  options: LogReturnOptions = {},
): Required<LogReturnOptions> {
  const horizons = options.horizons ?? [1, 5, 20];
  if (horizons.length === 0) {
    throw new TradelabError('INVALID_ARGUMENT', 'logReturns.horizons is empty', {
      hint: 'give at least one horizon, e.g. [1, 5, 20], or set logReturns: false to leave them out',
    });
  }
  horizons.forEach((h, i) => checkInteger(h, `logReturns.horizons[${i}]`));
  if (new Set(horizons).size !== horizons.length) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `logReturns.horizons has a repeated horizon: [${horizons.join(', ')}]`,
      { hint: 'list each horizon once' },
    );
  }
  return { horizons: [...horizons] };
}

/** Options for {@link rollingVolatility}. */
export interface VolatilityOptions {
  /** Number of 1-bar log returns in the window. Default 20. */
  window?: number;
}

/** Volatility options with every default filled in and checked. */
export function resolveVolatilityOptions(
  options: VolatilityOptions = {},
): Required<VolatilityOptions> {
  return { window: periodOption(options.window, 20, 'volatility.window', 2) };
}

/**
 * Sample standard deviation (divisor `window - 1`) of the last `window` 1-bar log returns, per bar
 * (not annualized). The first value is at bar `window` (returns start at bar 1).
 */
export function rollingVolatility(
  close: Float64Array,
  options: VolatilityOptions = {},
): Float64Array {
  const { window } = resolveVolatilityOptions(options);
  return rollingMeanStd(logReturns(close, 1), window, { ddof: 1, start: 1 }).std;
}
