import { TradelabError } from '../core/index.js';
import { parseDatasetKeys } from '../data/index.js';
import { forecastSettingsAt, type GpuProfile, type WorkerPlan } from '../profiles/index.js';
import type {
  ForecastModelResult,
  ForecastSetResult,
  ForecastSettings,
} from '../supervised/index.js';
import { forecastModelDefaults } from './forecast-plan-model.js';
import type { Project } from './open-project.js';
import { planHere } from './plan-here.js';
import { parseWorkersRequest } from './trial-workers.js';

/*
 * A set of forecasting models trained in parallel worker processes: the use case of
 * `tradelab train forecast`, a service job and the public API. Its rules: the model's and the
 * profile's defaults (the batch size of the data's timeframe), a horizon of 22 sessions for RV and
 * 1 bar for returns, and workers as the planner fits them on the backend that trains the set — at
 * most the models, and a count that does not fit is refused.
 */

/** What a forecasting set is asked. */
export interface ForecastSetOptions {
  /** `SYM[,SYM]:TF`. */
  data: string;
  /** `tcn` (default) or `mlp` (a window MLP). */
  model?: ForecastSettings['model'] | undefined;
  /** `return` (default) or `rv`. */
  target?: ForecastSettings['target'] | undefined;
  /** Models in the set (default 5). */
  models?: number | undefined;
  horizon?: number | undefined;
  chunkLen?: number | undefined;
  epochs?: number | undefined;
  stepsPerEpoch?: number | undefined;
  batchSize?: number | undefined;
  learningRate?: number | undefined;
  hidden?: number | undefined;
  layers?: number | undefined;
  /** `auto` (default: as many as the planner fits) or a count, as written. */
  workers?: number | string | undefined;
  /** Seed of model 0; model i gets seed + i. */
  seed?: number | undefined;
}

/** The set's settings and workers, before anything trains. */
export interface ForecastSetPlan {
  settings: ForecastSettings;
  models: number;
  /** Worker processes: the planner's fit (or the count asked), at most the models. */
  workers: number;
  plan: WorkerPlan;
  profile: GpuProfile;
  /** Where the batch size came from, in words. */
  batchSource: string;
}

/** The set's settings and workers as `options` ask, checked against the planner. */
export async function planForecastSet(
  project: Project,
  options: ForecastSetOptions,
): Promise<ForecastSetPlan> {
  const keys = parseDatasetKeys(options.data);
  const timeframe = keys[0]?.timeframe ?? '1h';
  const { profile } = await project.chooseProfile();
  const at = forecastSettingsAt(profile, timeframe);
  const model = options.model ?? 'tcn';
  const defaults = forecastModelDefaults(model);
  const target = options.target ?? 'return';
  const models = options.models ?? 5;
  const settings: ForecastSettings = {
    spec: options.data,
    model,
    target,
    horizon: options.horizon ?? (target === 'rv' ? 22 : 1),
    chunkLen: options.chunkLen ?? defaults.chunkLen,
    epochs: options.epochs ?? 10,
    stepsPerEpoch: options.stepsPerEpoch ?? 100,
    batchSize: options.batchSize ?? at.batchSize,
    learningRate: options.learningRate ?? 1e-3,
    hidden: options.hidden ?? defaults.hidden,
    layers: options.layers ?? defaults.layers,
  };
  const request = parseWorkersRequest(options.workers);
  const asked = request === 'auto' ? undefined : request;
  // Planned for the backend that trains the set: on the host its models' own memory, cores and
  // wasm heaps; on the card the profile's memory per model and cap.
  const { plan } = await planHere(project, {
    workload: 'forecast',
    timeframe,
    batchSize: settings.batchSize,
    forecast: {
      kind: model,
      hidden: settings.hidden,
      layers: settings.layers,
      chunkLen: settings.chunkLen,
    },
    ...(asked === undefined ? {} : { workers: asked }),
  });
  if (!plan.fits)
    throw new TradelabError(
      'PLAN_DOES_NOT_FIT',
      `${asked ?? 1} forecasting worker(s) do not fit on ${profile.name} (${plan.backend} backend): ${plan.workers} fit (limited by ${plan.limitedBy}: ${plan.limits.find((l) => l.by === plan.limitedBy)?.detail ?? ''})`,
      {
        hint:
          plan.workers > 0
            ? `use --workers ${plan.workers} or leave it out`
            : plan.device === 'gpu'
              ? 'use a smaller --batch-size, or another --profile'
              : 'use a smaller --batch-size, --hidden or --chunk-len',
      },
    );
  return {
    settings,
    models,
    workers: Math.min(plan.workers, models),
    plan,
    profile,
    batchSource:
      options.batchSize === undefined
        ? `profile ${profile.name}, ${at.timeframe}${at.derived ? ', derived from 1h' : ''}`
        : '--batch-size',
  };
}

/** What a forecasting set tells as it goes. */
export interface ForecastSetEvents {
  onStart?: (plan: ForecastSetPlan) => void | Promise<void>;
  /** A model finished. */
  onModel?: (result: ForecastModelResult) => void;
}

/** Trains the set `options` ask for. */
export async function trainForecastSet(
  project: Project,
  options: ForecastSetOptions,
  events: ForecastSetEvents = {},
): Promise<ForecastSetResult & { planned: ForecastSetPlan }> {
  const planned = await planForecastSet(project, options);
  await events.onStart?.(planned);
  // Loaded here: supervised/ brings the models, which opening a project does not need.
  const { runForecastSet } = await import('../supervised/index.js');
  const result = await runForecastSet({
    dataDir: project.config.settings.dataDir,
    backend: planned.plan.backend,
    settings: planned.settings,
    models: planned.models,
    workers: planned.workers,
    seed: options.seed ?? 0,
    ...(events.onModel === undefined ? {} : { onModel: events.onModel }),
  });
  return { ...result, planned };
}
