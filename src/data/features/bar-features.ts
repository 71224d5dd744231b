import type { Bars } from '../bars.js';
import { volumeZScore } from './volume-zscore.js';

/*
 * The per-bar inputs of the sequence models (the TCN pretrained on realized volatility, forecasting
 * sets, and the pretrained encoder inside DRL policies): what one bar says about the volatility
 * and flow around it, before any window or normalization.
 */

/** Features of every bar, in column order. */
export const RV_FEATURE_NAMES = ['logReturn', 'logRange', 'volumeZ', 'absLogReturn'] as const;
/** Their count. */
export const BAR_FEATURE_COUNT = RV_FEATURE_NAMES.length;
const FEATURES = BAR_FEATURE_COUNT;
/** Window of the volume z-score, in bars. */
const VOLUME_WINDOW = 20;

/**
 * Raw per-bar features [bars × 4]: the log return close→close (0 at the first bar), the log range
 * ln(high/low), the volume z-score over 20 bars (0 before the window fills), and |log return|.
 */
export function barFeatures(bars: Bars): Float64Array {
  const n = bars.timestamps.length;
  const out = new Float64Array(n * FEATURES);
  const volumeZ = volumeZScore(bars.volume, { window: VOLUME_WINDOW });
  for (let t = 0; t < n; t++) {
    const close = bars.close[t] ?? Number.NaN;
    const previous = t > 0 ? (bars.close[t - 1] ?? Number.NaN) : close;
    const r = Math.log(close / previous);
    const range = Math.log((bars.high[t] ?? Number.NaN) / (bars.low[t] ?? Number.NaN));
    const z = volumeZ[t] ?? Number.NaN;
    out[t * FEATURES] = Number.isFinite(r) ? r : 0;
    out[t * FEATURES + 1] = Number.isFinite(range) ? range : 0;
    out[t * FEATURES + 2] = Number.isFinite(z) ? z : 0;
    out[t * FEATURES + 3] = Number.isFinite(r) ? Math.abs(r) : 0;
  }
  return out;
}
