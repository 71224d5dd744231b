export { buyAndHoldEquity, excessMetrics, type BuyAndHoldOptions } from './benchmark.js';
export { maxDrawdown, type Drawdown } from './drawdown.js';
export {
  computeMetrics,
  type MetricFlag,
  type MetricsInput,
  type TradingMetrics,
} from './metrics.js';
export { barsPerSession, periodsPerYear } from './periods-per-year.js';
export { checkEquity, equityFromReturns, simpleReturns } from './returns.js';
export { evaluate, type Policy, type RangeEvaluation } from './evaluate.js';
export { equityCsv } from './equity-csv.js';
export { holdout, type Holdout, type HoldoutOptions } from './cv-holdout.js';
export { walkForward, type WalkForward, type WalkForwardOptions } from './cv-walk-forward.js';
export {
  cpcv,
  purgedKFold,
  type CpcvOptions,
  type CpcvSplits,
  type GroupSplit,
  type GroupedSplits,
  type PurgedKFoldOptions,
} from './cv-splits.js';
export { exclusionZone, trainingRuns, type PurgeOptions, type TrainingRuns } from './cv-purge.js';
export type { CvSplit } from './cv-window.js';
export {
  PBO_MIN_COMBINATIONS,
  PBO_MIN_TRIALS,
  pboCaveats,
  perBarSharpe,
  probabilityOfBacktestOverfitting,
  type PboMetric,
  type PboOptions,
  type PboResult,
  type PerformanceDegradation,
} from './pbo.js';
export {
  deflatedSharpe,
  expectedMaxSharpe,
  returnMoments,
  type DeflatedSharpe,
  type DeflatedSharpeInput,
} from './deflated-sharpe.js';
export {
  bootstrapSharpeDifference,
  type SharpeBootstrapOptions,
  type SharpeDifference,
} from './sharpe-bootstrap.js';
export { inverseNormalCdf, normalCdf } from './normal-distribution.js';
export {
  FINDING_KINDS,
  rangeVerdict,
  type Finding,
  type RangeVerdict,
  type VerdictContext,
} from './range-verdict.js';
