import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryReport } from '../compute/index.js';
import {
  EventLoopTurns,
  Rng,
  TradelabError,
  writeFileAtomic,
  makeDirectory,
} from '../core/index.js';
import {
  GpuTcnTrainer,
  loadTcnModel,
  saveTcnModel,
  Tcn,
  TcnTrainer,
  tcnSize,
  type TcnBatch,
} from '../models/index.js';
import type { GpuDevice } from '../gpu/index.js';
import { forecastRows } from './forecast-rows.js';
import { writePretrainReport } from './pretrain-report.js';
import { RUN_FORMAT, type EpochRow, type PretrainRunJson } from './pretrain-run.js';
import { fitHarBaseline, harForecast, type HarBaseline } from './har-baseline.js';
import type { PrecisionUsed, PretrainSettings } from './pretrain-settings.js';
import { regressionMetrics } from './regression-metrics.js';
import { gatherChunks, type RvDataset, type RvSamples } from './rv-dataset.js';

/*
 * TCN pretraining on realized volatility (seed 003), with HAR-RV beside it. Each epoch runs
 * `stepsPerEpoch` optimizer steps of `accum` micro-batches of `chunks` random training chunks, then
 * scores the network and the baseline on the same validation rows; the best epoch's weights are the
 * run's model (`DIR/model`, what DRL policies reuse), every epoch ends with a checkpoint
 * (`DIR/checkpoint`) and `DIR/run.json`, and training stops early when the validation loss has not
 * improved for `patience` epochs.
 *
 * Resuming is exact: a step's chunks and dropout masks depend only on the seed and the step's
 * number, and a checkpoint holds the weights, Adam's state and the counters; a run stopped inside
 * an epoch redoes that epoch from its checkpoint.
 */

export const RUN_FILE = 'run.json';
export const REPORT_FILE = 'report.html';

/** Counters saved in a checkpoint. */
interface TrainerState {
  epoch: number;
  step: number;
  bestValidationLoss: number;
  bestEpoch: number | null;
  sinceBest: number;
}

/** Options of {@link pretrainTcn}. */
export interface PretrainOptions {
  /** The run directory. */
  dir: string;
  /** The data as the user named it (`SPY:5m`), for run.json. */
  spec: string;
  backend: string;
  /** tradelab's GPU engine (backend gpu): the training steps run there. Default none. */
  gpu?: GpuDevice | undefined;
  precision: PrecisionUsed;
  /** Continue the run in `dir`. */
  resume?: boolean;
  /** After each optimizer step. */
  onStep?(epoch: number, step: number, loss: number): void;
  /** After each epoch's evaluation and checkpoint. */
  onEpoch?(row: EpochRow, run: PretrainRunJson): void;
  /** Checked between steps: true stops the run (it resumes from the last checkpoint). */
  stopRequested?(): boolean;
}

/** Reads a run's run.json. */
export function readPretrainRun(dir: string): PretrainRunJson {
  const path = join(dir, RUN_FILE);
  if (!existsSync(path))
    throw new TradelabError(
      'MODEL_NOT_FOUND',
      `no TCN pretraining run at ${dir}: ${path} does not exist`,
      {
        hint: 'start one with `tradelab pretrain tcn --data SYM:TF --out DIR`',
      },
    );
  const json = JSON.parse(readFileSync(path, 'utf8')) as PretrainRunJson;
  if ((json.format as string) !== RUN_FORMAT)
    throw new TradelabError(
      'MODEL_INVALID',
      `${path}: format is ${JSON.stringify(json.format)}, not "${RUN_FORMAT}"`,
    );
  return json;
}

/** The settings a resumed run may change: only `epochs` (to extend it). */
function changedSettings(saved: PretrainSettings, now: PretrainSettings): string[] {
  return (Object.keys(saved) as (keyof PretrainSettings)[]).filter(
    (key) => key !== 'epochs' && saved[key] !== now[key],
  );
}

/** Trains (or resumes) a run; returns its run.json as written last. */
export async function pretrainTcn(
  dataset: RvDataset,
  settings: PretrainSettings,
  options: PretrainOptions,
): Promise<PretrainRunJson> {
  const { dir } = options;
  const modelConfig = {
    inputs: dataset.featureNames.length,
    hidden: settings.hidden,
    layers: settings.layers,
    kernel: settings.kernel,
    dropout: settings.dropout,
    seed: settings.seed,
  };
  const previous = options.resume === true ? readPretrainRun(dir) : undefined;
  const digest = datasetDigest(dataset);
  if (
    previous !== undefined &&
    previous.data.digest !== undefined &&
    previous.data.digest !== digest
  )
    throw new TradelabError(
      'DATA_MISMATCH',
      `the data of ${previous.data.spec} changed since the run started (digest ${previous.data.digest.slice(0, 12)}…, now ${digest.slice(0, 12)}…)`,
      { hint: 'resume on the same datasets, or start a new run with another --out' },
    );
  if (previous !== undefined) {
    const changed = changedSettings(previous.settings, settings);
    if (changed.length > 0)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `--resume keeps the run's settings; these would change: ${changed.join(', ')}`,
        {
          hint: 'leave those flags out (only --epochs may extend a resumed run), or start a new run with another --out',
        },
      );
  } else preparePretrainDirectory(dir);

  let net: Tcn;
  let trainer: TcnTrainer;
  let state: TrainerState = {
    epoch: 0,
    step: 0,
    bestValidationLoss: Infinity,
    bestEpoch: null,
    sinceBest: 0,
  };
  const checkpointDir = join(dir, 'checkpoint');
  if (previous !== undefined && existsSync(join(checkpointDir, 'model.json'))) {
    const loaded = loadTcnModel(checkpointDir, 'tcn');
    net = loaded.net;
    trainer = new TcnTrainer(net, {
      learningRate: settings.learningRate,
      checkpoint: settings.checkpoint,
    });
    if (loaded.training === undefined)
      throw new TradelabError('MODEL_INVALID', `${checkpointDir} is not a checkpoint`);
    const weights = loaded.training.optimizerWeights;
    await trainer.optimizer.setWeights(
      Object.entries(weights).map(([name, tensor]) => ({ name, tensor })),
    );
    for (const t of Object.values(weights)) t.dispose();
    // JSON has no Infinity or NaN: a loss that was either reads back as null.
    const saved = loaded.training.state as Omit<TrainerState, 'bestValidationLoss'> & {
      bestValidationLoss: number | null;
    };
    state = { ...saved, bestValidationLoss: saved.bestValidationLoss ?? Infinity };
  } else {
    net = new Tcn(modelConfig, 'tcn');
    trainer = new TcnTrainer(net, {
      learningRate: settings.learningRate,
      checkpoint: settings.checkpoint,
    });
  }

  // On the engine, the steps run there from the state above (fresh or resumed).
  const engine =
    options.gpu === undefined
      ? undefined
      : await GpuTcnTrainer.create(options.gpu, net, trainer, settings.chunkLen, settings.chunks);

  const har = previous?.har ?? fitHarBaseline(dataset);
  const validationRows = scoredRows(har, dataset, dataset.validation);
  const run: PretrainRunJson = {
    format: RUN_FORMAT,
    version: 1,
    settings,
    precision: options.precision,
    backend: options.backend,
    data: {
      spec: options.spec,
      digest,
      symbols: dataset.symbols,
      featureNames: dataset.featureNames,
      normalization: dataset.normalization,
      targetScale: dataset.targetScale,
      ranges: dataset.ranges,
      samples: {
        train: dataset.train.count,
        validation: validationRows.rows.length,
        test: dataset.test.count,
      },
    },
    model: { params: net.variables.reduce((n, v) => n + v.size, 0), receptiveField: 0 },
    har,
    status: 'running',
    history: previous?.history.slice(0, state.epoch) ?? [],
    bestEpoch: state.bestEpoch,
  };
  run.model.receptiveField = tcnSize(net.config).receptiveField;
  const save = (): void => {
    writeFileAtomic(join(dir, RUN_FILE), `${JSON.stringify(run, null, 2)}\n`);
    writePretrainReport(join(dir, REPORT_FILE), run);
  };
  save();

  const width = settings.chunkLen * dataset.featureNames.length;
  const micro: TcnBatch[] = Array.from({ length: settings.accum }, () => ({
    x: new Float32Array(settings.chunks * width),
    y: new Float32Array(settings.chunks),
    rows: settings.chunks,
  }));
  const rows = new Int32Array(settings.chunks);
  const { mean, sd } = dataset.targetScale;
  let stopped = false;
  const turns = new EventLoopTurns();
  try {
    while (state.epoch < settings.epochs && state.sinceBest < settings.patience) {
      const epoch = state.epoch + 1;
      const forecasts: number[] = [];
      const targets: number[] = [];
      let lossSum = 0;
      const started = performance.now();
      let step = state.step;
      for (let s = 0; s < settings.stepsPerEpoch; s++) {
        // Steps are synchronous kernels: a turn of the event loop lets a Ctrl-C be heard.
        await turns.maybeYield();
        if (options.stopRequested?.() === true) {
          stopped = true;
          break;
        }
        const rng = new Rng(settings.seed, 31, step);
        for (const batch of micro) {
          for (let r = 0; r < settings.chunks; r++)
            rows[r] = Math.floor(rng.uniform() * dataset.train.count);
          gatherChunks(dataset, dataset.train, rows, batch.x);
          for (let r = 0; r < settings.chunks; r++)
            batch.y[r] = ((dataset.train.target[rows[r] ?? 0] ?? 0) - mean) / sd;
        }
        const result =
          engine === undefined ? trainer.step(micro, step) : await engine.step(micro, step);
        step++;
        lossSum += result.loss;
        for (const batch of micro) for (const v of batch.y) targets.push(v);
        for (const v of result.predictions) forecasts.push(v);
        options.onStep?.(epoch, s + 1, result.loss);
      }
      if (stopped) break;
      // Validation runs on the CPU: the engine's weights come back once an epoch.
      await engine?.syncWeights();
      const trainSeconds = (performance.now() - started) / 1000;
      const evalStarted = performance.now();
      const forecast = forecastRows(
        net,
        dataset,
        dataset.validation,
        settings.chunks,
        validationRows.rows,
      );
      const truth = validationRows.rows.map((i) => dataset.validation.target[i] ?? Number.NaN);
      const validation = regressionMetrics(forecast, truth);
      const harMetrics = regressionMetrics(validationRows.har, truth);
      const evalSeconds = (performance.now() - evalStarted) / 1000;
      const validationLoss = validation.mse / (sd * sd);
      const best = validationLoss < state.bestValidationLoss;
      const samples = settings.stepsPerEpoch * settings.accum * settings.chunks;
      const row: EpochRow = {
        epoch,
        trainLoss: lossSum / settings.stepsPerEpoch,
        trainCorrelation: regressionMetrics(forecasts, targets).correlation,
        validationLoss,
        validation,
        har: harMetrics,
        trainSeconds,
        evalSeconds,
        itPerSecond: settings.stepsPerEpoch / trainSeconds,
        samplesPerSecond: samples / trainSeconds,
        timestepsPerSecond: (samples * settings.chunkLen) / trainSeconds,
        peakMemoryBytes: memoryReport().backendHeapBytes,
        best,
      };
      state = {
        epoch,
        step,
        bestValidationLoss: best ? validationLoss : state.bestValidationLoss,
        bestEpoch: best ? epoch : state.bestEpoch,
        sinceBest: best ? 0 : state.sinceBest + 1,
      };
      const meta = modelMeta(dataset, settings);
      if (best) await saveTcnModel(join(dir, 'model'), net, { meta: { ...meta, epoch } });
      await engine?.syncOptimizer();
      await saveTcnModel(checkpointDir, net, {
        meta,
        checkpoint: { optimizer: trainer.optimizer, state: { ...state } },
      });
      run.history.push(row);
      run.bestEpoch = state.bestEpoch;
      save();
      options.onEpoch?.(row, run);
    }
  } finally {
    trainer.dispose();
    net.dispose();
  }
  if (stopped) {
    run.status = 'stopped';
    save();
    return run;
  }
  // Early-stopped only when patience ran out before the epochs did.
  run.status = state.epoch < settings.epochs ? 'early-stopped' : 'finished';
  if (run.bestEpoch !== null) run.test = testScores(dir, dataset, har, settings.chunks);
  save();
  return run;
}

/**
 * Makes a new pretraining run's directory, refusing one that already holds a run (RUN_EXISTS) or
 * cannot be made (FILE_ACCESS). Cheap: the command calls it before it loads data or prints a plan.
 */
export function preparePretrainDirectory(dir: string): void {
  if (existsSync(join(dir, RUN_FILE)))
    throw new TradelabError('RUN_EXISTS', `${dir} already holds a TCN run`, {
      hint: 'continue it with --resume, or choose another --out',
    });
  makeDirectory(dir);
}

/** SHA-256 of what training reads: every symbol's features and every split's targets. */
function datasetDigest(dataset: RvDataset): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify([dataset.symbols, dataset.chunkLen, dataset.horizon]));
  for (const f of dataset.features)
    hash.update(new Uint8Array(f.buffer, f.byteOffset, f.byteLength));
  for (const split of [dataset.train, dataset.validation, dataset.test]) {
    const t = split.target;
    hash.update(new Uint8Array(t.buffer, t.byteOffset, t.byteLength));
  }
  return hash.digest('hex');
}

/** What DRL policies and forecasts need to use the model: its inputs, as trained. */
function modelMeta(dataset: RvDataset, settings: PretrainSettings): Record<string, unknown> {
  return {
    chunkLen: settings.chunkLen,
    horizon: settings.horizon,
    featureNames: dataset.featureNames,
    normalization: dataset.normalization,
    targetScale: dataset.targetScale,
  };
}

/** The rows both models are scored on (HAR has features there), and HAR's forecasts for them. */
function scoredRows(
  har: HarBaseline,
  dataset: RvDataset,
  samples: RvSamples,
): { rows: number[]; har: number[] } {
  const forecast = harForecast(har, dataset, samples);
  const rows: number[] = [];
  const values: number[] = [];
  forecast.forEach((v, i) => {
    if (!Number.isFinite(v)) return;
    rows.push(i);
    values.push(v);
  });
  return { rows, har: values };
}

/** The best model (`DIR/model`) against HAR-RV on the test rows. */
function testScores(
  dir: string,
  dataset: RvDataset,
  har: HarBaseline,
  chunks: number,
): NonNullable<PretrainRunJson['test']> {
  const loaded = loadTcnModel(join(dir, 'model'), 'tcn-best');
  try {
    const rows = scoredRows(har, dataset, dataset.test);
    const truth = rows.rows.map((i) => dataset.test.target[i] ?? Number.NaN);
    const forecast = forecastRows(loaded.net, dataset, dataset.test, chunks, rows.rows);
    return { tcn: regressionMetrics(forecast, truth), har: regressionMetrics(rows.har, truth) };
  } finally {
    loaded.net.dispose();
  }
}
