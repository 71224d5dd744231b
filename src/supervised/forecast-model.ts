import { calendarFor, openDatasetStore, parseDatasetKeys, timeframeMs } from '../data/index.js';
import { EventLoopTurns, Rng, TradelabError } from '../core/index.js';
import type { GpuDevice } from '../gpu/index.js';
import { GpuTcnTrainer, Tcn, TcnTrainer, WindowMlp, type TcnBatch } from '../models/index.js';
import { forecastRows } from './forecast-rows.js';
import { regressionMetrics } from './regression-metrics.js';
import { buildReturnDataset } from './return-dataset.js';
import { buildRvDataset, gatherChunks, type ChunkDataset, type RvSeries } from './rv-dataset.js';

/*
 * One model of a forecasting set (seed 004's backend trains "5 models, 10 epochs per model"): a
 * TCN or a window MLP on chunks of bars, predicting the forward return over `horizon` bars or the
 * log forward realized volatility over `horizon` sessions; trained for a fixed number of epochs and
 * scored on the validation split. Each model of a set differs by its seed. On the GPU engine a
 * TCN's steps run there (the window MLP's stay on the CPU); its forecasts are made on the CPU.
 */

/** The model kinds of a set. */
export const FORECAST_MODELS = ['tcn', 'mlp'] as const;
export type ForecastModelKind = (typeof FORECAST_MODELS)[number];
/** What a set forecasts. */
export const FORECAST_TARGETS = ['return', 'rv'] as const;
export type ForecastTarget = (typeof FORECAST_TARGETS)[number];

/** Everything a model of the set is trained with (the seed aside). */
export interface ForecastSettings {
  /** The data as the user named it (`SYM[,SYM]:TF`). */
  spec: string;
  model: ForecastModelKind;
  target: ForecastTarget;
  /** Bars ahead (return) or sessions ahead (rv). */
  horizon: number;
  chunkLen: number;
  epochs: number;
  stepsPerEpoch: number;
  /** Chunks a step: the profile's batch size for the timeframe. */
  batchSize: number;
  learningRate: number;
  /** TCN channels, or the MLP's hidden width. */
  hidden: number;
  /** TCN blocks, or MLP hidden layers. */
  layers: number;
}

/** One trained model's scores on the validation rows. */
export interface ForecastModelResult {
  index: number;
  seed: number;
  /** Forecasts of the validation rows, in the target's units, row order. */
  forecast: number[];
  /** The validation targets (the same for every model of a set). */
  truth: number[];
  correlation: number;
  r2: number;
  rmse: number;
  /** Share of rows whose forecast has the target's sign (returns; NaN for rv). */
  directionalAccuracy: number;
  seconds: number;
  trainLoss: number;
  /** Where the training steps ran: tradelab's GPU engine, or the CPU (the backend's tfjs). */
  trainedOn: 'gpu engine' | 'cpu';
}

/** Loads the set's data from the store and builds its dataset (every worker does the same). */
export async function loadForecastDataset(
  dataDir: string,
  settings: ForecastSettings,
): Promise<ChunkDataset> {
  const store = openDatasetStore(dataDir);
  const series: RvSeries[] = [];
  for (const key of parseDatasetKeys(settings.spec)) {
    const { entry, bars } = await store.read(key);
    series.push({
      symbol: key.symbol,
      bars,
      calendar: calendarFor(entry.calendar),
      barMs: timeframeMs(key.timeframe),
    });
  }
  if (settings.target === 'return')
    return buildReturnDataset(series, { chunkLen: settings.chunkLen, horizon: settings.horizon });
  if ((series[0]?.barMs ?? 0) >= 86_400_000)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--target rv needs intraday bars; ${settings.spec} is daily`,
      {
        hint: 'use --target return on daily bars, or intraday bars for rv',
      },
    );
  const rv = buildRvDataset(series, { chunkLen: settings.chunkLen, horizon: settings.horizon });
  return rv;
}

/** Directional accuracy: the share of rows where forecast and truth have the same sign (zeros excluded). */
export function directionalAccuracy(forecast: readonly number[], truth: readonly number[]): number {
  let hits = 0;
  let counted = 0;
  truth.forEach((t, i) => {
    const f = forecast[i] ?? 0;
    if (t === 0 || f === 0) return;
    counted++;
    if (Math.sign(t) === Math.sign(f)) hits++;
  });
  return counted === 0 ? Number.NaN : hits / counted;
}

/**
 * Trains model `index` (seed `seed`) of the set and scores it on the validation rows; a TCN's
 * steps on `gpu` when given.
 */
export async function trainForecastModel(
  dataset: ChunkDataset,
  settings: ForecastSettings,
  index: number,
  seed: number,
  onEpoch?: (epoch: number, loss: number) => void,
  gpu?: GpuDevice,
): Promise<ForecastModelResult> {
  const inputs = dataset.featureNames.length;
  const net =
    settings.model === 'tcn'
      ? new Tcn(
          { inputs, hidden: settings.hidden, layers: settings.layers, seed },
          `forecast-${index}`,
        )
      : new WindowMlp(
          {
            inputs,
            window: settings.chunkLen,
            hidden: Array.from({ length: settings.layers }, () => settings.hidden),
            seed,
          },
          `forecast-${index}`,
        );
  const trainer = new TcnTrainer(net, { learningRate: settings.learningRate, checkpoint: false });
  const started = performance.now();
  const { mean, sd } = dataset.targetScale;
  const width = settings.chunkLen * inputs;
  const batch: TcnBatch = {
    x: new Float32Array(settings.batchSize * width),
    y: new Float32Array(settings.batchSize),
    rows: settings.batchSize,
  };
  const rows = new Int32Array(settings.batchSize);
  const engine =
    gpu !== undefined && net instanceof Tcn
      ? await GpuTcnTrainer.create(gpu, net, trainer, settings.chunkLen, settings.batchSize)
      : undefined;
  const turns = new EventLoopTurns();
  let trainLoss = Number.NaN;
  try {
    let step = 0;
    for (let epoch = 1; epoch <= settings.epochs; epoch++) {
      let lossSum = 0;
      for (let s = 0; s < settings.stepsPerEpoch; s++) {
        await turns.maybeYield();
        const rng = new Rng(seed, 41, step);
        for (let r = 0; r < settings.batchSize; r++)
          rows[r] = Math.floor(rng.uniform() * dataset.train.count);
        gatherChunks(dataset, dataset.train, rows, batch.x);
        for (let r = 0; r < settings.batchSize; r++)
          batch.y[r] = ((dataset.train.target[rows[r] ?? 0] ?? 0) - mean) / sd;
        lossSum += (
          engine === undefined ? trainer.step([batch], step) : await engine.step([batch], step)
        ).loss;
        step++;
      }
      trainLoss = lossSum / settings.stepsPerEpoch;
      onEpoch?.(epoch, trainLoss);
    }
    await engine?.syncWeights();
    const truth = Array.from(dataset.validation.target);
    const forecast = forecastRows(net, dataset, dataset.validation, settings.batchSize);
    const metrics = regressionMetrics(forecast, truth);
    return {
      index,
      seed,
      forecast,
      truth,
      correlation: metrics.correlation,
      r2: metrics.r2,
      rmse: metrics.rmse,
      directionalAccuracy:
        settings.target === 'return' ? directionalAccuracy(forecast, truth) : Number.NaN,
      seconds: (performance.now() - started) / 1000,
      trainLoss,
      trainedOn: engine === undefined ? 'cpu' : 'gpu engine',
    };
  } finally {
    trainer.dispose();
    for (const v of net.variables) v.dispose();
  }
}
