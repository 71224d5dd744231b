import { VectorTradingEnv } from '../env/trading-env.js';
import type { EnvRange, TradingEnvOptions } from '../env/env-config.js';
import type { MarketData } from '../data/load-market-data.js';
import type { Normalizer } from '../data/features/normalizer.js';
import { TradelabError } from '../core/index.js';
import { EvaluationCurves, type RangeEvaluation } from './evaluation-curves.js';

/**
 * Chooses actions for every env at once: reads `obs` (nEnvs × obsDim) and writes `actions`
 * (nEnvs × assets). `step` is the step number within the episodes. A policy whose network runs
 * on a device returns a promise (webgpu reads are asynchronous); a plain function need not.
 */
export type Policy = (
  obs: Float32Array,
  actions: Float32Array,
  step: number,
) => void | Promise<void>;

export type { RangeEvaluation };

/**
 * Runs one deterministic episode per range (from the range's first bar to its end, all ranges in
 * one vectorized env) and returns each range's equity curve, metrics, and the equal-weight
 * buy-and-hold benchmark's on the same bars. `policy` is a function, or scripted actions: one
 * Float32Array (steps × assets) per range, no trade after it runs out.
 */
export async function evaluate(
  data: MarketData,
  normalizer: Normalizer | undefined,
  policy: Policy | readonly Float32Array[],
  ranges: readonly EnvRange[],
  options: Omit<TradingEnvOptions, 'ranges' | 'nEnvs' | 'randomStart' | 'episodeLength'> = {},
): Promise<RangeEvaluation[]> {
  if (ranges.length === 0) {
    throw new TradelabError('INVALID_ARGUMENT', 'evaluate needs at least one range', {
      hint: 'pass [[start, end)] bar ranges',
    });
  }
  const env = new VectorTradingEnv(data, normalizer, {
    ...options,
    ranges,
    nEnvs: ranges.length,
    randomStart: false,
  });
  const n = env.nEnvs;
  const assets = env.assets;
  const { obs, info } = env.reset();
  const curves = new EvaluationCurves(ranges, info);
  const actions = new Float32Array(n * assets);
  let current = obs;
  for (let step = 0; curves.running; step++) {
    if (typeof policy === 'function') {
      const pending = policy(current, actions, step);
      if (pending !== undefined) await pending;
    } else {
      actions.fill(0);
      policy.forEach((script, e) => {
        if ((step + 1) * assets <= script.length)
          actions.set(script.subarray(step * assets, (step + 1) * assets), e * assets);
      });
    }
    // Envs whose episode ended hold still (their autoreset step is never recorded).
    for (let e = 0; e < n; e++) if (curves.isDone(e)) actions.fill(0, e * assets, (e + 1) * assets);
    const result = env.step(actions);
    current = result.obs;
    curves.step(result.info, result.terminations, result.truncations);
  }
  return curves.finish(data);
}
