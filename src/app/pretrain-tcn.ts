import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { ActiveBackend } from '../compute/index.js';
import { TradelabError } from '../core/index.js';
import {
  BAR_FEATURE_COUNT,
  calendarFor,
  DAY_MS,
  openDatasetStore,
  parseDatasetKeys,
  timeframeMs,
} from '../data/index.js';
import { formatBytes, planWorkers, type WorkerPlan } from '../profiles/index.js';
import type {
  EpochRow,
  PretrainRunJson,
  PretrainSettings,
  RvDataset,
} from '../supervised/index.js';
import type { Project } from './open-project.js';
import { machineBudget, type MachineBudget } from './plan-here.js';
import { refuseChangedResumeFlags, runDataSpec } from './resume-changes.js';
import { startBackend } from './start-backend.js';

/*
 * Pretraining a TCN on realized volatility: the use case of `tradelab pretrain tcn`, a service job
 * and the public API, with the command's rules in one place — the settings (the flags over the
 * defaults, a resumed run's own where only the epochs may change), the chunks a micro-batch and
 * gradient checkpointing as the planner finds they fit (a bisection for the most chunks), the
 * threads, and intraday data only.
 */

/** Features per bar of the RV dataset. */
const FEATURES = BAR_FEATURE_COUNT;

/** Settings as asked: unset ones take the defaults (a resumed run: its own). */
export type PretrainSettingsAsked = {
  [K in keyof PretrainSettings]?: PretrainSettings[K] | undefined;
};

/** What a pretraining run is asked. */
export interface PretrainTcnOptions {
  /** The run directory; relative to the project root. */
  out?: string | undefined;
  /** `SYM[,SYM]:TF` of intraday bars; a resumed run's own when unset. */
  data?: string | undefined;
  /** Continue the run in `out` from its last epoch's checkpoint. */
  resume?: boolean | undefined;
  /** Native GEMM threads (default every core). */
  threads?: number | 'all' | undefined;
  settings?: PretrainSettingsAsked | undefined;
}

/** The settings a run goes with, and why its chunks and checkpointing are what they are. */
export interface PretrainPlan {
  settings: PretrainSettings;
  /** The planner's plan of one step. */
  plan: WorkerPlan;
  /** Why the chunks and checkpointing: one line each. */
  why: string[];
  /** The run being resumed, if any. */
  previous: PretrainRunJson | undefined;
  /** The run directory, when `out` was given. */
  dir: string | undefined;
}

/** What a run starts with, once its data is read. */
export interface PretrainTcnStart {
  dir: string;
  spec: string;
  settings: PretrainSettings;
  dataset: RvDataset;
  backend: ActiveBackend;
}

/** What a run tells as it goes. */
export interface PretrainTcnEvents {
  /** The run directory is made (or a resumed one read): nothing was loaded yet. */
  onPrepared?: () => void | Promise<void>;
  /** A note for the user: the planner's reasons, the precision used. */
  onNote?: (text: string) => void;
  onStart?: (start: PretrainTcnStart) => void | Promise<void>;
  onStep?: (epoch: number, step: number, loss: number) => void;
  onEpoch?: (row: EpochRow) => void;
  /** Checked after every step; true stops the run (resumable from its last epoch). */
  shouldStop?: () => boolean;
}

/** The settings each flag sets, with its `--flag` name (a resume names what differs). */
const SETTING_FLAGS: readonly [keyof PretrainSettings, string][] = [
  ['hidden', 'hidden'],
  ['layers', 'layers'],
  ['kernel', 'kernel'],
  ['dropout', 'dropout'],
  ['chunkLen', 'chunk-len'],
  ['horizon', 'horizon'],
  ['chunks', 'chunks'],
  ['accum', 'accum'],
  ['stepsPerEpoch', 'steps-per-epoch'],
  ['learningRate', 'lr'],
  ['patience', 'patience'],
  ['seed', 'seed'],
  ['precision', 'precision'],
  ['checkpoint', 'checkpoint'],
];

/** The run's settings and the planner's chunks, as `options` ask: what `--summary` prints. */
export async function planPretrain(
  project: Project,
  options: PretrainTcnOptions,
): Promise<PretrainPlan> {
  const supervised = await import('../supervised/index.js');
  const root = project.config.projectRoot;
  const dir = options.out === undefined ? undefined : resolve(root, options.out);
  const previous =
    options.resume === true && dir !== undefined ? supervised.readPretrainRun(dir) : undefined;
  const budget = await machineBudget(project, 'tcn');
  const asked = options.settings ?? {};
  const given = SETTING_FLAGS.filter(([key]) => asked[key] !== undefined);
  let settings: PretrainSettings;
  if (previous !== undefined) {
    refuseChangedResumeFlags(
      given.map(([key, flag]) => ({
        flag: key === 'checkpoint' && asked.checkpoint === false ? '--no-checkpoint' : `--${flag}`,
        run: previous.settings[key],
        asked: asked[key],
      })),
      '--epochs',
    );
    settings = {
      ...previous.settings,
      ...(asked.epochs === undefined ? {} : { epochs: asked.epochs }),
    };
  } else {
    settings = {
      ...supervised.PRETRAIN_DEFAULTS,
      chunks: budget.choice.profile.workloads.tcn.chunksPerBatch,
      checkpoint: false,
    };
    for (const [key, value] of Object.entries(asked))
      if (value !== undefined) Object.assign(settings, { [key]: value });
  }
  const chosen = chooseChunks(settings, budget, {
    explicitChunks: asked.chunks !== undefined || previous !== undefined,
    explicitCheckpoint: asked.checkpoint !== undefined || previous !== undefined,
  });
  settings.chunks = chosen.chunks;
  settings.checkpoint = chosen.checkpoint;
  supervised.checkPretrainSettings(settings);
  return { settings, plan: chosen.plan, why: chosen.why, previous, dir };
}

/** Pretrains (or resumes) a TCN as `options` ask. */
export async function pretrainTcnRun(
  project: Project,
  options: PretrainTcnOptions,
  events: PretrainTcnEvents = {},
): Promise<PretrainRunJson & { dir: string }> {
  const supervised = await import('../supervised/index.js');
  const { settings, why, previous, dir } = await planPretrain(project, options);
  if (dir === undefined)
    throw new TradelabError('USAGE', 'pretrain tcn needs --out DIR (where the run is written)', {
      hint: 'e.g. tradelab pretrain tcn --data SPY:5m --out runs/spy-tcn (or --summary for the network alone)',
    });
  const spec = runDataSpec('pretrain tcn', previous?.data.spec, options.data, 'SPY:5m');

  // Before anything is loaded: a run there already, or an --out that cannot be made.
  if (previous === undefined) supervised.preparePretrainDirectory(dir);
  await events.onPrepared?.();
  for (const line of why) events.onNote?.(line);
  const threads =
    options.threads === undefined || options.threads === 'all'
      ? availableParallelism()
      : options.threads;
  const backend = await startBackend(project, { nativeThreads: threads });
  const precision = supervised.resolvePrecision(settings.precision, backend.name);
  if (precision.note !== undefined) events.onNote?.(precision.note);

  const store = openDatasetStore(project.config.settings.dataDir);
  const series = [];
  for (const key of parseDatasetKeys(spec)) {
    const { entry, bars } = await store.read(key);
    const barMs = timeframeMs(key.timeframe);
    if (barMs >= DAY_MS)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `${key.symbol}:${key.timeframe} is daily: realized volatility needs intraday bars`,
        { hint: 'use 1m … 1h bars (`tradelab data resample` makes them from finer ones)' },
      );
    series.push({ symbol: key.symbol, bars, calendar: calendarFor(entry.calendar), barMs });
  }
  const dataset = supervised.buildRvDataset(series, {
    chunkLen: settings.chunkLen,
    horizon: settings.horizon,
  });
  await events.onStart?.({ dir, spec, settings, dataset, backend });
  const result = await supervised.pretrainTcn(dataset, settings, {
    dir,
    spec,
    backend: `${backend.name} (${backend.matmul})`,
    gpu: backend.gpu,
    precision,
    resume: previous !== undefined,
    ...(events.onStep === undefined ? {} : { onStep: events.onStep }),
    ...(events.onEpoch === undefined ? {} : { onEpoch: events.onEpoch }),
    ...(events.shouldStop === undefined ? {} : { stopRequested: events.shouldStop }),
  });
  return { ...result, dir };
}

/** The chunks a micro-batch and checkpointing, as the planner finds they fit, and why. */
function chooseChunks(
  settings: PretrainSettings,
  budget: MachineBudget,
  explicit: { explicitChunks: boolean; explicitCheckpoint: boolean },
): { chunks: number; checkpoint: boolean; plan: WorkerPlan; why: string[] } {
  const { profile } = budget.choice;
  const plan = (chunks: number, checkpoint: boolean): WorkerPlan =>
    planWorkers({
      profile,
      workload: 'tcn',
      backend: budget.backend,
      memory: budget.memory,
      cpuCores: 1,
      safetyFactor: budget.safetyFactor,
      batchSize: chunks,
      model: {
        kind: 'tcn',
        inputs: FEATURES,
        hidden: settings.hidden,
        layers: settings.layers,
        kernel: settings.kernel,
        chunkLen: settings.chunkLen,
        checkpoint,
      },
    });
  const why: string[] = [];
  const source = explicit.explicitChunks
    ? '--chunks'
    : `profile ${profile.name}'s tcn.chunksPerBatch`;
  let chunks = settings.chunks;
  let checkpoint = settings.checkpoint;
  let current = plan(chunks, checkpoint);
  // What a plan that does not fit runs into: the wasm heap's 4 GiB or the usable memory.
  const tooBig = (p: WorkerPlan): string =>
    p.limitedBy === 'wasm32'
      ? 'more than a wasm worker can address (4 GiB)'
      : `more than the usable ${formatBytes(p.usable.bytes)}`;
  if (!current.fits && !checkpoint && !explicit.explicitCheckpoint) {
    const withCheckpointing = plan(chunks, true);
    why.push(
      `gradient checkpointing on: without it one step needs ${formatBytes(current.perWorkerBytes)}, ${tooBig(current)}; with it ${formatBytes(withCheckpointing.perWorkerBytes)} (--no-checkpoint to refuse)`,
    );
    checkpoint = true;
    current = withCheckpointing;
  }
  if (!current.fits && !explicit.explicitChunks) {
    // The most chunks that fit: the plan grows with the chunks, so a bisection finds them.
    let low = 0;
    let high = chunks;
    while (high - low > 1) {
      const mid = Math.floor((low + high) / 2);
      if (plan(mid, checkpoint).fits) low = mid;
      else high = mid;
    }
    if (low >= 1) {
      why.push(
        `chunks ${low}, not the ${chunks} of ${source}: ${chunks} need ${formatBytes(current.perWorkerBytes)} a step, ${tooBig(current)}`,
      );
      chunks = low;
      current = plan(chunks, checkpoint);
    }
  }
  if (!current.fits)
    throw new TradelabError(
      'PLAN_DOES_NOT_FIT',
      `one step of ${chunks} chunks of ${settings.chunkLen} bars needs ${formatBytes(current.perWorkerBytes)}, ${tooBig(current)}`,
      {
        hint: 'use fewer --chunks (and more --accum), a shorter --chunk-len, --checkpoint, or a smaller --hidden',
      },
    );
  why.push(
    `chunks ${chunks} a micro-batch (${why.some((w) => w.startsWith('chunks')) ? 'the most that fit' : source}); gradient checkpointing ${checkpoint ? 'on' : 'off'}; a step needs about ${formatBytes(current.perWorkerBytes)} of ${formatBytes(current.usable.bytes)} usable (${current.memoryKind === 'gpu' ? 'VRAM' : 'RAM'})`,
  );
  return { chunks, checkpoint, plan: current, why };
}
