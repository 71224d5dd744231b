import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BarRange } from '../data/bar-range.js';
import type { MarketData } from '../data/load-market-data.js';
import { evaluate, type RangeEvaluation } from '../eval/evaluate.js';
import { TradelabError } from '../core/index.js';
import { GaussianActor } from './gaussian-policy.js';
import { loadPpoModel, type LoadedPpoModel } from './ppo-checkpoint.js';
import { disposePpoNetworks } from './ppo-update.js';
import { evaluationEnvOptions, RUN_FILES, type RunEnvOptions } from './run-manifest.js';

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
}

/** What the trainer stored in a model's meta. */
export function modelMeta(model: LoadedPpoModel): { data?: ModelData; env: RunEnvOptions } {
  const meta = model.meta as { data?: ModelData; env?: RunEnvOptions };
  return { ...(meta.data === undefined ? {} : { data: meta.data }), env: meta.env ?? {} };
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
