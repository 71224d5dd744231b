import type { TcnEncoderInfo } from './tcn-encoder.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BarRange } from '../data/bar-range.js';
import type { MarketData } from '../data/load-market-data.js';
import { evaluate, type RangeEvaluation } from '../eval/evaluate.js';
import { TradelabError } from '../core/index.js';
import { GaussianActor } from './gaussian-policy.js';
import { loadPpoModel, type LoadedPpoModel } from './ppo-checkpoint.js';
import { disposePpoNetworks } from './ppo-update.js';
import {
  evaluationEnvOptions,
  RUN_FILES,
  savedEnvOptions,
  type RunEnvOptions,
} from './run-manifest.js';

/*
 * Re-evaluating a saved PPO model: its deterministic policy (the mean action) on a range of market
 * data, beside buy-and-hold, with the env options it was trained with unless overridden.
 */

/** The model directory of `path`: a run directory's `model/`, or `path` itself. */
export function modelDirectory(path: string): string {
  const inRun = join(path, RUN_FILES.model);
  return existsSync(join(inRun, 'model.json')) ? inRun : path;
}

/** The data description a model was trained on (its meta). */
export interface ModelData {
  spec: string;
  symbols: string[];
  timeframe: string;
  featureNames: string[];
  sha256: string;
  /** The pretrained TCN whose encodings the features carry (`--policy tcn:DIR`). */
  encoder?: TcnEncoderInfo;
}

/** What the trainer stored in a model's meta. */
export function modelMeta(model: LoadedPpoModel): { data?: ModelData; env: RunEnvOptions } {
  const meta = model.meta as { data?: ModelData; env?: RunEnvOptions };
  return {
    ...(meta.data === undefined ? {} : { data: meta.data }),
    env: savedEnvOptions(meta.env ?? {}),
  };
}

/** Checks that `data` has the shape the model was trained on (symbol count and features). */
export function checkModelData(model: LoadedPpoModel, data: MarketData, where: string): void {
  const trained = modelMeta(model).data;
  if (trained === undefined) return;
  if (trained.symbols.length !== data.symbols.length)
    throw new TradelabError(
      'DATA_MISMATCH',
      `${where} trades ${trained.symbols.length} symbols (${trained.symbols.join(', ')}); the data has ${data.symbols.length} (${data.symbols.join(', ')})`,
      { hint: `backtest on as many symbols as it was trained on, e.g. --data ${trained.spec}` },
    );
  if (trained.featureNames.join(',') !== data.featureNames.join(','))
    throw new TradelabError(
      'DATA_MISMATCH',
      `${where} was trained on features ${trained.featureNames.join(', ')}; the data has ${data.featureNames.join(', ')}`,
      { hint: 'compute the same indicators (the default feature set) for the backtest data' },
    );
}

/**
 * The bars of `range` (of `data`) that a model (its meta) trained on, as ranges of `data`; empty when the
 * range is out of sample. A run's model says its training span in time (so another import of the
 * same symbols is matched by date); a trial's model gives its split's bars, which mean the same
 * bars only on the data the study ran on (`sameData`).
 */
export function inSampleRanges(
  meta: Readonly<Record<string, unknown>>,
  data: Pick<MarketData, 'timestamps'>,
  range: BarRange,
  sameData: boolean,
): BarRange[] {
  const train = trainedRanges(meta, data, sameData);
  const out: BarRange[] = [];
  for (const [start, end] of train) {
    const from = Math.max(start, range[0]);
    const to = Math.min(end, range[1]);
    if (from < to) out.push([from, to]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** A model's training ranges (from its meta) as bars of `data` (see {@link inSampleRanges}). */
export function trainedRanges(
  meta: Readonly<Record<string, unknown>>,
  data: Pick<MarketData, 'timestamps'>,
  sameData: boolean,
): BarRange[] {
  const train = meta.train;
  // A run's model: { bars, from, to } (ISO times of its first and last bar).
  if (typeof train === 'object' && train !== null && !Array.isArray(train)) {
    const { bars, from, to } = train as { bars?: BarRange; from?: string; to?: string };
    const first = Date.parse(from ?? '');
    const last = Date.parse(to ?? '');
    if (Number.isFinite(first) && Number.isFinite(last)) {
      const start = firstAtOrAfter(data.timestamps, first);
      const end = firstAtOrAfter(data.timestamps, last + 1);
      return start < end ? [[start, end]] : [];
    }
    return sameData && bars !== undefined ? [bars] : [];
  }
  // A trial's model: its split's training ranges, bars of the study's data.
  if (Array.isArray(train) && sameData)
    return (train as unknown[]).filter(
      (r): r is BarRange =>
        Array.isArray(r) && r.length === 2 && r.every((v) => typeof v === 'number'),
    );
  return [];
}

/** The index of the first timestamp at or after `ms` (sorted timestamps; length when none). */
function firstAtOrAfter(timestamps: Float64Array, ms: number): number {
  let low = 0;
  let high = timestamps.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((timestamps[mid] ?? Infinity) < ms) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Options of {@link backtestModel}. */
export interface BacktestOptions {
  range: BarRange;
  /** Env options over the model's own (fees, for instance). */
  env?: RunEnvOptions;
}

/** Evaluates a loaded model's deterministic policy on `range` of `data`. */
export async function backtestModel(
  model: LoadedPpoModel,
  data: MarketData,
  options: BacktestOptions,
): Promise<RangeEvaluation> {
  const env = evaluationEnvOptions({ ...modelMeta(model).env, ...options.env });
  const actor = new GaussianActor(model.nets);
  const [evaluation] = await evaluate(
    data,
    model.normalizer,
    actor.deterministic(),
    [options.range],
    env,
  );
  if (evaluation === undefined)
    throw new TradelabError('INTERNAL', 'the evaluation returned no result', {});
  return evaluation;
}

/** Loads the model at `path` (a run directory or a model directory). Dispose with {@link disposeModel}. */
export async function loadModel(path: string): Promise<LoadedPpoModel> {
  return loadPpoModel(modelDirectory(path));
}

/** Releases a loaded model's tensors. */
export function disposeModel(model: LoadedPpoModel): void {
  disposePpoNetworks(model.nets);
  model.optimizer?.dispose();
}
