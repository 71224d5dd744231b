import { TradelabError } from '../core/index.js';
import {
  barFeatures,
  BAR_FEATURE_COUNT as FEATURES,
  RV_FEATURE_NAMES,
  dailyRealizedVariance,
  DEFAULT_FORWARD_HORIZON,
  forwardRealizedVariance,
  harFeatures,
  type Bars,
  type Calendar,
} from '../data/index.js';
import { timeSplit } from './time-split.js';

/*
 * The realized-volatility dataset of TCN pretraining (seed 003): intraday bars of one or more
 * symbols become per-bar features; a sample is a chunk of `chunkLen` bars ending at bar t, and its
 * target is the log of the forward realized variance over the `horizon` sessions after t's session
 * (days d+1 … d+h, from `data rv`). Sessions are split by time into train, validation and test, with
 * `horizon` sessions left out between them: consecutive targets overlap by h − 1 days, so without
 * the gap the last training targets would be computed from the validation period's days.
 *
 * Training samples end at any bar of a training session (every chunk is a sample); validation and
 * test samples end at each session's last bar, one per symbol and day, where the HAR-RV baseline
 * forecasts the same target from the same day's information: both models are scored on the same
 * rows.
 */

/** One symbol's bars. */
export interface RvSeries {
  symbol: string;
  bars: Bars;
  calendar: Calendar;
  /** Bar length in ms. */
  barMs: number;
}

/** How the dataset is cut. */
export interface RvDatasetOptions {
  /** Bars per chunk. */
  chunkLen: number;
  /** Forward horizon of the target, in sessions. Default 22. */
  horizon?: number;
  /** Share of the sessions (after the gaps) for validation. Default 0.15. */
  validation?: number;
  /** Share for test. Default 0.15. */
  test?: number;
  /** Sampling interval of realized variance, ms. Default 5 minutes (`data rv`'s). */
  samplingMs?: number;
}

/** Samples of one split: chunk ends and targets, aligned. */
export interface RvSamples {
  /** Index of the symbol in {@link RvDataset.symbols}. */
  symbol: Int32Array;
  /** The chunk's last bar (index into the symbol's bars). */
  endBar: Int32Array;
  /** Log forward RV (the target, unstandardized). */
  target: Float64Array;
  /** The session (index into the symbol's RV days) the chunk ends in. */
  day: Int32Array;
  count: number;
}

/** A split's first and last session (day numbers since 1970-01-01), and its sample count. */
export interface RvSplitRange {
  firstDay: number;
  lastDay: number;
  sessions: number;
}

/** Chunks of per-bar features and a target per chunk, split by time: what a sequence model trains on. */
export interface ChunkDataset {
  symbols: string[];
  featureNames: readonly string[];
  /** Per symbol: standardized features [bars × features], row-major. */
  features: Float32Array[];
  /** Per-feature mean and sd of the training bars (what standardized them). */
  normalization: { mean: number[]; sd: number[] };
  /** Mean and sd of the training targets (the loss runs on standardized targets). */
  targetScale: { mean: number; sd: number };
  chunkLen: number;
  train: RvSamples;
  validation: RvSamples;
  test: RvSamples;
}

/** The realized-volatility dataset. */
export interface RvDataset extends ChunkDataset {
  horizon: number;
  /** Chunks ending at every bar of the training sessions. */
  train: RvSamples;
  /** Chunks ending at the last bar of each session, per split. */
  trainCloses: RvSamples;
  ranges: { train: RvSplitRange; validation: RvSplitRange; test: RvSplitRange; gap: number };
  /** Per symbol: HAR features (log RV daily, weekly, monthly) by RV day index. */
  har: { daily: Float64Array; weekly: Float64Array; monthly: Float64Array }[];
}

/** Builds the dataset; throws before any training when a split would be empty. */
export function buildRvDataset(series: readonly RvSeries[], options: RvDatasetOptions): RvDataset {
  const horizon = options.horizon ?? DEFAULT_FORWARD_HORIZON;
  const validationShare = options.validation ?? 0.15;
  const testShare = options.test ?? 0.15;
  const { chunkLen } = options;
  if (!Number.isInteger(chunkLen) || chunkLen < 2)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `chunk length ${chunkLen} must be an integer ≥ 2 bars`,
    );
  if (!(validationShare > 0 && testShare > 0 && validationShare + testShare < 0.9))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `validation ${validationShare} and test ${testShare} shares must be positive and leave at least 10% for training`,
    );
  if (series.length === 0)
    throw new TradelabError('INVALID_ARGUMENT', 'no symbols to build the dataset from');

  // Per symbol: RV by session, the session of every bar, targets, HAR features.
  const perSymbol = series.map((s) => {
    const rv = dailyRealizedVariance(s.bars, s.calendar, s.barMs, {
      ...(options.samplingMs === undefined ? {} : { samplingMs: options.samplingMs }),
    });
    const dayIndex = new Map<number, number>();
    rv.days.forEach((day, i) => dayIndex.set(day, i));
    const target = forwardRealizedVariance(rv.rv, horizon);
    const n = s.bars.timestamps.length;
    const barDay = new Int32Array(n);
    for (let t = 0; t < n; t++)
      barDay[t] = dayIndex.get(s.calendar.sessionOf(s.bars.timestamps[t] ?? 0, s.barMs)) ?? -1;
    return { rv, target, barDay, har: harFeatures(rv.rv) };
  });

  // Split the union of sessions by time: train | gap | validation | gap | test.
  const allDays = Array.from(new Set(perSymbol.flatMap((p) => Array.from(p.rv.days)))).sort(
    (a, b) => a - b,
  );
  const cut = timeSplit(allDays, horizon, validationShare, testShare);
  const { train: trainDays, validation: validationDays, test: testDays } = cut.counts;
  if (trainDays < 1 || validationDays < 1 || testDays < 1) {
    // Each of validation and test needs floor(usable · share) ≥ 1.
    const needed = 2 * horizon + Math.ceil(1 / Math.min(validationShare, testShare));
    throw new TradelabError(
      'DATA_TOO_SHORT',
      `${allDays.length} sessions of RV cannot make train, validation and test splits with ${horizon}-session gaps: ` +
        `validation would get ${Math.max(0, validationDays)} sessions and test ${Math.max(0, testDays)}`,
      {
        hint: `use at least ${needed} sessions of intraday bars (many more for validation and test figures that mean something), or a shorter --horizon`,
      },
    );
  }
  const { splitOf } = cut;

  // Features, standardized by the training bars' mean and sd.
  const { features, mean, sd } = standardizedFeatures(series, (k, t) => {
    const p = perSymbol[k];
    const d = p?.barDay[t] ?? -1;
    return d >= 0 && splitOf(p?.rv.days[d] ?? Number.NaN) === 'train';
  });

  // Samples.
  const builders = {
    train: new SampleBuilder(),
    trainCloses: new SampleBuilder(),
    validation: new SampleBuilder(),
    test: new SampleBuilder(),
  };
  series.forEach((s, k) => {
    const p = perSymbol[k];
    if (p === undefined) return;
    const n = s.bars.timestamps.length;
    for (let t = chunkLen - 1; t < n; t++) {
      const d = p.barDay[t] ?? -1;
      if (d < 0) continue;
      const target = Math.log(p.target[d] ?? Number.NaN);
      if (!Number.isFinite(target)) continue;
      const split = splitOf(p.rv.days[d] ?? Number.NaN);
      if (split === undefined) continue;
      const isClose = t + 1 === n || (p.barDay[t + 1] ?? -1) !== d;
      if (split === 'train') builders.train.add(k, t, target, d);
      if (!isClose) continue;
      if (split === 'train') builders.trainCloses.add(k, t, target, d);
      else builders[split].add(k, t, target, d);
    }
  });
  const train = builders.train.build();
  const validation = builders.validation.build();
  const test = builders.test.build();
  for (const [name, samples] of [
    ['training', train],
    ['validation', validation],
    ['test', test],
  ] as const) {
    if (samples.count === 0)
      throw new TradelabError(
        'DATA_TOO_SHORT',
        `the ${name} split has no samples: no session in it has a full ${chunkLen}-bar chunk and a ${horizon}-session forward target`,
        { hint: 'use more sessions of data, a shorter --chunk-len or a shorter --horizon' },
      );
  }
  const targetScale = targetScaleOf(train);
  return {
    symbols: series.map((s) => s.symbol),
    featureNames: RV_FEATURE_NAMES,
    features,
    normalization: { mean, sd },
    targetScale,
    chunkLen,
    horizon,
    train,
    trainCloses: builders.trainCloses.build(),
    validation,
    test,
    ranges: {
      train: { firstDay: allDays[0] ?? Number.NaN, lastDay: cut.trainEnd, sessions: trainDays },
      validation: {
        firstDay: cut.validationStart,
        lastDay: cut.validationEnd,
        sessions: validationDays,
      },
      test: { firstDay: cut.testStart, lastDay: cut.last, sessions: testDays },
      gap: horizon,
    },
    har: perSymbol.map((p) => p.har),
  };
}

/**
 * Every symbol's {@link barFeatures}, standardized by the mean and sd of the bars `isTrainBar`
 * picks (symbol index, bar index): statistics of the training split only.
 */
export function standardizedFeatures(
  series: readonly RvSeries[],
  isTrainBar: (symbol: number, bar: number) => boolean,
): { features: Float32Array[]; mean: number[]; sd: number[] } {
  const raw = series.map((s) => barFeatures(s.bars));
  const sum = new Float64Array(FEATURES);
  const sumSq = new Float64Array(FEATURES);
  let trainBars = 0;
  raw.forEach((f, k) => {
    const n = f.length / FEATURES;
    for (let t = 0; t < n; t++) {
      if (!isTrainBar(k, t)) continue;
      trainBars++;
      for (let j = 0; j < FEATURES; j++) {
        const v = f[t * FEATURES + j] ?? 0;
        sum[j] = (sum[j] ?? 0) + v;
        sumSq[j] = (sumSq[j] ?? 0) + v * v;
      }
    }
  });
  const mean = Array.from(sum, (v) => v / Math.max(trainBars, 1));
  const sd = Array.from(sumSq, (v, j) => {
    const m = mean[j] ?? 0;
    const variance = v / Math.max(trainBars, 1) - m * m;
    return variance > 1e-24 ? Math.sqrt(variance) : 1;
  });
  const features = raw.map((f) => {
    const out = new Float32Array(f.length);
    for (let i = 0; i < f.length; i++)
      out[i] = ((f[i] ?? 0) - (mean[i % FEATURES] ?? 0)) / (sd[i % FEATURES] ?? 1);
    return out;
  });
  return { features, mean, sd };
}

/** Mean and sd of a split's targets (sd at least 1e-6). */
export function targetScaleOf(samples: RvSamples): { mean: number; sd: number } {
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < samples.count; i++) {
    const v = samples.target[i] ?? 0;
    sum += v;
    sumSq += v * v;
  }
  const mean = sum / Math.max(samples.count, 1);
  return { mean, sd: Math.sqrt(Math.max(sumSq / Math.max(samples.count, 1) - mean * mean, 1e-12)) };
}

/** Copies the chunks of `rows` (indexes into `samples`) into `out` [rows, chunkLen, features]. */
export function gatherChunks(
  dataset: ChunkDataset,
  samples: RvSamples,
  rows: ArrayLike<number>,
  out: Float32Array,
): void {
  const width = dataset.chunkLen * FEATURES;
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r] ?? 0;
    const features = dataset.features[samples.symbol[i] ?? 0] as Float32Array;
    const end = (samples.endBar[i] ?? 0) + 1;
    out.set(features.subarray((end - dataset.chunkLen) * FEATURES, end * FEATURES), r * width);
  }
}

/** Grows sample arrays. */
export class SampleBuilder {
  private symbol: number[] = [];
  private endBar: number[] = [];
  private target: number[] = [];
  private day: number[] = [];

  add(symbol: number, endBar: number, target: number, day: number): void {
    this.symbol.push(symbol);
    this.endBar.push(endBar);
    this.target.push(target);
    this.day.push(day);
  }

  build(): RvSamples {
    return {
      symbol: Int32Array.from(this.symbol),
      endBar: Int32Array.from(this.endBar),
      target: Float64Array.from(this.target),
      day: Int32Array.from(this.day),
      count: this.symbol.length,
    };
  }
}
