import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { machineBudget, startBackend } from '../../app/index.js';
import { TradelabError } from '../../core/index.js';
import {
  BAR_FEATURE_COUNT,
  calendarFor,
  DAY_MS,
  parseDatasetKeys,
  timeframeMs,
} from '../../data/index.js';
import { formatBytes, planWorkers, type WorkerPlan } from '../../profiles/index.js';
import {
  buildRvDataset,
  checkPretrainSettings,
  EPOCH_HEADERS,
  epochCells,
  PRECISIONS,
  PRETRAIN_DEFAULTS,
  preparePretrainDirectory,
  readPretrainRun,
  REPORT_FILE,
  resolvePrecision,
  verdict,
  type EpochRow,
  type PretrainSettings,
} from '../../supervised/index.js';
import type { CommandContext } from '../command-spec.js';
import { count } from '../format.js';
import { choiceOption, intOption, numberOption } from '../option-values.js';
import { openStore } from '../open-store.js';
import { renderTable } from '../output.js';
import { logProfileBanner } from '../profile-banner.js';
import { createProgress, progressIntervalOption } from '../progress.js';
import { projectPath } from '../project-path.js';
import { onStopSignals, signalExitCode } from '../stop-signals.js';
import { refuseChangedResumeFlags } from '../../app/index.js';

/** Features per bar of the RV dataset. */
const FEATURES = BAR_FEATURE_COUNT;

/**
 * `tradelab pretrain tcn --data SYM[,SYM]:TF --out DIR`: pretrains a TCN on log forward realized
 * volatility beside HAR-RV, an epoch table as it goes; `--summary` prints the network and its
 * memory plan only.
 */
export async function run(context: CommandContext): Promise<number | undefined> {
  const { out, options } = context;
  const project = context.project();
  const resume = options.resume === true;
  const dir = typeof options.out === 'string' ? projectPath(context, options.out) : undefined;
  const previous = resume && dir !== undefined ? readPretrainRun(dir) : undefined;
  const budget = await machineBudget(project, 'tcn');
  const settings = resolveSettings(
    options,
    previous?.settings,
    budget.choice.profile.workloads.tcn.chunksPerBatch,
  );
  const explicitCheckpoint = options.checkpoint === true || options['no-checkpoint'] === true;
  const chosen = chooseChunks(settings, budget, {
    explicitChunks: options.chunks !== undefined || previous !== undefined,
    explicitCheckpoint: explicitCheckpoint || previous !== undefined,
  });
  settings.chunks = chosen.chunks;
  settings.checkpoint = chosen.checkpoint;
  checkPretrainSettings(settings);

  if (options.summary === true) {
    const { tcnSize } = await import('../../models/index.js');
    const size = tcnSize({
      inputs: FEATURES,
      hidden: settings.hidden,
      layers: settings.layers,
      kernel: settings.kernel,
      dropout: settings.dropout,
    });
    if (out.json) {
      out.record({
        type: 'summary',
        layers: size.layers,
        params: size.params,
        receptiveField: size.receptiveField,
        plan: chosen.plan,
        why: chosen.why,
      });
      return undefined;
    }
    out.line(
      `TCN ${settings.layers}×${settings.hidden}, kernel ${settings.kernel}, ${FEATURES} features a bar`,
    );
    out.line();
    for (const line of renderTable(size.layers, [
      { header: 'LAYER', value: (r) => r.name },
      { header: 'KIND', value: (r) => r.kind },
      { header: 'OUTPUT', value: (r) => r.output },
      { header: 'PARAMS', value: (r) => count(r.params), right: true },
    ]))
      out.line(line);
    out.line();
    out.line(
      `parameters: ${count(size.params)}; the last step sees ${count(size.receptiveField)} bars (chunks are ${count(settings.chunkLen)})`,
    );
    for (const why of chosen.why) out.line(why);
    return undefined;
  }

  if (dir === undefined)
    throw new TradelabError('USAGE', 'pretrain tcn needs --out DIR (where the run is written)', {
      hint: 'e.g. tradelab pretrain tcn --data SPY:5m --out runs/spy-tcn (or --summary for the network alone)',
    });
  const spec = previous?.data.spec ?? (typeof options.data === 'string' ? options.data : undefined);
  if (spec === undefined)
    throw new TradelabError('USAGE', 'pretrain tcn needs --data SYM[,SYM]:TF (intraday bars)', {
      hint: 'e.g. --data SPY:5m (see `tradelab data list`)',
    });
  if (previous !== undefined && typeof options.data === 'string' && options.data !== spec)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--data ${options.data} differs from the run's ${spec}`,
      {
        hint: 'leave --data out when resuming, or start a new run with another --out',
      },
    );

  // Before anything is loaded or printed: a run there already, or an --out that cannot be made.
  if (previous === undefined) preparePretrainDirectory(dir);
  await logProfileBanner(context, 1);
  for (const why of chosen.why) out.note(why);
  const threads =
    options.threads === 'all'
      ? availableParallelism()
      : (intOption(options, 'threads', 1) ?? availableParallelism());
  const backend = await startBackend(project, { nativeThreads: threads });
  const precision = resolvePrecision(settings.precision, backend.name);
  if (precision.note !== undefined) out.note(precision.note);

  const store = openStore(context);
  const series = [];
  for (const key of parseDatasetKeys(spec)) {
    const { entry, bars } = await store.read(key);
    const barMs = timeframeMs(key.timeframe);
    if (barMs >= DAY_MS)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `${key.symbol}:${key.timeframe} is daily: realized volatility needs intraday bars`,
        {
          hint: 'use 1m … 1h bars (`tradelab data resample` makes them from finer ones)',
        },
      );
    series.push({ symbol: key.symbol, bars, calendar: calendarFor(entry.calendar), barMs });
  }
  const dataset = buildRvDataset(series, {
    chunkLen: settings.chunkLen,
    horizon: settings.horizon,
  });
  const date = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
  const { ranges } = dataset;
  out.note(
    `data: ${dataset.symbols.join(', ')}; train ${date(ranges.train.firstDay)} … ${date(ranges.train.lastDay)} (${count(dataset.train.count)} chunks), validation ${date(ranges.validation.firstDay)} … ${date(ranges.validation.lastDay)} (${count(dataset.validation.count)} session closes), test ${date(ranges.test.firstDay)} … (${count(dataset.test.count)}); ${ranges.gap}-session gaps`,
  );
  out.note(
    `backend ${backend.name} (${backend.matmul}); ${settings.chunks} chunks × ${settings.accum} accumulated a step, ${settings.stepsPerEpoch} steps an epoch, up to ${settings.epochs} epochs`,
  );
  if (backend.gpu !== undefined)
    out.note(
      `the TCN's steps run on tradelab's GPU engine${settings.checkpoint ? ", which recomputes each block's convolutions (gradient checkpointing)" : ''}; validation on the CPU`,
    );

  const resumeCommand = `tradelab pretrain tcn --out ${String(options.out)} --resume`;
  const signals = onStopSignals({
    requested(signal) {
      out.note(
        `\n${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping after this step (Ctrl-C again to quit at once)…`,
      );
    },
    forced(signal) {
      // The checkpoint of the last finished epoch is on disk; the interrupted epoch is redone.
      out.note(`\nquit at once (${signal}); continue with: ${resumeCommand}`);
    },
  });
  const newProgress = (): ReturnType<typeof createProgress> =>
    createProgress({
      total: settings.stepsPerEpoch,
      unit: 'steps',
      plainIntervalS: progressIntervalOption(options),
      out,
    });
  let progress = newProgress();
  const header = EPOCH_HEADERS.map((h) => h.toUpperCase());
  if (!out.json) out.line(header.join('  '));
  const printRow = (row: EpochRow): void => {
    if (out.json) {
      out.record({ type: 'epoch', ...row });
      return;
    }
    const cells = epochCells(row);
    out.line(cells.map((c, i) => c.padStart((header[i] ?? '').length)).join('  '));
  };
  const { pretrainTcn } = await import('../../supervised/index.js');
  let result;
  try {
    result = await pretrainTcn(dataset, settings, {
      dir,
      spec,
      backend: `${backend.name} (${backend.matmul})`,
      gpu: backend.gpu,
      precision,
      resume: previous !== undefined,
      onStep: (epoch, step, loss) => {
        progress.update(step, `epoch ${epoch}, loss ${loss.toFixed(4)}`);
      },
      onEpoch: (row) => {
        progress.done();
        printRow(row);
        // One bar an epoch, so its rate and ETA are the epoch's.
        progress = newProgress();
      },
      stopRequested: () => signals.received() !== undefined,
    });
  } finally {
    progress.done();
    signals.dispose();
  }
  if (out.json)
    out.record({
      type: 'run',
      dir,
      status: result.status,
      bestEpoch: result.bestEpoch,
      test: result.test ?? null,
    });
  else {
    out.line();
    out.line(
      result.bestEpoch === null
        ? `run ${result.status} before its first epoch ended: no weights yet`
        : `run ${result.status}; best epoch ${result.bestEpoch} (its weights: ${join(dir, 'model')})`,
    );
    if (result.test !== undefined) {
      out.line(
        `test rows (${count(result.test.tcn.rows)}): TCN corr ${result.test.tcn.correlation.toFixed(3)}, R² ${result.test.tcn.r2.toFixed(3)}, RMSE ${result.test.tcn.rmse.toFixed(4)}; HAR-RV corr ${result.test.har.correlation.toFixed(3)}, R² ${result.test.har.r2.toFixed(3)}, RMSE ${result.test.har.rmse.toFixed(4)}`,
      );
      out.line(verdict(result.test));
    }
    out.line(`report: ${join(dir, REPORT_FILE)}`);
  }
  if (result.status === 'stopped') {
    out.note(`stopped; continue with: ${resumeCommand}`);
    return signalExitCode(signals.received() ?? 'SIGINT');
  }
  return undefined;
}

type Options = Readonly<Record<string, string | boolean | undefined>>;

/** The run's settings: the flags over the defaults, or a resumed run's own (only --epochs may change). */
function resolveSettings(
  options: Options,
  saved: PretrainSettings | undefined,
  profileChunks: number,
): PretrainSettings {
  // Each flag with the setting it sets: a resume compares the values with the run's.
  const table: [flag: string, key: keyof PretrainSettings, value: unknown][] = [
    ['hidden', 'hidden', intOption(options, 'hidden', 1)],
    ['layers', 'layers', intOption(options, 'layers', 1)],
    ['kernel', 'kernel', intOption(options, 'kernel', 1)],
    ['dropout', 'dropout', numberOption(options, 'dropout', 0, 0.99, '0.1')],
    ['chunk-len', 'chunkLen', intOption(options, 'chunk-len', 2)],
    ['horizon', 'horizon', intOption(options, 'horizon', 1)],
    ['chunks', 'chunks', intOption(options, 'chunks', 1)],
    ['accum', 'accum', intOption(options, 'accum', 1)],
    ['steps-per-epoch', 'stepsPerEpoch', intOption(options, 'steps-per-epoch', 1)],
    ['lr', 'learningRate', numberOption(options, 'lr', 1e-8, 0.99, '1e-3')],
    ['patience', 'patience', intOption(options, 'patience', 1)],
    ['seed', 'seed', intOption(options, 'seed', 0)],
    ['precision', 'precision', choiceOption(options, 'precision', PRECISIONS)],
    [
      'checkpoint',
      'checkpoint',
      options['no-checkpoint'] === true ? false : options.checkpoint === true ? true : undefined,
    ],
  ];
  const given = table.filter(([, , value]) => value !== undefined);
  const flags = Object.fromEntries(
    given.map(([, key, value]) => [key, value]),
  ) as Partial<PretrainSettings>;
  const epochs = intOption(options, 'epochs', 1);
  if (epochs !== undefined) flags.epochs = epochs;
  if (saved !== undefined) {
    refuseChangedResumeFlags(
      given.map(([flag, key, value]) => ({ flag: `--${flag}`, run: saved[key], asked: value })),
      '--epochs',
    );
    return { ...saved, ...(flags.epochs === undefined ? {} : { epochs: flags.epochs }) };
  }
  return { ...PRETRAIN_DEFAULTS, chunks: profileChunks, checkpoint: false, ...flags };
}

/** The chunks a micro-batch and checkpointing, as the planner finds they fit, and why. */
function chooseChunks(
  settings: PretrainSettings,
  budget: Awaited<ReturnType<typeof machineBudget>>,
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
