import { checkInteger, nanArray } from './parameters.js';

/**
 * Exponential smoothing seeded with a simple average, the way the classic indicator definitions
 * (Appel's MACD, Wilder's RSI/ATR/ADX) start it: the first value, at `start + period - 1`, is the
 * mean of the first `period` inputs; after that `s[t] = s[t-1] + alpha * (x[t] - s[t-1])`.
 * Before the seed the output is NaN. `start` is the first index where `x` is defined.
 */
export function seededSmoothing(
  x: Float64Array,
  period: number,
  alpha: number,
  start = 0,
): Float64Array {
  checkInteger(period, 'smoothing period');
  checkInteger(start, 'smoothing start', 0);
  const n = x.length;
  const seedAt = start + period - 1;
  const out = nanArray(n, seedAt);
  if (seedAt >= n) return out;
  let sum = 0;
  for (let i = start; i <= seedAt; i++) sum += x[i] ?? 0;
  let value = sum / period;
  out[seedAt] = value;
  for (let t = seedAt + 1; t < n; t++) {
    value += alpha * ((x[t] ?? 0) - value);
    out[t] = value;
  }
  return out;
}

/** Exponential moving average with `alpha = 2 / (period + 1)`, seeded with the first SMA. */
export function ema(x: Float64Array, period: number, start = 0): Float64Array {
  return seededSmoothing(x, period, 2 / (period + 1), start);
}

/** Wilder's smoothing (`alpha = 1 / period`, his "running moving average"), seeded with the first SMA. */
export function wilderSmoothing(x: Float64Array, period: number, start = 0): Float64Array {
  return seededSmoothing(x, period, 1 / period, start);
}
