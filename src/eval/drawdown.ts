/** The deepest fall of an equity curve from a running peak. */
export interface Drawdown {
  /** The fall as a positive fraction of the peak (0.25 = 25 % below the peak); 0 when none. */
  readonly depth: number;
  /** Index of the peak the deepest fall started from; null when the curve never falls. */
  readonly peakIndex: number | null;
  /** Index of the lowest point of that fall; null when the curve never falls. */
  readonly troughIndex: number | null;
}

/**
 * Maximum drawdown `max_t (1 - v[t] / max_{s≤t} v[s])` of an equity curve with positive values, and
 * where it happened. The first of equal depths wins. Empty or never-falling curves give depth 0.
 */
export function maxDrawdown(equity: Float64Array): Drawdown {
  let depth = 0;
  let peakIndex: number | null = null;
  let troughIndex: number | null = null;
  let runningPeak = 0;
  let runningPeakIndex = 0;
  for (let t = 0; t < equity.length; t++) {
    const v = equity[t] ?? Number.NaN;
    if (t === 0 || v > runningPeak) {
      runningPeak = v;
      runningPeakIndex = t;
      continue;
    }
    const dd = 1 - v / runningPeak;
    if (dd > depth) {
      depth = dd;
      peakIndex = runningPeakIndex;
      troughIndex = t;
    }
  }
  return { depth, peakIndex, troughIndex };
}
