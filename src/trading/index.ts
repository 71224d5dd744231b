export {
  AGGREGATES,
  DEFAULT_CV,
  DEFAULT_PRESET,
  defaultBudgetScale,
  describeDrlStudy,
  POLICY_NETWORKS,
  PresetFileSchema,
  readCheckedFile,
  resolveDrlStudy,
  StudyFileSchema,
  PolicySettingSchema,
  resolvePolicySetting,
  type AggregateSpec,
  type DrlStudyInput,
  type DrlStudySpec,
  type FromSpec,
  type PolicyNetwork,
  type PresetFile,
  type StudyFile,
} from './study-spec.js';
export {
  formatCvMethod,
  parseCvMethod,
  parseHoldout,
  studySplits,
  type CvMethod,
  type HoldoutSpec,
  type StudySplits,
} from './cv-spec.js';
export { listPresets, loadPreset, presetDirectory } from './presets.js';
export {
  ENV_PARAMS,
  isRange,
  largestValue,
  PPO_PARAMS,
  STUDY_PARAMS,
  suggestParams,
  trialBudget,
  trialConfigs,
  type ParamSpec,
  type RangeParam,
  type TrialBudget,
} from './search-space.js';
export { checkFeatureGroups, FEATURE_GROUPS, featureOptionsOf } from './feature-groups.js';
export { loadStudyData, studyMarket, withStudyEncoder } from './study-data.js';
export {
  createDrlObjective,
  decodeOosReturns,
  drlSpecOf,
  DRL_ARTIFACTS,
  encodeOosReturns,
  type DrlObjectiveHost,
  type TrialShape,
} from './drl-objective.js';
export {
  aggregateSplits,
  barReturns,
  splitMetrics,
  type BarReturns,
  type SplitResult,
} from './split-metrics.js';
export { bestTrials, fineTuneSpec, narrowParam } from './fine-tune.js';
export { studyPbo, type StudyPbo } from './study-pbo.js';
export { studyDeflatedSharpe, type StudyDeflatedSharpe } from './study-deflated-sharpe.js';
export { checkKeptModel, evaluateTrialModel, holdoutRange, loadTrialModel } from './trial-model.js';
export { largestTrial, type LargestTrial } from './largest-trial.js';
export { memoryShortfall, type DrlWorkerSettings } from './drl-worker-objective.js';
export { drlLimitsOf, fitParamsToProfile, type DrlLimits } from './profile-limits.js';
export { MarketCache, trialEquity, type TrialEquity } from './trial-equity.js';
export { splitsTurnover, trialVerdict, type OosCurves } from './trial-verdict.js';
