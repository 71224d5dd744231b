/**
 * tradelab's programmatic API: the names a user calls, by area (docs/api.md has an example of
 * each). Nothing here prints. The CLI is built on the same folders; what is not named here is
 * internal and may change without notice.
 */

// Errors: one type with a stable code (docs/errors.md).
export {
  ERROR_CODES,
  isTradelabError,
  TradelabError,
  type ErrorCategory,
  type ErrorCode,
} from './core/index.js';

// A project: config, GPU profile, backend, the planner's answer for this machine, and the use
// cases the CLI and the service run on it, with the commands' defaults and guards (`trainPpo`:
// `tradelab train ppo`; `pretrainTcnRun`: `tradelab pretrain tcn`; `runCampaign`: `campaign run`;
// `runStudy`: `study run`; `runBacktest`: `backtest`; `trainForecastSet`: `train forecast`).
export {
  openProject,
  planHere,
  pretrainTcnRun,
  runBacktest,
  runCampaign,
  runStudy,
  startBackend,
  tradelabVersion,
  trainForecastSet,
  trainPpo,
  type BacktestOptions,
  type ForecastSetOptions,
  type PlanHere,
  type PlanRequest,
  type PretrainTcnOptions,
  type Project,
  type RunCampaignOptions,
  type RunStudyOptions,
  type TrainPpoOptions,
  type TrainPpoOutcome,
} from './app/index.js';
export { loadConfig, type Config, type Settings } from './config/index.js';
export {
  BUILTIN_PROFILES,
  createProfileRegistry,
  detectGpus,
  planWorkers,
  type Detection,
  type GpuProfile,
  type PlanInput,
  type ProfileRegistry,
  type WorkerPlan,
} from './profiles/index.js';

// Market data: the store, loading aligned symbols, synthetic markets, features (and their
// normalizer, fitted on training bars only), realized variance. Resampling and realized variance
// take a trading calendar (`calendarFor('24/7')`).
export {
  calendarFor,
  computeFeatures,
  dailyRealizedVariance,
  fitHar,
  fitNormalizer,
  generateSynthetic,
  importFiles,
  loadMarketData,
  openDatasetStore,
  parseDatasetKeys,
  resampleBars,
  type Bars,
  type Calendar,
  type DatasetStore,
  type FeatureOptions,
  type ImportOptions,
  type LoadMarketDataOptions,
  type MarketData,
  type Normalizer,
  type SynthOptions,
  type Timeframe,
} from './data/index.js';

// The vectorized trading environment, and a synthetic market with real features to try it on
// (no dataset store needed: examples, tests, benchmarks).
export {
  featureMarket,
  VectorTradingEnv,
  type EnvStepResult,
  type FeatureMarketOptions,
  type TradingEnvOptions,
} from './env/index.js';

// Evaluation: metrics, backtests of a policy, cross-validation splits, PBO.
export {
  computeMetrics,
  cpcv,
  evaluate,
  holdout,
  probabilityOfBacktestOverfitting,
  purgedKFold,
  walkForward,
  type Policy,
  type RangeEvaluation,
  type TradingMetrics,
} from './eval/index.js';

// Study storage: memory, SQLite (default), PostgreSQL (several machines).
export {
  openMemoryStorage,
  openSqliteStorage,
  openStorage,
  type StudyStorage,
  type TrialRecord,
} from './storage/index.js';

// The study engine: studies, trials, samplers, pruners, worker processes.
export {
  createPruner,
  createSampler,
  loadObjective,
  optimize,
  registerObjective,
  runWorkers,
  Study,
  Trial,
  TrialPruned,
  type NewStudyOptions,
  type Objective,
  type ObjectiveSetup,
  type OptimizeOptions,
  type OptimizeSummary,
  type Pruner,
  type PrunerSpec,
  type Sampler,
  type SamplerSpec,
  type TrialProgress,
} from './tune/index.js';

// Compute backends (wasm with native products, webgpu) and the networks.
export { listBackends, useBackend, type BackendName } from './compute/index.js';
export {
  FtTransformer,
  loadTcnModel,
  Mlp,
  saveTcnModel,
  Tcn,
  TcnTrainer,
  tcnSize,
  WindowMlp,
  type TcnConfig,
} from './models/index.js';

// PPO agents: train a run, load a model, backtest it.
export {
  backtestModel,
  disposeModel,
  loadModel,
  PPO_DEFAULTS,
  PpoTrainer,
  resolvePpoConfig,
  trainPpoRun,
  withTcnEncoder,
  type PpoConfig,
  type PpoRunOptions,
  type PpoRunResult,
} from './agents/index.js';

// Trading studies: presets, the drl objective, PBO over a study, a trial's kept model.
export {
  createDrlObjective,
  evaluateTrialModel,
  listPresets,
  loadPreset,
  resolveDrlStudy,
  studyMarket,
  studyPbo,
  type DrlStudySpec,
} from './trading/index.js';

// Campaigns: several trading studies at once, their report and projections.
export {
  buildCampaignReport,
  projectCampaign,
  readCampaign,
  type CampaignReport,
} from './campaign/index.js';

// Supervised models: TCN pretraining on realized volatility beside HAR-RV, forecasting sets.
export {
  buildReturnDataset,
  buildRvDataset,
  fitHarBaseline,
  harForecast,
  pretrainTcn,
  readPretrainRun,
  regressionMetrics,
  runForecastSet,
  trainForecastModel,
  type ForecastSettings,
  type PretrainRunJson,
  type PretrainSettings,
  type RvDataset,
} from './supervised/index.js';
