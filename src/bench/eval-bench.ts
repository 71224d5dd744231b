import { availableParallelism, loadavg } from 'node:os';
import { GaussianActor } from '../agents/gaussian-policy.js';
import { createPpoNetworks, disposePpoNetworks } from '../agents/ppo-update.js';
import { useBackend, type ActiveBackend } from '../compute/backends.js';
import { fitNormalizer } from '../data/features/normalizer.js';
import { featureMarket } from '../env/synthetic-market.js';
import { VectorTradingEnv } from '../env/trading-env.js';
import { evaluate } from '../eval/evaluate.js';
import type { EnvRange } from '../env/env-config.js';
import { median, timeRuns, type BenchResult } from './bench-result.js';

/*
 * Evaluation as a study runs it on each split's test ranges: one deterministic episode per range,
 * all ranges stepped together, one batched forward pass of the actor per step (a handful of
 * observations at a time, where training's products have thousands). Reports policy steps/s
 * (forward passes) and env steps/s (bars evaluated) per netDim and range count.
 */

/** Options for {@link benchEval}. */
export interface EvalBenchOptions {
  /** Hidden units per layer to measure. Default [512, 2048]. */
  netDims?: readonly number[];
  /** Test ranges evaluated together (the envs of one forward pass). Default [1, 2]. */
  ranges?: readonly number[];
  /** Bars of each range. Default 2000. */
  bars?: number;
  /** Assets (the action dimension). Default 10. */
  assets?: number;
  /** Runs per figure; the median is reported. Default 3. */
  repeat?: number;
  /** The backend, already started by the caller. Default: wasm, started here. */
  backend?: ActiveBackend;
}

/** Benchmarks evaluation; see the file header. */
export async function benchEval(options: EvalBenchOptions = {}): Promise<BenchResult[]> {
  const backend = options.backend ?? (await useBackend('wasm'));
  const bars = options.bars ?? 2000;
  const assets = options.assets ?? 10;
  const repeat = options.repeat ?? 3;
  const machine = {
    cpus: availableParallelism(),
    node: process.version,
    loadAverage: loadavg()[0] ?? 0,
  };
  const rangeCounts = options.ranges ?? [1, 2];
  const most = Math.max(...rangeCounts);
  // Room for the indicators' warm-up bars, which the market drops, before the first range.
  const data = featureMarket({ assets, bars: bars * most + 200, seed: 1 });
  const features = data.featureNames.length;
  const normalizer = fitNormalizer(data.techArray, { assets, features }, [
    [0, data.timestamps.length],
  ]);
  // The observation size, as the env builds it.
  const obsDim = new VectorTradingEnv(data, normalizer, { nEnvs: 1 }).obsDim;
  const results: BenchResult[] = [];
  for (const netDim of options.netDims ?? [512, 2048])
    for (const count of rangeCounts) {
      const nets = createPpoNetworks({ stateDim: obsDim, actionDim: assets, netDim, seed: 1 });
      const policy = new GaussianActor(nets).deterministic();
      const ranges: EnvRange[] = Array.from({ length: count }, (_, i) => [
        100 + i * bars,
        100 + (i + 1) * bars,
      ]);
      let steps = 0;
      const run = async (): Promise<void> => {
        const evaluated = await evaluate(data, normalizer, policy, ranges);
        steps = Math.max(...evaluated.map((e) => e.bars.length - 1));
      };
      await run(); // warm-up
      const runs = await timeRuns(repeat, run);
      const seconds = median(runs);
      disposePpoNetworks(nets);
      results.push({
        bench: 'eval',
        name: `evaluation, netDim ${netDim}, ${count} range${count === 1 ? '' : 's'} of ${bars} bars (obs ${obsDim}, ${assets} assets), ${backend.name}: ${steps.toLocaleString('en-US')} forward passes`,
        items: steps * count,
        seconds,
        runs,
        rate: (steps * count) / seconds,
        unit: 'env steps/s',
        machine,
      });
    }
  return results;
}
