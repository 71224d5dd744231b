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
  DEFAULT_SAMPLER,
  specsOf,
  type ComponentSpecs,
} from './study-components.js';
export { Trial, TrialPruned } from './trial.js';
export {
  bestOf,
  newWorkerId,
  Study,
  type NewStudyOptions,
  type StudyComponents,
  type TellResult,
} from './study.js';
export {
  optimize,
  runTrial,
  type Objective,
  type OptimizeOptions,
  type OptimizeSummary,
} from './optimize.js';
export { BUILTIN_OBJECTIVES, loadObjective, resolveObjective } from './objective-module.js';
export { runWorkers, type WorkerPoolOptions, type WorkerPoolSummary } from './worker-pool.js';
export * from '../trading/index.js';
