export {
  categoricalDistribution,
  contains,
  describeDistribution,
  floatDistribution,
  intDistribution,
  sameDistribution,
  type FloatOptions,
  type IntOptions,
} from './distributions.js';
export type { Sampler, SamplerContext } from './sampler.js';
export type { Pruner, PrunerContext } from './pruner.js';
export * from './samplers/index.js';
export * from './pruners/index.js';
export {
  createSampler,
  parseSamplerSpec,
  SAMPLER_TYPES,
  type SamplerSpec,
  type SamplerType,
} from './sampler-spec.js';
export {
  componentsOf,
  DEFAULT_PRUNER,
  describeComponents,
  DEFAULT_SAMPLER,
  specsOf,
  storedComponents,
  type ComponentDescriptions,
  type ComponentSpecs,
  type StudyComponents,
} from './study-components.js';
export {
  combineSummaries,
  countsOf,
  countStates,
  retriedTrials,
  studyFigures,
  summarizeStudy,
  TRIAL_STATES,
  trialDurationMs,
  type StateCounts,
  type StudyFigures,
  type StudySummary,
  type TrialCounts,
} from './study-summary.js';
export { Trial, TrialPruned } from './trial.js';
export type { TrialProgress, TrialProgressListener } from './trial-progress.js';
export { bestOf, Study, type NewStudyOptions, type TellResult } from './study.js';
export { PRUNED_VALUE_MEANING, prunedValueStep } from './pruned-value.js';
export { newWorkerId } from './worker-id.js';
export type { Objective } from './objective.js';
export { optimize, runTrial, type OptimizeOptions, type OptimizeSummary } from './optimize.js';
export {
  loadObjective,
  registeredObjectives,
  registerObjective,
  resolveObjective,
  type ObjectiveSetup,
  type RegisteredObjective,
} from './objective-module.js';
export {
  runStudyPool,
  runWorkers,
  type StudyPoolOptions,
  type TicketPolicy,
  type WorkerPoolOptions,
  type WorkerPoolSummary,
} from './worker-pool.js';
