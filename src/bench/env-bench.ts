import { availableParallelism, loadavg } from 'node:os';
import { listBackends } from '../compute/backends.js';
import { Rng } from '../core/random.js';
import { syntheticMarket } from '../env/synthetic-market.js';
import { VectorTradingEnv } from '../env/trading-env.js';
import { median, timeRuns, type BenchResult, type BenchStep } from './bench-result.js';
import { benchGpuEnv } from './gpu-env-bench.js';

/** Options for {@link benchEnv}. */
export interface EnvBenchOptions {
  /** Assets per env. Default 10. */
  assets?: number;
  /** Features per asset (a seeded random techArray, not computed indicators). Default 7. */
  features?: number;
  /** Bars of features per observation. Default 1. */
  lookback?: number;
  /** The nEnvs values to measure. Default [1, 16, 256, 2048]. */
  envs?: readonly number[];
  /** Env steps per run, summed over envs (each nEnvs runs steps / nEnvs vector steps). Default 2,000,000. */
  steps?: number;
  /** Runs per figure; the median is reported. Default 3. */
  repeat?: number;
  /** Progress: before each nEnvs, and at the end. */
  onStep?: BenchStep;
  /** Bars of synthetic data. Default 20,000. */
  bars?: number;
  /**
   * Rows of the env stepped on the GPU (gpu-env-bench.ts): 'auto' on a hardware adapter, 'always'
   * on a software one too (lavapipe), 'never'. Default 'auto'.
   */
  gpu?: 'auto' | 'always' | 'never';
  /** The nEnvs values of the GPU rows. Default [1024, 65536, 1048576]. */
  gpuEnvs?: readonly number[];
}

/** The targets: aggregate env steps/s at 1 and 256 envs (10 assets, 7 features). */
const TARGETS: Record<number, number> = { 1: 1_000_000, 256: 3_000_000 };

/**
 * How many action rows to cycle: enough that the branch predictor cannot learn the pattern (a
 * trained policy's actions are not a short cycle), but at most 128 KiB, since a policy writes each
 * step's actions just before the step (they are in cache): a larger pool would measure memory
 * traffic that training never has. A power of two, 2 to 4096.
 */
function actionRows(width: number): number {
  let rows = 4096;
  while (rows > 2 && rows * width * 4 > 128 * 1024) rows /= 2;
  return rows;
}

/**
 * The env's benchmark: aggregate env steps/s of {@link VectorTradingEnv} with random actions
 * (drawn once, preallocated; a pool of action rows cycled, see {@link actionRows}), single thread,
 * on synthetic 1h bars with a random techArray, for each nEnvs. Episodes start at random bars and
 * autoreset at the data's end. With a GPU (see `gpu`), the same env on the device, per nEnvs.
 */
export async function benchEnv(options: EnvBenchOptions = {}): Promise<BenchResult[]> {
  const assets = options.assets ?? 10;
  const features = options.features ?? 7;
  const lookback = options.lookback ?? 1;
  const envs = options.envs ?? [1, 16, 256, 2048];
  const steps = options.steps ?? 2_000_000;
  const repeat = options.repeat ?? 3;
  const data = syntheticMarket({ assets, features, bars: options.bars ?? 20_000, seed: 1 });
  const machine = {
    cpus: availableParallelism(),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
  const results: BenchResult[] = [];
  for (const nEnvs of envs) {
    options.onStep?.(`${nEnvs} envs`, results.length, envs.length);
    const env = new VectorTradingEnv(data, undefined, { nEnvs, lookback, seed: 1 });
    const width = nEnvs * assets;
    const rows = actionRows(width);
    const pool = new Float32Array(rows * width);
    const rng = new Rng(2);
    for (let j = 0; j < pool.length; j++) pool[j] = rng.uniform() * 2 - 1;
    const batches = Array.from({ length: rows }, (_, r) =>
      pool.subarray(r * width, (r + 1) * width),
    );
    const vectorSteps = Math.max(1, Math.round(steps / nEnvs));
    const run = (): void => {
      for (let s = 0; s < vectorSteps; s++) env.step(batches[s & (rows - 1)] as Float32Array);
    };
    run(); // warm-up: let the JIT compile the step loop
    const runs = await timeRuns(repeat, run);
    const seconds = median(runs);
    const items = vectorSteps * nEnvs;
    const target = assets === 10 && features === 7 && lookback === 1 ? TARGETS[nEnvs] : undefined;
    results.push({
      bench: 'env',
      name: `step ×${nEnvs} envs (${assets} assets, ${features} features, lookback ${lookback})`,
      items,
      seconds,
      runs,
      rate: items / seconds,
      unit: 'steps/s',
      machine,
      ...(target === undefined
        ? {}
        : {
            target,
            targetSource:
              "the project's goals for the env, one thread: 1 M steps/s with one env, 3 M with 256 (10 assets, 7 features)",
          }),
    });
  }
  const gpu = options.gpu ?? 'auto';
  if (gpu !== 'never') {
    const adapter = (await listBackends()).find((b) => b.name === 'gpu')?.webgpuAdapter;
    if (adapter !== undefined && (gpu === 'always' || !adapter.software))
      results.push(
        ...(await benchGpuEnv({
          data,
          assets,
          features,
          lookback,
          envs: options.gpuEnvs ?? [1024, 65_536, 1_048_576],
          steps: options.steps ?? 20_000_000,
          repeat,
          onStep: (name) => options.onStep?.(name, envs.length, envs.length + 1),
        })),
      );
  }
  options.onStep?.('done', envs.length, envs.length);
  return results;
}
