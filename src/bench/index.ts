export { median, timeRuns, type BenchResult } from './bench-result.js';
export { benchData, type DataBenchOptions } from './data-bench.js';
export { benchEnv, type EnvBenchOptions } from './env-bench.js';
export { benchTune, type TuneBenchOptions } from './tune-bench.js';
export { benchPpoUpdate, type PpoUpdateBenchOptions } from './ppo-update-bench.js';
export { benchPpo, type PpoBenchOptions } from './ppo-bench.js';
export { benchLearn, LEARN_SIGNALS, type LearnBenchOptions } from './learn-bench.js';
export { benchLearnStudy, type LearnStudyBenchOptions } from './learn-study-bench.js';
export { benchCampaign, type CampaignBenchOptions } from './campaign-bench.js';
export { benchGemm, PPO_GEMM_SHAPES, type GemmBenchOptions, type GemmShape } from './gemm-bench.js';
export { benchEval, type EvalBenchOptions } from './eval-bench.js';
export { benchTcn, type TcnBenchOptions } from './tcn-bench.js';
export {
  benchServe,
  type ServeBenchOptions,
  type ServeBenchResult,
  type ServeBenchRow,
} from './serve-bench.js';
