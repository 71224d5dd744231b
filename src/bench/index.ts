export { median, timeRuns, type BenchResult } from './bench-result.js';
export { benchData, type DataBenchOptions } from './data-bench.js';
