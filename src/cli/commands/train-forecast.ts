import { trainForecastSet } from '../../app/index.js';
import { TradelabError } from '../../core/index.js';
import {
  FORECAST_MODELS,
  FORECAST_TARGETS,
  type ForecastModelResult,
} from '../../supervised/index.js';
import type { CommandContext } from '../command-spec.js';
import { num } from '../format.js';
import { choiceOption, intOption, numberOption } from '../option-values.js';
import { renderTable } from '../output.js';
import { logProfileBanner } from '../profile-banner.js';

/**
 * `tradelab train forecast --data SYM[,SYM]:TF --models N`: a set of forecasting models (seed 004)
 * trained in parallel workers sized by the planner, each scored on the validation split, then the
 * mean ensemble, and the set's wall time. The rules are app/'s trainForecastSet; this file reads
 * the flags and prints.
 */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  if (typeof options.data !== 'string')
    throw new TradelabError('USAGE', 'train forecast needs --data SYM[,SYM]:TF', {
      hint: 'e.g. tradelab train forecast --data BTCUSDT:1h --models 5',
    });
  const data = options.data;
  const result = await trainForecastSet(
    context.project(),
    {
      data,
      model: choiceOption(options, 'model', FORECAST_MODELS),
      target: choiceOption(options, 'target', FORECAST_TARGETS),
      models: intOption(options, 'models', 1),
      horizon: intOption(options, 'horizon', 1),
      chunkLen: intOption(options, 'chunk-len', 2),
      epochs: intOption(options, 'epochs', 1),
      stepsPerEpoch: intOption(options, 'steps-per-epoch', 1),
      batchSize: intOption(options, 'batch-size', 1),
      learningRate: numberOption(options, 'lr', 1e-8, 0.99, '1e-3'),
      hidden: intOption(options, 'hidden', 1),
      layers: intOption(options, 'layers', 1),
      workers:
        options.workers === undefined || options.workers === 'auto'
          ? undefined
          : intOption(options, 'workers', 1),
      seed: intOption(options, 'seed', 0),
    },
    {
      onStart: async ({ settings, models, workers, plan, batchSource }) => {
        await logProfileBanner(context, workers);
        const binding = plan.limits.find((l) => l.by === plan.limitedBy);
        out.note(
          `${models} ${settings.model} models forecasting ${settings.target === 'rv' ? `log forward RV over ${settings.horizon} sessions` : `the ${settings.horizon}-bar forward return`} of ${data}; ${workers} at once (${plan.limitedBy}: ${binding?.detail ?? ''}); batch ${settings.batchSize} (${batchSource}), ${settings.epochs} epochs of ${settings.stepsPerEpoch} steps`,
        );
        if (plan.backend === 'gpu')
          out.note(
            settings.model === 'tcn'
              ? "the TCNs' steps run on tradelab's GPU engine; their forecasts on the CPU"
              : "the window MLPs train on the CPU: tradelab's GPU engine trains TCNs (--model tcn)",
          );
      },
      onModel: (r) => {
        if (out.json) out.record({ type: 'model', ...withoutSeries(r) });
        else out.note(`model ${r.index} done in ${num(r.seconds, 3)} s`);
      },
    },
  );
  const { settings, models } = result.planned;
  const target = settings.target;
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
