import { TradelabError } from '../core/index.js';
import { timeSplit } from './time-split.js';
import { RV_FEATURE_NAMES } from '../data/index.js';
import {
  SampleBuilder,
  standardizedFeatures,
  targetScaleOf,
  type ChunkDataset,
  type RvSeries,
} from './rv-dataset.js';

/*
 * The forward-return dataset of forecasting sets (seed 004's return models): a chunk of
 * `chunkLen` bars ending at bar t, and the log return from t's close to the close `horizon` bars
 * later. Bars are split by time (the union of the symbols' timestamps) into train, validation and
 * test, with `horizon` bars left out between them so that no training target spans a validation
 * bar. Every bar with a full chunk and a target is a sample in its split.
 */

/** How a return dataset is cut. */
export interface ReturnDatasetOptions {
  chunkLen: number;
  /** Bars ahead of the target return. */
  horizon: number;
  /** Default 0.15. */
  validation?: number;
  /** Default 0.15. */
  test?: number;
}

/** Builds the dataset; throws before any training when a split would be empty. */
export function buildReturnDataset(
  series: readonly RvSeries[],
  options: ReturnDatasetOptions,
): ChunkDataset {
  const { chunkLen, horizon } = options;
  const validationShare = options.validation ?? 0.15;
  const testShare = options.test ?? 0.15;
  if (!Number.isInteger(horizon) || horizon < 1)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--horizon ${horizon} must be an integer ≥ 1 (bars)`,
    );
  const stamps = Array.from(new Set(series.flatMap((s) => Array.from(s.bars.timestamps)))).sort(
    (a, b) => a - b,
  );
  const { counts, splitOf } = timeSplit(stamps, horizon, validationShare, testShare);
  if (counts.train < chunkLen || counts.validation < 1 || counts.test < 1)
    throw new TradelabError(
      'DATA_TOO_SHORT',
      `${stamps.length} bars cannot make train, validation and test splits of ${chunkLen}-bar chunks with ${horizon}-bar gaps`,
      { hint: 'use more bars, a shorter --chunk-len or a shorter --horizon' },
    );

  const { features, mean, sd } = standardizedFeatures(series, (k, t) => {
    const stamp = series[k]?.bars.timestamps[t] ?? Number.NaN;
    return splitOf(stamp) === 'train';
  });
  const builders = {
    train: new SampleBuilder(),
    validation: new SampleBuilder(),
    test: new SampleBuilder(),
  };
  series.forEach((s, k) => {
    const { timestamps, close } = s.bars;
    for (let t = chunkLen - 1; t + horizon < timestamps.length; t++) {
      // The target's end bar must be in the same split: a training target never reaches past the gap.
      const split = splitOf(timestamps[t] ?? Number.NaN);
      if (split === undefined || splitOf(timestamps[t + horizon] ?? Number.NaN) !== split) continue;
      const target = Math.log((close[t + horizon] ?? Number.NaN) / (close[t] ?? Number.NaN));
      if (Number.isFinite(target)) builders[split].add(k, t, target, -1);
    }
  });
  const train = builders.train.build();
  const validation = builders.validation.build();
  const test = builders.test.build();
  for (const [name, samples] of [
    ['training', train],
    ['validation', validation],
    ['test', test],
  ] as const)
    if (samples.count === 0)
      throw new TradelabError(
        'DATA_TOO_SHORT',
        `the ${name} split has no samples with a full chunk and a ${horizon}-bar target`,
        {
          hint: 'use more bars, a shorter --chunk-len or a shorter --horizon',
        },
      );
  return {
    symbols: series.map((s) => s.symbol),
    featureNames: RV_FEATURE_NAMES,
    features,
    normalization: { mean, sd },
    targetScale: targetScaleOf(train),
    chunkLen,
    train,
    validation,
    test,
  };
}
