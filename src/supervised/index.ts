export { fitHarBaseline, harForecast, type HarBaseline } from './har-baseline.js';
export {
  checkPretrainSettings,
  PRECISIONS,
  PRETRAIN_DEFAULTS,
  resolvePrecision,
  type Precision,
  type PrecisionUsed,
  type PretrainSettings,
} from './pretrain-settings.js';
export { regressionMetrics, type RegressionMetrics } from './regression-metrics.js';
export {
  barFeatures,
  buildRvDataset,
  gatherChunks,
  RV_FEATURE_NAMES,
  type RvDataset,
  type RvDatasetOptions,
  type RvSamples,
  type RvSeries,
  type RvSplitRange,
} from './rv-dataset.js';
export {
  pretrainTcn,
  readPretrainRun,
  RUN_FILE,
  type EpochRow,
  type PretrainOptions,
  type PretrainRunJson,
} from './tcn-pretrain.js';
