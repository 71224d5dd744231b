import { VectorTradingEnv } from '../env/trading-env.js';
import type { EnvRange, TradingEnvOptions } from '../env/env-config.js';
import type { MarketData } from '../data/load-market-data.js';
import type { Normalizer } from '../data/features/normalizer.js';
import { TradelabError } from '../core/index.js';
import { computeMetrics, type TradingMetrics } from './metrics.js';
import { periodsPerYear } from './periods-per-year.js';

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

/** One evaluated range: the strategy's and the benchmark's equity curves and metrics. */
export interface RangeEvaluation {
  range: EnvRange;
  /** Bar index of each equity point: the start bar, then each bar an action filled at. */
  bars: Int32Array;
  equity: Float64Array;
  benchmark: Float64Array;
  metrics: TradingMetrics;
  benchmarkMetrics: TradingMetrics;
  /** Fees paid over the episode. */
  fees: number;
  /** How the episode ended. */
  ended: 'truncated' | 'terminated';
}

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
  const curves = ranges.map((range) => ({
    bars: [info.bar[0] ?? range[0]],
    equity: [0],
    benchmark: [0],
    turnover: [] as number[],
    exposure: [] as number[],
  }));
  for (let e = 0; e < n; e++) {
    const curve = curves[e];
    if (curve === undefined) continue;
    curve.bars = [info.bar[e] ?? 0];
    curve.equity = [info.value[e] ?? 0];
    curve.benchmark = [info.benchmarkValue[e] ?? 0];
  }
  const actions = new Float32Array(n * assets);
  const done = new Uint8Array(n);
  const fees = new Float64Array(n);
  const ended: ('truncated' | 'terminated')[] = new Array<'truncated' | 'terminated'>(n).fill(
    'truncated',
  );
  let current = obs;
  for (let step = 0; done.some((d) => d === 0); step++) {
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
    for (let e = 0; e < n; e++) if (done[e] === 1) actions.fill(0, e * assets, (e + 1) * assets);
    const result = env.step(actions);
    current = result.obs;
    for (let e = 0; e < n; e++) {
      if (done[e] === 1) continue;
      const curve = curves[e];
      curve?.bars.push(result.info.bar[e] ?? 0);
      curve?.equity.push(result.info.value[e] ?? 0);
      curve?.benchmark.push(result.info.benchmarkValue[e] ?? 0);
      // Turnover against the value before the step; exposure after it (holdings are long-only).
      const before = curve?.equity.at(-2) ?? 1;
      const value = result.info.value[e] ?? 0;
      curve?.turnover.push(before > 0 ? (result.info.turnover[e] ?? 0) / before : 0);
      curve?.exposure.push(value > 0 ? 1 - (result.info.cash[e] ?? 0) / value : 0);
      if (result.terminations[e] === 1 || result.truncations[e] === 1) {
        done[e] = 1;
        fees[e] = result.info.feesPaid[e] ?? 0;
        ended[e] = result.terminations[e] === 1 ? 'terminated' : 'truncated';
      }
    }
  }
  const perYear = periodsPerYear(data.timeframe, data.calendar);
  return ranges.map((range, e) => {
    const curve = curves[e] ?? { bars: [], equity: [], benchmark: [], turnover: [], exposure: [] };
    const equity = Float64Array.from(curve.equity);
    const benchmark = Float64Array.from(curve.benchmark);
    return {
      range,
      bars: Int32Array.from(curve.bars),
      equity,
      benchmark,
      metrics: computeMetrics({
        equity,
        periodsPerYear: perYear,
        turnover: curve.turnover,
        exposure: curve.exposure,
      }),
      benchmarkMetrics: computeMetrics({ equity: benchmark, periodsPerYear: perYear }),
      fees: fees[e] ?? 0,
      ended: ended[e] ?? 'truncated',
    };
  });
}
