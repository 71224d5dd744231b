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
export { evaluationReportHtml, evaluationSections, metricRows } from './evaluation-report.js';
