import { checkSameLength, periodOption } from './parameters.js';
import { rollingRatio } from './rolling.js';

/**
 * Granville's On-Balance Volume: a running total that adds the bar's volume when the close rose,
 * subtracts it when it fell, and leaves it when unchanged; 0 at bar 0. Unbounded and dependent on
 * where the series starts, so not a feature by itself: see {@link obvRatio}.
 */
export function onBalanceVolume(close: Float64Array, volume: Float64Array): Float64Array {
  checkSameLength('obv', { close, volume });
  const n = close.length;
  const out = new Float64Array(n);
  let total = 0;
  for (let t = 1; t < n; t++) {
    total += signedVolume(close, volume, t);
    out[t] = total;
  }
  return out;
}

/** Options for {@link obvRatio}. */
export interface ObvOptions {
  /** Bars over which the OBV change is taken. Default 20. */
  window?: number;
}

/** OBV options with every default filled in and checked. */
export function resolveObvOptions(options: ObvOptions = {}): Required<ObvOptions> {
  return { window: periodOption(options.window, 20, 'obv.window') };
}

/**
 * OBV as a feature: the change of OBV over the last `window` bars divided by the volume traded in
 * them, `(OBV[t] − OBV[t − window]) / Σ volume[t − window + 1 … t]`. It lies in [−1, 1]: +1 when
 * every bar of the window closed up, −1 when every one closed down; it does not depend on where the
 * series starts, nor on the asset's volume units. First value at bar `window`; a window without
 * volume reads 0.
 */
export function obvRatio(
  close: Float64Array,
  volume: Float64Array,
  options: ObvOptions = {},
): Float64Array {
  const { window } = resolveObvOptions(options);
  checkSameLength('obv', { close, volume });
  const n = close.length;
  const signed = new Float64Array(n);
  for (let t = 1; t < n; t++) signed[t] = signedVolume(close, volume, t);
  // The OBV change over the window is the sum of the signed volumes in it; both sums start at bar 1
  // (a signed volume needs the previous close).
  return rollingRatio(signed, volume, window, 1, 0);
}

function signedVolume(close: Float64Array, volume: Float64Array, t: number): number {
  const change = (close[t] ?? 0) - (close[t - 1] ?? 0);
  const v = volume[t] ?? 0;
  return change > 0 ? v : change < 0 ? -v : 0;
}
