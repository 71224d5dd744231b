import { fork } from 'node:child_process';
import type { BackendName } from '../compute/index.js';
import { compiledPath, TradelabError, type ErrorCode } from '../core/index.js';
import {
  directionalAccuracy,
  type ForecastModelResult,
  type ForecastSettings,
} from './forecast-model.js';
import type { ForecastJob, ForecastWorkerMessage } from './forecast-worker.js';
import { regressionMetrics } from './regression-metrics.js';

/*
 * A forecasting set (seed 004): N models of the same kind, each with its own seed, trained in
 * parallel worker processes (as many at once as the planner's `forecast` workload fits on the
 * profile: its memory per model at the timeframe, its max workers, the CPU cores), then scored alone
 * and as the mean ensemble on the validation rows, with the set's wall time.
 */

/** Options of {@link runForecastSet}. */
export interface ForecastSetOptions {
  dataDir: string;
  backend: BackendName;
  settings: ForecastSettings;
  /** Models in the set. */
  models: number;
  /** Models trained at once. */
  workers: number;
  /** Seed of model 0; model i gets seed + i. Default 0. */
  seed?: number;
  /** Each model's progress. */
  onEpoch?(index: number, epoch: number, loss: number): void;
  /** A model finished. */
  onModel?(result: ForecastModelResult): void;
}

/** The mean of the set's forecasts, scored. */
export interface EnsembleResult {
  correlation: number;
  r2: number;
  rmse: number;
  directionalAccuracy: number;
  rows: number;
}

/** What a set did. */
export interface ForecastSetResult {
  models: ForecastModelResult[];
  ensemble: EnsembleResult;
  wallSeconds: number;
  workers: number;
}

/** Trains the set; results in model order. */
export async function runForecastSet(options: ForecastSetOptions): Promise<ForecastSetResult> {
  const started = performance.now();
  const seed = options.seed ?? 0;
  const results: ForecastModelResult[] = [];
  let next = 0;
  const runOne = (index: number): Promise<ForecastModelResult> =>
    new Promise((resolve, reject) => {
      const child = fork(compiledPath('supervised/forecast-worker.js'), [], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      let result: ForecastModelResult | undefined;
      let failure: TradelabError | undefined;
      child.on('message', (message: ForecastWorkerMessage) => {
        if (message.type === 'epoch') options.onEpoch?.(message.index, message.epoch, message.loss);
        else if (message.type === 'done') result = message.result;
        else
          failure = new TradelabError(
            (message.code as ErrorCode | undefined) ?? 'WORKER_FAILED',
            `model ${index}: ${message.message}`,
            {
              ...(message.hint === undefined ? {} : { hint: message.hint }),
            },
          );
      });
      child.on('error', reject);
      // 'close', not 'exit': a result still in the channel when the process ends is read first.
      child.on('close', (code, signal) => {
        if (result !== undefined) resolve(result);
        else
          reject(
            failure ??
              new TradelabError(
                'WORKER_FAILED',
                `model ${index}'s worker exited (${signal ?? `code ${String(code)}`}) without a result`,
              ),
          );
      });
      const job: ForecastJob = {
        type: 'job',
        dataDir: options.dataDir,
        backend: options.backend,
        settings: options.settings,
        index,
        seed: seed + index,
      };
      child.send(job);
    });
  const lane = async (): Promise<void> => {
    while (next < options.models) {
      const index = next++;
      const result = await runOne(index);
      results.push(result);
      options.onModel?.(result);
    }
  };
  const workers = Math.max(1, Math.min(options.workers, options.models));
  await Promise.all(Array.from({ length: workers }, lane));
  results.sort((a, b) => a.index - b.index);
  const truth = results[0]?.truth ?? [];
  const mean = truth.map(
    (_, i) => results.reduce((s, r) => s + (r.forecast[i] ?? 0), 0) / results.length,
  );
  const metrics = regressionMetrics(mean, truth);
  return {
    models: results,
    ensemble: {
      correlation: metrics.correlation,
      r2: metrics.r2,
      rmse: metrics.rmse,
      directionalAccuracy:
        options.settings.target === 'return' ? directionalAccuracy(mean, truth) : Number.NaN,
      rows: truth.length,
    },
    wallSeconds: (performance.now() - started) / 1000,
    workers,
  };
}
