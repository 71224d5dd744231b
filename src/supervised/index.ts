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
  buildRvDataset,
  gatherChunks,
  type ChunkDataset,
  type RvDataset,
  type RvDatasetOptions,
  type RvSamples,
  type RvSeries,
  type RvSplitRange,
} from './rv-dataset.js';
export {
  preparePretrainDirectory,
  pretrainTcn,
  readPretrainRun,
  REPORT_FILE,
  RUN_FILE,
  type PretrainOptions,
} from './tcn-pretrain.js';
export { EPOCH_HEADERS, epochCells, type EpochRow, type PretrainRunJson } from './pretrain-run.js';
export { renderPretrainReport, verdict, writePretrainReport } from './pretrain-report.js';
export {
  directionalAccuracy,
  FORECAST_MODELS,
  FORECAST_TARGETS,
  loadForecastDataset,
  trainForecastModel,
  type ForecastModelKind,
  type ForecastModelResult,
  type ForecastSettings,
  type ForecastTarget,
} from './forecast-model.js';
export {
  runForecastSet,
  type EnsembleResult,
  type ForecastSetOptions,
  type ForecastSetResult,
} from './forecast-set.js';
export { buildReturnDataset, type ReturnDatasetOptions } from './return-dataset.js';
