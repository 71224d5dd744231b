export {
  backtestModel,
  checkModelData,
  disposeModel,
  inSampleRanges,
  loadModel,
  modelDirectory,
  modelMeta,
  trainedRanges,
  type BacktestOptions,
  type ModelData,
} from './backtest.js';
export { computeGae, type GaeInput, type GaeOutput } from './gae.js';
export { GaussianActor, type ActionSample } from './gaussian-policy.js';
export {
  loadPpoModel,
  savePpoModel,
  type LoadedPpoModel,
  type PpoModelJson,
  type PpoTrainingCounters,
  type SavePpoOptions,
} from './ppo-checkpoint.js';
export {
  parsePpoOverrides,
  POLICY_NETWORKS,
  PPO_DEFAULTS,
  resolvePpoConfig,
  type MeanSquash,
  type PolicyNetwork,
  type PpoConfig,
} from './ppo-config.js';
export {
  prepareRunDirectory,
  readRunUpdates,
  trainPpoRun,
  type PpoRunOptions,
  type PpoRunResult,
} from './ppo-run.js';
export {
  actorMean,
  createPpoNetworks,
  disposePpoNetworks,
  gaussianLogProb,
  ppoOptimizer,
  ppoUpdateStep,
  type PpoLossConfig,
  type PpoMinibatch,
  type PpoNetworkConfig,
  type PpoNetworks,
  type PpoStepStats,
} from './ppo-update.js';
export {
  envSeed,
  PpoTrainer,
  type PpoTrainerOptions,
  type PpoTrainerState,
  type PpoUpdateReport,
} from './ppo.js';
export {
  describeMachine,
  MANIFEST_FILE,
  readRunManifest,
  RUN_FILES,
  type ManifestRange,
  type RunBackend,
  type RunEnvOptions,
  type RunManifest,
  writeRunManifest,
} from './run-manifest.js';
export { RolloutBuffer, RolloutCollector, type RolloutStats } from './rollout.js';
export { runVerdictContext, trainingVerdictContext, writeRunReport } from './run-report.js';
export {
  learningCheck,
  oracleSharpe,
  LEARNING_CHECK_FEATURES,
  LEARNING_CHECK_PPO,
  type LearningCheckOptions,
  type LearningCheckResult,
} from './learning-check.js';
export { evaluationReportHtml, evaluationSections, metricRows } from './evaluation-report.js';
export {
  describeTcnEncoder,
  tcnFeatureNames,
  withRecordedEncoder,
  withTcnEncoder,
  type TcnEncoderInfo,
} from './tcn-encoder.js';
