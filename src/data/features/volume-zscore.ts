import { periodOption } from './parameters.js';
import { rollingMeanStd } from './rolling.js';

/** Options for {@link volumeZScore}. */
export interface VolumeZScoreOptions {
  /** Bars in the window, the current one included. Default 20. */
  window?: number;
}

/** Volume z-score options with every default filled in and checked. */
export function resolveVolumeZScoreOptions(
  options: VolumeZScoreOptions = {},
): Required<VolumeZScoreOptions> {
  return { window: periodOption(options.window, 20, 'volumeZScore.window', 2) };
}

/**
 * `(volume − mean) / std` over the last `window` bars including the current one (population standard
 * deviation). Including the bar bounds the value by `(window − 1) / √window` (4.25 for 20), so a
 * volume spike cannot produce an outlier the normalizer has to clip. First value at bar
 * `window - 1`; a window of identical volumes (a closed market printing zeros) reads 0.
 */
export function volumeZScore(
  volume: Float64Array,
  options: VolumeZScoreOptions = {},
): Float64Array {
  const { window } = resolveVolumeZScoreOptions(options);
  const { mean, std } = rollingMeanStd(volume, window);
  // The std array becomes the z-score, bar by bar (NaN before the window is full).
  for (let t = window - 1; t < volume.length; t++) {
    const spread = std[t] ?? NaN;
    std[t] = spread === 0 ? 0 : ((volume[t] ?? NaN) - (mean[t] ?? NaN)) / spread;
  }
  return std;
}
