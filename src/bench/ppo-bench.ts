import { availableParallelism, loadavg } from 'node:os';
import { ResidentPpo } from '../agents/gpu-resident-ppo.js';
import { PpoTrainer, type PpoUpdateReport } from '../agents/ppo.js';
import { useBackend, type ActiveBackend } from '../compute/backends.js';
import { memoryReport } from '../compute/memory-report.js';
import { fitNormalizer } from '../data/features/normalizer.js';
import { featureMarket } from '../env/synthetic-market.js';
import { VectorTradingEnv } from '../env/trading-env.js';
import { median, type BenchResult } from './bench-result.js';
import { TradelabError } from '../core/index.js';

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
  /** The backend to train on, already started by the caller. Default: wasm, started here. */
  backend?: ActiveBackend;
  /**
   * nEnvs values of rows with the whole trial resident on the GPU (agents/gpu-resident-ppo.ts:
   * env, rollout, update on the device), each rollout max(8, targetStep / nEnvs) steps of every
   * env. Needs the gpu backend. Default: none.
   */
  residentEnvs?: readonly number[];
}

/**
 * End-to-end PPO training throughput on a synthetic market with the default indicators: env
 * steps/s of whole updates, and the phase split (rollout: env stepping + batched policy forward;
 * update: GAE + minibatch gradient steps), the split the seeds' first profile measured, and the
 * host↔device transfers of an update.
 */
export async function benchPpo(options: PpoBenchOptions = {}): Promise<BenchResult[]> {
  const backend = options.backend ?? (await useBackend('wasm'));
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
    const trainer = new PpoTrainer(
      env,
      {
        netDim,
        nEnvs,
        targetStep: steps,
        batchSize: Math.min(options.batchSize ?? 512, steps),
        repeatTimes: options.repeatTimes ?? 8,
        breakStep: steps * (updates + 1),
        seed: 1,
      },
      // On the engine (--backend gpu) the update runs there.
      backend.gpu === undefined ? {} : { gpu: backend.gpu },
    );
    await trainer.update(); // warm-up: kernels compiled, Adam's slots created
    const reports: PpoUpdateReport[] = [];
    for (let u = 0; u < updates; u++) reports.push(await trainer.update());
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
    const transferMiB = median(reports.map((r) => (r.uploadBytes + r.downloadBytes) / 2 ** 20));
    const reads = median(reports.map((r) => r.reads));
    const transfer = reports.map((r) => r.transferSeconds);
    const transferShare = median(
      reports.map((r) => r.transferSeconds / (r.rolloutSeconds + r.updateSeconds)),
    );
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
        name: `  update phase: ${options.repeatTimes ?? 8} passes of minibatches of ${Math.min(options.batchSize ?? 512, steps)}, ${backend.name}: ${backend.matmul}`,
        items: samples,
        seconds: median(update),
        runs: update,
        rate: samples / median(update),
        unit: 'samples/s',
        machine,
      },
      {
        bench: 'ppo',
        // A read waits for the device's queued work: on a GPU this share is transfers + waiting.
        name: `  host↔device: ${transferMiB.toFixed(1)} MiB in ${reads.toLocaleString('en-US')} reads per update, ${(transferShare * 100).toFixed(1)}% of its time`,
        items: reads,
        seconds: median(transfer),
        runs: transfer,
        rate: reads / median(transfer),
        unit: 'reads/s',
        machine,
      },
    );
  }
  for (const nEnvs of options.residentEnvs ?? []) {
    if (backend.gpu === undefined)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        'resident PPO rows train on the GPU engine; this run has no GPU backend',
        {
          hint: 'run `tradelab bench ppo --backend gpu --resident-envs …` on a machine with a GPU',
        },
      );
    const steps = Math.max(8, Math.round(targetStep / nEnvs));
    const ppo = await ResidentPpo.create(
      backend.gpu,
      data,
      normalizer,
      { episodeLength: 1000, seed: 1 },
      {
        netDim,
        nEnvs,
        targetStep: steps * nEnvs,
        batchSize: Math.min(options.batchSize ?? 512, steps * nEnvs),
        repeatTimes: options.repeatTimes ?? 8,
        seed: 1,
      },
    );
    try {
      await ppo.update(); // warm-up: kernels compiled
      const seconds: number[] = [];
      for (let u = 0; u < updates; u++) seconds.push((await ppo.update()).seconds);
      results.push({
        bench: 'ppo',
        name: `PPO training resident on the GPU (env, rollout, update), nEnvs ${nEnvs}, netDim ${netDim}, ${steps} steps a rollout`,
        items: steps * nEnvs,
        seconds: median(seconds),
        runs: seconds,
        rate: (steps * nEnvs) / median(seconds),
        unit: 'env steps/s',
        machine,
      });
    } finally {
      ppo.destroy();
    }
  }
  return results;
}
