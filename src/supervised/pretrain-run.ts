import { formatBytes } from '../profiles/index.js';
import type { HarBaseline } from './har-baseline.js';
import type { PrecisionUsed, PretrainSettings } from './pretrain-settings.js';
import type { RegressionMetrics } from './regression-metrics.js';
import type { RvSplitRange } from './rv-dataset.js';

/* What a TCN pretraining run records in `DIR/run.json`: its settings, data, and every epoch. */

export const RUN_FORMAT = 'tradelab-tcn-run';

/** One epoch's figures. */
export interface EpochRow {
  epoch: number;
  /** Mean MSE of the epoch's training steps (standardized targets, dropout on). */
  trainLoss: number;
  /** Correlation of the training steps' forecasts with their targets. */
  trainCorrelation: number;
  /** MSE on the validation rows (standardized targets). */
  validationLoss: number;
  /** The TCN on the validation rows (log RV). */
  validation: RegressionMetrics;
  /** HAR-RV on the same rows. */
  har: RegressionMetrics;
  /** Training seconds (steps only) and evaluation seconds. */
  trainSeconds: number;
  evalSeconds: number;
  /** Optimizer steps a second. */
  itPerSecond: number;
  /** Chunks a second (the unit that compares batch sizes). */
  samplesPerSecond: number;
  timestepsPerSecond: number;
  /** The wasm backend's memory high-water mark (null elsewhere), bytes. */
  peakMemoryBytes: number | null;
  best: boolean;
}

/** What `DIR/run.json` holds. */
export interface PretrainRunJson {
  format: typeof RUN_FORMAT;
  version: 1;
  settings: PretrainSettings;
  precision: PrecisionUsed;
  backend: string;
  data: {
    spec: string;
    /** SHA-256 of the features and targets trained on; a resume refuses other data. */
    digest?: string;
    symbols: string[];
    featureNames: readonly string[];
    normalization: { mean: number[]; sd: number[] };
    targetScale: { mean: number; sd: number };
    ranges: { train: RvSplitRange; validation: RvSplitRange; test: RvSplitRange; gap: number };
    samples: { train: number; validation: number; test: number };
  };
  model: { params: number; receptiveField: number };
  har: HarBaseline;
  status: 'running' | 'stopped' | 'finished' | 'early-stopped';
  history: EpochRow[];
  bestEpoch: number | null;
  /** The best epoch's model against HAR-RV on the test rows, once training ended. */
  test?: { tcn: RegressionMetrics; har: RegressionMetrics };
}

/** The epoch table's column headings (the CLI prints them in capitals). */
export const EPOCH_HEADERS = [
  'epoch',
  'train loss',
  'val loss',
  'train corr',
  'val corr',
  'val R²',
  'HAR corr',
  'HAR R²',
  'time',
  'it/s',
  'chunks/s',
  'peak mem',
] as const;

/** One epoch's cells under {@link EPOCH_HEADERS}; `*` marks the best validation loss so far. */
export function epochCells(row: EpochRow): string[] {
  const significant = (x: number): string => Number(x.toPrecision(3)).toString();
  return [
    `${row.epoch}${row.best ? '*' : ''}`,
    row.trainLoss.toFixed(4),
    row.validationLoss.toFixed(4),
    row.trainCorrelation.toFixed(3),
    row.validation.correlation.toFixed(3),
    row.validation.r2.toFixed(3),
    row.har.correlation.toFixed(3),
    row.har.r2.toFixed(3),
    `${significant(row.trainSeconds + row.evalSeconds)} s`,
    significant(row.itPerSecond),
    significant(row.samplesPerSecond),
    row.peakMemoryBytes === null ? '-' : formatBytes(row.peakMemoryBytes),
  ];
}
