import { availableParallelism, loadavg } from 'node:os';
import { PpoTrainer } from '../agents/ppo.js';
import { useBackend } from '../compute/backends.js';
import { memoryReport } from '../compute/memory-report.js';
import { fitNormalizer } from '../data/features/normalizer.js';
import { featureMarket } from '../env/synthetic-market.js';
import { VectorTradingEnv } from '../env/trading-env.js';
import { median, type BenchResult } from './bench-result.js';

/** Options for {@link benchPpo}. */
export interface PpoBenchOptions {
  /** nEnvs values to measure. Default [16]. */
  envs?: readonly number[];
  /** Hidden units per layer. Default 256. */
  netDim?: number;
  /** Assets (the action dimension). Default 4. */
  assets?: number;
  /** Env steps per update. Default 2048. */
  targetStep?: number;
  /** Minibatch size. Default 512. */
  batchSize?: number;
  /** Passes over each rollout. Default 8. */
  repeatTimes?: number;
  /** Updates measured (after one warm-up update); medians are reported. Default 5. */
  updates?: number;
}

/**
 * End-to-end PPO training throughput on a synthetic market with the default indicators: env
 * steps/s of whole updates, and the phase split (rollout: env stepping + batched policy forward;
 * update: GAE + minibatch gradient steps), the split the seeds' first profile measured.
 */
export async function benchPpo(options: PpoBenchOptions = {}): Promise<BenchResult[]> {
  const backend = await useBackend('wasm');
  const netDim = options.netDim ?? 256;
  const assets = options.assets ?? 4;
  const targetStep = options.targetStep ?? 2048;
  const updates = options.updates ?? 5;
  const machine = {
    cpus: availableParallelism(),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
  const data = featureMarket({ assets, bars: 20_000, seed: 1 });
  const normalizer = fitNormalizer(data.techArray, { assets, features: data.featureNames.length }, [
    [0, data.timestamps.length],
  ]);
  const results: BenchResult[] = [];
  for (const nEnvs of options.envs ?? [16]) {
    const steps = Math.max(1, Math.round(targetStep / nEnvs)) * nEnvs;
    const env = new VectorTradingEnv(data, normalizer, { nEnvs, episodeLength: 1000, seed: 1 });
    const trainer = new PpoTrainer(env, {
      netDim,
      nEnvs,
      targetStep: steps,
      batchSize: Math.min(options.batchSize ?? 512, steps),
      repeatTimes: options.repeatTimes ?? 8,
      breakStep: steps * (updates + 1),
      seed: 1,
    });
    trainer.update(); // warm-up: kernels compiled, Adam's slots created
    const reports = Array.from({ length: updates }, () => trainer.update());
    const memory = memoryReport();
    trainer.dispose();
    const total = reports.map((r) => r.rolloutSeconds + r.updateSeconds);
    const rollout = reports.map((r) => r.rolloutSeconds);
    const update = reports.map((r) => r.updateSeconds);
    const envShare = median(reports.map((r) => r.envSeconds / r.rolloutSeconds));
    const rolloutShare = median(
      reports.map((r) => r.rolloutSeconds / (r.rolloutSeconds + r.updateSeconds)),
    );
    const samples = median(reports.map((r) => r.samples * (options.repeatTimes ?? 8)));
    const label = `nEnvs ${nEnvs}, netDim ${netDim}`;
    results.push(
      {
        bench: 'ppo',
        name: `PPO training, ${label}: rollout ${(rolloutShare * 100).toFixed(0)}%, update ${((1 - rolloutShare) * 100).toFixed(0)}%`,
        items: steps,
        seconds: median(total),
        runs: total,
        rate: steps / median(total),
        unit: 'env steps/s',
        machine,
        memory,
      },
      {
        bench: 'ppo',
        name: `  rollout phase: envs ${(envShare * 100).toFixed(0)}%, policy forward ${((1 - envShare) * 100).toFixed(0)}%`,
        items: steps,
        seconds: median(rollout),
        runs: rollout,
        rate: steps / median(rollout),
        unit: 'env steps/s',
        machine,
      },
      {
        bench: 'ppo',
        name: `  update phase: ${options.repeatTimes ?? 8} passes of minibatches of ${Math.min(options.batchSize ?? 512, steps)}, ${backend.matmul}`,
        items: samples,
        seconds: median(update),
        runs: update,
        rate: samples / median(update),
        unit: 'samples/s',
        machine,
      },
    );
  }
  return results;
}
