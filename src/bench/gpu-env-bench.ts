import { availableParallelism, loadavg } from 'node:os';
import { GpuTradingEnv } from '../agents/gpu-trading-env.js';
import { Rng } from '../core/random.js';
import type { MarketData } from '../data/load-market-data.js';
import { encodeDispatches, openGpuDevice } from '../gpu/index.js';
import { median, timeRuns, type BenchResult } from './bench-result.js';

/*
 * The trading env's step on the GPU (agents/gpu-trading-env.ts), for `tradelab bench env --gpu`:
 * aggregate env steps/s per nEnvs, the same data and options as the CPU rows. A run encodes its
 * vector steps into one compute pass, submits it and waits for the last step's result (a read of
 * one value): wall-clock time of the whole, so the figure includes the submit and the wait. The
 * actions are random and fixed for the run (on the device a policy writes them; their values
 * only move the trades).
 */

/** Options of {@link benchGpuEnv}. */
export interface GpuEnvBenchOptions {
  data: MarketData;
  assets: number;
  features: number;
  lookback: number;
  /** nEnvs values. */
  envs: readonly number[];
  /** Env steps per run, summed over envs; at least 20 vector steps. */
  steps: number;
  repeat: number;
  onStep?: (name: string) => void;
}

/** One row per nEnvs on this machine's adapter. */
export async function benchGpuEnv(options: GpuEnvBenchOptions): Promise<BenchResult[]> {
  const gpu = await openGpuDevice();
  const machine = {
    cpus: availableParallelism(),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
  const adapter = gpu.adapter.description || gpu.adapter.device;
  const results: BenchResult[] = [];
  try {
    for (const nEnvs of options.envs) {
      options.onStep?.(`${nEnvs} envs on the GPU`);
      const env = await GpuTradingEnv.create(gpu, options.data, undefined, {
        nEnvs,
        lookback: options.lookback,
        seed: 1,
      });
      try {
        const rng = new Rng(2);
        const actions = new Float32Array(nEnvs * options.assets);
        for (let j = 0; j < actions.length; j++) actions[j] = rng.uniform() * 2 - 1;
        env.setActions(actions);
        const vectorSteps = Math.max(20, Math.round(options.steps / nEnvs));
        const run = async (): Promise<void> => {
          const encoder = gpu.device.createCommandEncoder();
          const pass = encoder.beginComputePass();
          let count = 0;
          for (let s = 0; s < vectorSteps; s++) count += encodeDispatches(pass, [env.stepKernel]);
          pass.end();
          gpu.submit(encoder, count);
          await gpu.read(env.floats, 0, 4);
        };
        await run(); // warm-up: the pipeline's first use
        const runs = await timeRuns(options.repeat, run);
        const seconds = median(runs);
        const items = vectorSteps * nEnvs;
        results.push({
          bench: 'env',
          name: `GPU step ×${nEnvs} envs on ${adapter} (${options.assets} assets, ${options.features} features, lookback ${options.lookback}; wall clock)`,
          items,
          seconds,
          runs,
          rate: items / seconds,
          unit: 'steps/s',
          machine,
        });
      } finally {
        env.destroy();
      }
    }
  } finally {
    gpu.destroy();
  }
  return results;
}
