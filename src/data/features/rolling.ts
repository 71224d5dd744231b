import { checkInteger, nanArray } from './parameters.js';

/*
 * Rolling-window sums, ratios of sums, means and standard deviations in O(n), shared by the
 * indicators.
 *
 * A running sum (`sum += in - out`) keeps the rounding error of every value that passed through it,
 * which matters in two cases: long series (a million updates) and a quiet stretch after a spike
 * (a volume spike leaves the window and the sum of the small values that remain carries an error
 * the size of the spike's last bits; a window of zero volume must come out as exactly zero, not as
 * 1e-9, or a z-score divides noise by noise). So each helper recomputes its window exactly
 *   - every `window` bars (O(1) amortized), which bounds the number of updates an error can build
 *     up over, and
 *   - at once, when the running value has become small next to the magnitudes that went through it
 *     since the last exact pass (bound on the relative error above RELATIVE_ERROR).
 * Both rules look at bars <= t only, so the output stays causal and deterministic.
 *
 * The variance uses Welford's update for a sliding window on values shifted by one value of the
 * window (taken at each exact pass): shifting keeps the arithmetic at the scale of the spread, not of
 * the price level (BTC at 60,000 with a spread of 5), and a window of identical values is exactly
 * zero after the shift, so zero spread is detected exactly.
 */

/** Recompute exactly when the bound on the running value's relative error passes this. */
const RELATIVE_ERROR = 1e-10;
const EPS = Number.EPSILON;

/**
 * Sum of the last `window` values at each bar (`x[t - window + 1] + … + x[t]`), NaN until
 * `start + window - 1`. `start` is the first index where `x` is defined (an upstream warm-up).
 */
export function rollingSum(x: Float64Array, window: number, start = 0): Float64Array {
  checkInteger(window, 'rolling window');
  checkInteger(start, 'rolling start', 0);
  const n = x.length;
  const first = start + window - 1;
  const out = nanArray(n, first);
  const limit = (window * EPS) / RELATIVE_ERROR;
  let sum = 0;
  let mass = 0; // sum of |values| added, removed or recounted since the last exact recount
  let updates = 0;
  for (let t = first; t < n; t++) {
    if (t > first) {
      const added = x[t] ?? 0;
      const removed = x[t - window] ?? 0;
      sum += added - removed;
      mass += Math.abs(added) + Math.abs(removed);
      updates++;
    }
    if (t === first || updates >= window || Math.abs(sum) < limit * mass) {
      sum = 0;
      mass = 0;
      for (let i = t - window + 1; i <= t; i++) {
        const value = x[i] ?? 0;
        sum += value;
        mass += Math.abs(value);
      }
      updates = 0;
    }
    out[t] = sum;
  }
  return out;
}

/**
 * `Σ numerator / Σ denominator` over the last `window` bars at each bar, both sums kept in one pass
 * like {@link rollingSum}'s; `empty` where the denominator's sum is 0. NaN until `start + window - 1`.
 */
export function rollingRatio(
  numerator: Float64Array,
  denominator: Float64Array,
  window: number,
  start: number,
  empty: number,
): Float64Array {
  checkInteger(window, 'rolling window');
  checkInteger(start, 'rolling start', 0);
  const n = numerator.length;
  const first = start + window - 1;
  const out = nanArray(n, first);
  const limit = (window * EPS) / RELATIVE_ERROR;
  let top = 0;
  let topMass = 0;
  let bottom = 0;
  let bottomMass = 0;
  let updates = 0;
  for (let t = first; t < n; t++) {
    if (t > first) {
      const topAdded = numerator[t] ?? 0;
      const topRemoved = numerator[t - window] ?? 0;
      const bottomAdded = denominator[t] ?? 0;
      const bottomRemoved = denominator[t - window] ?? 0;
      top += topAdded - topRemoved;
      topMass += Math.abs(topAdded) + Math.abs(topRemoved);
      bottom += bottomAdded - bottomRemoved;
      bottomMass += Math.abs(bottomAdded) + Math.abs(bottomRemoved);
      updates++;
    }
    if (
      t === first ||
      updates >= window ||
      Math.abs(top) < limit * topMass ||
      Math.abs(bottom) < limit * bottomMass
    ) {
      top = 0;
      topMass = 0;
      bottom = 0;
      bottomMass = 0;
      for (let i = t - window + 1; i <= t; i++) {
        const a = numerator[i] ?? 0;
        const b = denominator[i] ?? 0;
        top += a;
        topMass += Math.abs(a);
        bottom += b;
        bottomMass += Math.abs(b);
      }
      updates = 0;
    }
    out[t] = bottom === 0 ? empty : top / bottom;
  }
  return out;
}

/** Mean of the last `window` values at each bar, NaN until `start + window - 1`. */
export function rollingMean(x: Float64Array, window: number, start = 0): Float64Array {
  const out = rollingSum(x, window, start);
  for (let t = 0; t < out.length; t++) out[t] = (out[t] ?? NaN) / window;
  return out;
}

/** Options for {@link rollingMeanStd}. */
export interface RollingStdOptions {
  /** Delta degrees of freedom: 0 divides by `window` (population), 1 by `window - 1`. Default 0. */
  ddof?: 0 | 1;
  /** The first index where the input is defined (an upstream warm-up). Default 0. */
  start?: number;
}

/** Rolling mean and standard deviation, both NaN before the window is full. */
export interface RollingMoments {
  mean: Float64Array;
  /** Exactly 0 when every value in the window is the same. */
  std: Float64Array;
}

/** Mean and standard deviation of the last `window` values at each bar, in O(n). */
export function rollingMeanStd(
  x: Float64Array,
  window: number,
  options: RollingStdOptions = {},
): RollingMoments {
  const ddof = options.ddof ?? 0;
  const start = options.start ?? 0;
  checkInteger(window, 'rolling window', ddof + 1);
  checkInteger(start, 'rolling start', 0);
  const n = x.length;
  const first = start + window - 1;
  const meanOut = nanArray(n, first);
  const stdOut = nanArray(n, first);
  const divisor = window - ddof;
  const limit = (window * EPS) / RELATIVE_ERROR;
  let shift = 0; // a value of the window at the last exact pass; values are tracked as x - shift
  let mean = 0; // mean of the shifted values
  let m2 = 0; // sum of squared deviations from the mean
  let mass = 0; // magnitude of the terms that went into m2 since the last exact pass
  let updates = 0;
  for (let t = first; t < n; t++) {
    if (t > first) {
      const added = (x[t] ?? 0) - shift;
      const removed = (x[t - window] ?? 0) - shift;
      const delta = added - removed;
      const nextMean = mean + delta / window;
      const a = added - nextMean;
      const b = removed - mean;
      m2 += delta * (a + b);
      mass += Math.abs(delta) * (Math.abs(a) + Math.abs(b) + Math.abs(nextMean));
      mean = nextMean;
      updates++;
    }
    if (t === first || updates >= window || m2 < limit * mass) {
      shift = x[t] ?? 0;
      let sum = 0;
      for (let i = t - window + 1; i <= t; i++) sum += (x[i] ?? 0) - shift;
      mean = sum / window;
      m2 = 0;
      for (let i = t - window + 1; i <= t; i++) {
        const d = (x[i] ?? 0) - shift - mean;
        m2 += d * d;
      }
      mass = m2;
      updates = 0;
    }
    meanOut[t] = shift + mean;
    stdOut[t] = Math.sqrt(m2 / divisor);
  }
  return { mean: meanOut, std: stdOut };
}
