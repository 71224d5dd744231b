import { forecastModelDefaults, planHere } from '../../app/index.js';
import { TradelabError } from '../../core/index.js';
import { parseDatasetKeys } from '../../data/index.js';
import { forecastSettingsAt } from '../../profiles/index.js';
import {
  FORECAST_MODELS,
  FORECAST_TARGETS,
  runForecastSet,
  type ForecastModelResult,
  type ForecastSettings,
} from '../../supervised/index.js';
import type { CommandContext } from '../command-spec.js';
import { num } from '../format.js';
import { choiceOption, intOption, numberOption } from '../option-values.js';
import { renderTable } from '../output.js';
import { logProfileBanner } from '../profile-banner.js';

/**
 * `tradelab train forecast --data SYM[,SYM]:TF --models N`: a set of forecasting models (seed 004)
 * trained in parallel workers sized by the planner, each scored on the validation split, then the
 * mean ensemble, and the set's wall time.
 */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const project = context.project();
  if (typeof options.data !== 'string')
    throw new TradelabError('USAGE', 'train forecast needs --data SYM[,SYM]:TF', {
      hint: 'e.g. tradelab train forecast --data BTCUSDT:1h --models 5',
    });
  const keys = parseDatasetKeys(options.data);
  const timeframe = keys[0]?.timeframe ?? '1h';
  const { profile } = await project.chooseProfile();
  const at = forecastSettingsAt(profile, timeframe);
  const model = choiceOption(options, 'model', FORECAST_MODELS) ?? 'tcn';
  const defaults = forecastModelDefaults(model);
  const target = choiceOption(options, 'target', FORECAST_TARGETS) ?? 'return';
  const models = intOption(options, 'models', 1) ?? 5;
  const settings: ForecastSettings = {
    spec: options.data,
    model,
    target,
    horizon: intOption(options, 'horizon', 1) ?? (target === 'rv' ? 22 : 1),
    chunkLen: intOption(options, 'chunk-len', 2) ?? defaults.chunkLen,
    epochs: intOption(options, 'epochs', 1) ?? 10,
    stepsPerEpoch: intOption(options, 'steps-per-epoch', 1) ?? 100,
    batchSize: intOption(options, 'batch-size', 1) ?? at.batchSize,
    learningRate: numberOption(options, 'lr', 1e-8, 0.99, '1e-3') ?? 1e-3,
    hidden: intOption(options, 'hidden', 1) ?? defaults.hidden,
    layers: intOption(options, 'layers', 1) ?? defaults.layers,
  };
  const asked =
    options.workers === undefined || options.workers === 'auto'
      ? undefined
      : intOption(options, 'workers', 1);
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
  const workers = Math.min(plan.workers, models);
  await logProfileBanner(context, workers);
  const binding = plan.limits.find((l) => l.by === plan.limitedBy);
  out.note(
    `${models} ${model} models forecasting ${target === 'rv' ? `log forward RV over ${settings.horizon} sessions` : `the ${settings.horizon}-bar forward return`} of ${options.data}; ${workers} at once (${plan.limitedBy}: ${binding?.detail ?? ''}); batch ${settings.batchSize} (${options['batch-size'] === undefined ? `profile ${profile.name}, ${at.timeframe}${at.derived ? ', derived from 1h' : ''}` : '--batch-size'}), ${settings.epochs} epochs of ${settings.stepsPerEpoch} steps`,
  );
  if (plan.backend === 'gpu')
    out.note(
      model === 'tcn'
        ? "the TCNs' steps run on tradelab's GPU engine; their forecasts on the CPU"
        : "the window MLPs train on the CPU: tradelab's GPU engine trains TCNs (--model tcn)",
    );
  const result = await runForecastSet({
    dataDir: project.config.settings.dataDir,
    backend: plan.backend,
    settings,
    models,
    workers,
    seed: intOption(options, 'seed', 0) ?? 0,
    onModel: (r) => {
      if (out.json) out.record({ type: 'model', ...withoutSeries(r) });
      else out.note(`model ${r.index} done in ${num(r.seconds, 3)} s`);
    },
  });
  if (out.json) {
    out.record({
      type: 'set',
      models,
      workers: result.workers,
      wallSeconds: result.wallSeconds,
      ensemble: result.ensemble,
      settings,
    });
    return;
  }
  const returns = target === 'return';
  const rows = [
    ...result.models.map((r) => ({
      name: `model ${r.index} (seed ${r.seed})`,
      corr: r.correlation,
      dir: r.directionalAccuracy,
      r2: r.r2,
      rmse: r.rmse,
      seconds: r.seconds,
    })),
    {
      name: `mean of ${models}`,
      corr: result.ensemble.correlation,
      dir: result.ensemble.directionalAccuracy,
      r2: result.ensemble.r2,
      rmse: result.ensemble.rmse,
      seconds: Number.NaN,
    },
  ];
  out.line(`Validation (${result.ensemble.rows} rows):`);
  for (const line of renderTable(rows, [
    { header: 'MODEL', value: (r) => r.name },
    { header: 'CORR', value: (r) => r.corr.toFixed(3), right: true },
    returns
      ? { header: 'DIRECTION', value: (r) => `${(100 * r.dir).toFixed(1)}%`, right: true }
      : { header: 'R²', value: (r) => r.r2.toFixed(3), right: true },
    { header: 'RMSE', value: (r) => r.rmse.toPrecision(4), right: true },
    {
      header: 'TRAIN TIME',
      value: (r) => (Number.isNaN(r.seconds) ? '' : `${num(r.seconds, 3)} s`),
      right: true,
    },
  ]))
    out.line(line);
  out.line();
  out.line(
    `training time (${models} models): ${num(result.wallSeconds, 3)} s wall with ${result.workers} worker${result.workers === 1 ? '' : 's'}; ${num(
      result.models.reduce((s, r) => s + r.seconds, 0),
      3,
    )} s of model time`,
  );
}

/** A model's result without its per-row series (the JSON record stays small). */
function withoutSeries(r: ForecastModelResult): Omit<ForecastModelResult, 'forecast' | 'truth'> {
  const { forecast: _forecast, truth: _truth, ...rest } = r;
  return rest;
}
