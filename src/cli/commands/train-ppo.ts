import { existsSync, statfsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import {
  prepareRunDirectory,
  resolvePpoConfig,
  trainPpoRun,
  type PpoRunResult,
  POLICY_NETWORKS,
  type PpoConfig,
  readRunManifest,
  RUN_FILES,
  trainingVerdictContext,
  type RunEnvOptions,
  type RunManifest,
  MANIFEST_FILE,
  withRecordedEncoder,
  withTcnEncoder,
  writeRunManifest,
} from '../../agents/index.js';
import {
  describeBarRange,
  digestMarketData,
  loadMarketData,
  parseBarRange,
  parseDatasetKeys,
  type BarRange,
  type MarketData,
} from '../../data/index.js';
import { isTradelabError, TradelabError } from '../../core/index.js';
import { machineBudget, tradelabVersion, startBackend, type Project } from '../../app/index.js';
import { nativeTransformerKernelsActive } from '../../compute/index.js';
import { memoryShortfall } from '../../trading/index.js';
import { rangeVerdict } from '../../eval/index.js';
import { ACTION_SCALINGS, EXECUTION_PRICES } from '../../env/index.js';
import { formatBytes } from '../../profiles/index.js';
import type { CommandContext } from '../command-spec.js';
import { logProfileBanner } from '../profile-banner.js';
import { projectPath } from '../project-path.js';
import { count, num, shellQuote } from '../format.js';
import { choiceOption, intOption, numberOption } from '../option-values.js';
import { openStore } from '../open-store.js';
import { createProgress, progressIntervalOption } from '../progress.js';
import { printEvaluation } from '../print-evaluation.js';
import { onStopSignals, signalExitCode } from '../stop-signals.js';
import { refuseChangedResumeFlags, type ResumeFlag } from '../resume-changes.js';

/**
 * `tradelab train ppo --data SYM[,SYM]:TF --out DIR`: trains PPO on the training range,
 * checkpoints, and evaluates the deterministic policy on the test range beside buy-and-hold.
 */
export async function run(context: CommandContext): Promise<number | undefined> {
  const { out, options } = context;
  const project = context.project();
  if (typeof options.out !== 'string')
    throw new TradelabError('USAGE', 'train ppo needs --out DIR (where the run is written)', {
      hint: 'e.g. tradelab train ppo --data BTCUSDT:1h --out runs/btc-ppo',
    });
  const dir = projectPath(context, options.out);
  const resume = options.resume === true;
  const progressInterval = progressIntervalOption(options);
  const previous = resume ? readRunManifest(dir) : undefined;
  const spec = previous?.data.spec ?? (typeof options.data === 'string' ? options.data : undefined);
  if (spec === undefined)
    throw new TradelabError('USAGE', 'train ppo needs --data SYM[,SYM]:TF', {
      hint: 'e.g. --data BTCUSDT,ETHUSDT:1h (see `tradelab data list`)',
    });
  if (previous !== undefined && typeof options.data === 'string' && options.data !== spec)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--data ${options.data} differs from the run's ${spec}`,
      {
        hint: 'leave --data out when resuming, or start a new run with another --out',
      },
    );

  const threads = runThreads(options.threads, previous?.backend.threads);
  if (previous?.backend.threads !== undefined && options.threads === undefined)
    out.note(`resuming with the run's --threads ${threads}`);
  const backend = await startBackend(project, { nativeThreads: threads });
  // --policy tcn:DIR: the actor's MLP reads a pretrained TCN's encodings beside the features.
  const policyFlag = typeof options.policy === 'string' ? options.policy : undefined;
  const askedEncoder =
    policyFlag?.startsWith('tcn:') === true ? projectPath(context, policyFlag.slice(4)) : undefined;
  const encoderRun = previous?.data.encoder?.run ?? askedEncoder;
  const loaded = await loadMarketData(openStore(context), parseDatasetKeys(spec));
  // A resumed run's encoder is its own: withRecordedEncoder refuses one whose weights changed.
  const withEncoder =
    encoderRun === undefined
      ? undefined
      : previous?.data.encoder === undefined
        ? withTcnEncoder(loaded, encoderRun)
        : {
            data: withRecordedEncoder(loaded, previous.data.encoder),
            encoder: previous.data.encoder,
          };
  const data = withEncoder?.data ?? loaded;
  if (withEncoder !== undefined)
    out.note(
      `policy: an MLP over the features and a frozen TCN encoder (${withEncoder.encoder.run}: ${withEncoder.encoder.hidden} encodings an asset over ${withEncoder.encoder.chunkLen}-bar chunks, ${withEncoder.encoder.method})`,
    );
  const bars = data.timestamps.length;
  const lookback = intOption(options, 'lookback', 1) ?? 1;
  const { train, test } = ranges(options, data.timestamps, lookback);

  // Each PPO flag with the config key it sets: a resume compares the values with the run's.
  const ppoFlags: [
    flag: string,
    key: keyof PpoConfig,
    value: PpoConfig[keyof PpoConfig] | undefined,
  ][] = [
    ['envs', 'nEnvs', intOption(options, 'envs', 1)],
    [
      'policy',
      'policy',
      policyFlag?.startsWith('tcn:') === true
        ? undefined
        : choiceOption(options, 'policy', POLICY_NETWORKS),
    ],
    ['net-dim', 'netDim', intOption(options, 'net-dim', 1)],
    ['layers', 'layers', intOption(options, 'layers', 1)],
    ['batch-size', 'batchSize', intOption(options, 'batch-size', 1)],
    ['target-step', 'targetStep', intOption(options, 'target-step', 1)],
    ['repeat-times', 'repeatTimes', intOption(options, 'repeat-times', 1)],
    ['lr', 'learningRate', numberOption(options, 'lr', 1e-8, 1, '3e-4')],
    ['gamma', 'gamma', numberOption(options, 'gamma', 0, 1, '0.99')],
    ['lambda-gae', 'lambdaGae', numberOption(options, 'lambda-gae', 0, 1, '0.95')],
    ['ratio-clip', 'ratioClip', numberOption(options, 'ratio-clip', 1e-6, 1, '0.2')],
    ['entropy', 'lambdaEntropy', numberOption(options, 'entropy', 0, 1, '0.01')],
    [
      'no-reward-scaling',
      'normalizeRewards',
      options['no-reward-scaling'] === true ? false : undefined,
    ],
    ['seed', 'seed', intOption(options, 'seed', 0)],
  ];
  // Each env flag with the option it sets and the env's own default (env-config.ts), what a run
  // started without the flag ran with: a resume compares the values with the run's.
  const envFlags: [flag: string, key: keyof RunEnvOptions, value: unknown, runDefault: unknown][] =
    [
      ['lookback', 'lookback', options.lookback === undefined ? undefined : lookback, 1],
      ['fee-bps', 'buyFeeBps', numberOption(options, 'fee-bps', 0, 1000, '10'), 10],
      ['episode-length', 'episodeLength', intOption(options, 'episode-length', 1), undefined],
      [
        'reward',
        'reward',
        choiceOption(options, 'reward', ['value-change', 'excess'] as const),
        'value-change',
      ],
      [
        'turnover-penalty',
        'turnoverPenalty',
        numberOption(options, 'turnover-penalty', 0, 1, '0.001'),
        0,
      ],
      [
        'action-scaling',
        'actionScaling',
        choiceOption(options, 'action-scaling', ACTION_SCALINGS),
        'fraction',
      ],
      [
        'rebalance-band',
        'noTradeBand',
        numberOption(options, 'rebalance-band', 0, 0.99, '0.02'),
        0,
      ],
      [
        'execution-price',
        'executionPrice',
        choiceOption(options, 'execution-price', EXECUTION_PRICES),
        'close',
      ],
    ];
  const ppo: Partial<PpoConfig> = {};
  const steps = intOption(options, 'steps', 1);
  if (steps !== undefined) ppo.breakStep = steps;
  for (const [, key, value] of ppoFlags)
    if (value !== undefined) Object.assign(ppo, { [key]: value });
  if (previous !== undefined)
    refuseChangedResumeFlags(
      resumeFlags(options, previous, ppoFlags, envFlags, { train, test }, askedEncoder),
      '--steps',
    );
  // A new run's rollout is about 2048 env steps; a resumed run keeps its own.
  else if (ppo.nEnvs !== undefined && ppo.targetStep === undefined)
    ppo.targetStep = Math.max(1, Math.round(2048 / ppo.nEnvs)) * ppo.nEnvs;
  if (previous?.status === 'finished' && !extendsRun(previous, intOption(options, 'steps', 1))) {
    const { updatesDone, totalUpdates, envSteps } = previous.progress;
    const message = `nothing left to train: run ${dir} finished ${updatesDone}/${totalUpdates} updates (${count(envSteps)} env steps)`;
    if (out.json) out.record({ type: 'run', dir, manifest: previous, nothingLeft: true });
    else {
      out.line(message);
      out.line(
        `  to train longer: --resume --steps N above ${count(previous.ppo.breakStep)}; to evaluate it again: tradelab backtest --model ${shellQuote(options.out)}`,
      );
    }
    return undefined;
  }

  if (previous === undefined) await refuseTooLarge(project, data, ppo, lookback);

  const env: RunEnvOptions = { lookback };
  for (const [, key, value] of envFlags)
    if (value !== undefined) Object.assign(env, { [key]: value });
  if (env.buyFeeBps !== undefined) env.sellFeeBps = env.buyFeeBps; // --fee-bps is both sides
  if (options['rebalance-band'] !== undefined && env.actionScaling === 'units')
    throw new TradelabError(
      'INVALID_ARGUMENT',
      '--rebalance-band is a share of the portfolio, and --action-scaling units orders units',
      {
        hint: 'use --action-scaling fraction or target with a band, or leave --rebalance-band out',
      },
    );

  // Before anything is printed: a run there already, or an --out that cannot be made.
  if (!resume) prepareRunDirectory(dir);
  await logProfileBanner(context, 1);
  if (!out.json) {
    out.line(
      `${resume ? 'Resuming' : 'Training'} PPO on ${data.symbols.join(', ')} at ${data.timeframe}: ${count(bars)} bars × ${data.featureNames.length} features`,
    );
    out.line(
      `  train ${describeBarRange(previous?.ranges.train.bars ?? train, data.timestamps, data.timeframe)}`,
    );
    const testRange = previous === undefined ? test : (previous.ranges.test?.bars ?? undefined);
    out.line(
      `  test  ${testRange === undefined ? 'none' : describeBarRange(testRange, data.timestamps, data.timeframe)}`,
    );
    out.line(`  backend ${backend.name} (${backend.matmul}); ${backend.why}`);
    if (backend.gpu !== undefined && (previous?.ppo.policy ?? ppo.policy) === 'ft_transformer')
      out.line(
        "  the FT-Transformer's update stays on the CPU (wasm): the GPU engine trains MLP actors",
      );
    out.line(`  run directory ${dir}`);
    out.line();
  }

  const checkpointEvery = intOption(options, 'checkpoint-every', 1);
  const resumeCommand = `tradelab train ppo --out ${shellQuote(options.out)} --resume`;
  const signals = onStopSignals({
    requested(signal) {
      out.note(
        `\n${signal === 'SIGINT' ? 'Ctrl-C' : signal}: stopping after this update (Ctrl-C again to quit at once)…`,
      );
    },
    forced(signal) {
      // Quitting mid-update: the run resumes from its last checkpoint, as after a stop.
      markInterrupted(dir, out);
      out.note(`\nquit at once (${signal}); continue with: ${resumeCommand}`);
      out.note('  --resume goes on from the last checkpoint; updates since then run again');
    },
  });
  // Made before training starts, so the first update's rate counts the time it took.
  const progress = createProgress({
    total: 0,
    unit: 'env steps',
    one: 'env step',
    plainIntervalS: progressInterval,
    out,
  });
  let progressFrom: number | undefined;
  let result: PpoRunResult;
  try {
    result = await trainPpoRun({
      dir,
      data,
      dataSpec: spec,
      // The digest is the market's, before the encodings (the encoder has its own checksum).
      ...(withEncoder === undefined
        ? {}
        : { encoder: withEncoder.encoder, marketDigest: digestMarketData(loaded) }),
      train,
      test,
      ppo,
      env,
      resume,
      ...(checkpointEvery === undefined ? {} : { checkpointEvery }),
      backend: { name: backend.name, matmul: backend.matmul, threads },
      gpu: backend.gpu,
      tradelabVersion: tradelabVersion(),
      command: process.argv.slice(2),
      onUpdate: (report, trainer) => {
        if (out.json) out.record({ type: 'update', ...report });
        // Counted from where this process started (a resumed run's earlier steps took no time here).
        progressFrom ??= report.envSteps - trainer.config.targetStep;
        const ret = report.meanEpisodeReturn;
        progress.update(
          report.envSteps - progressFrom,
          `update ${report.update}/${trainer.totalUpdates}${ret === null ? '' : ` return ${num(ret, 4)}`}`,
          trainer.totalUpdates * trainer.config.targetStep - progressFrom,
        );
      },
      onWarning: (message) => {
        out.note(`warning: ${message}`);
      },
      shouldStop: () => signals.received() !== undefined,
    });
  } catch (error) {
    throw keptCheckpoint(error, dir, resumeCommand);
  } finally {
    progress.done();
    signals.dispose();
  }
  const { manifest, reports } = result;
  if (result.stopped) {
    const done = manifest.progress.updatesDone;
    out.note(`stopped after update ${done}; continue with: ${resumeCommand}`);
    const point = resumePoint(done, result);
    if (point !== undefined) out.note(`  ${point}`);
    // As a shell reports a command ended by that signal: 130 after Ctrl-C, 143 after SIGTERM.
    return signalExitCode(signals.received() ?? 'SIGINT');
  }
  const report = result.reportPath;
  const verdictContext = trainingVerdictContext(reports);
  if (out.json) {
    out.record({
      type: 'run',
      dir,
      manifest,
      report,
      ...(result.evaluation === undefined
        ? {}
        : { verdict: rangeVerdict(result.evaluation, verdictContext) }),
    });
    return undefined;
  }
  const median = (values: number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  };
  out.line(
    `${count(manifest.progress.envSteps)} env steps in ${manifest.progress.updatesDone} updates, ${num(manifest.progress.seconds, 3)} s`,
  );
  if (reports.length > 0)
    out.line(
      `per update (median): rollout ${num(median(reports.map((r) => r.rolloutSeconds)), 3)} s at ${count(Math.round(median(reports.map((r) => r.envStepsPerSecond))))} env steps/s, update ${num(median(reports.map((r) => r.updateSeconds)), 3)} s at ${count(Math.round(median(reports.map((r) => r.samplesPerSecond))))} samples/s`,
    );
  if (reports.length > 0)
    out.line(
      `host↔device per update (median): ${num(median(reports.map((r) => (r.uploadBytes + r.downloadBytes) / 2 ** 20)), 3)} MiB in ${count(median(reports.map((r) => r.reads)))} reads, ${num(median(reports.map((r) => r.transferSeconds)), 3)} s (reads include waiting for the device)`,
    );
  out.line();
  if (result.evaluation !== undefined)
    printEvaluation(out, result.evaluation, 'POLICY', verdictContext);
  out.line(`model: ${resolve(dir, RUN_FILES.model)}`);
  if (report !== undefined) out.line(`report: ${report}`);
  return undefined;
}

/**
 * The flags a resume was given, each with the run's value (its default where the run was started
 * without it) and the asked one; only --steps is left out, as it may extend the run.
 */
function resumeFlags(
  options: CommandContext['options'],
  previous: RunManifest,
  ppoFlags: readonly [string, keyof PpoConfig, unknown][],
  envFlags: readonly [string, keyof RunEnvOptions, unknown, unknown][],
  asked: { train: BarRange; test: BarRange | undefined },
  askedEncoder: string | undefined,
): ResumeFlag[] {
  const given = (flag: string): boolean => options[flag] !== undefined;
  const number = (flag: string): number | undefined => intOption(options, flag, 0);
  const flags: ResumeFlag[] = ppoFlags
    .filter(([, , value]) => value !== undefined)
    .map(([flag, key, value]) => ({ flag: `--${flag}`, run: previous.ppo[key], asked: value }));
  for (const [flag, key, value, runDefault] of envFlags)
    if (value !== undefined)
      flags.push({ flag: `--${flag}`, run: previous.env[key] ?? runDefault, asked: value });
  if (given('checkpoint-every'))
    flags.push({
      flag: '--checkpoint-every',
      run: previous.checkpointEvery,
      asked: number('checkpoint-every'),
    });
  if (given('train'))
    flags.push({ flag: '--train', run: previous.ranges.train.bars, asked: asked.train });
  if (given('test'))
    flags.push({ flag: '--test', run: previous.ranges.test?.bars, asked: asked.test });
  if (options['no-test'] === true)
    flags.push({ flag: '--no-test', run: previous.ranges.test === null, asked: true });
  if (typeof options.policy === 'string' && options.policy.startsWith('tcn:'))
    flags.push({ flag: '--policy', run: previous.data.encoder?.run, asked: askedEncoder });
  return flags;
}

/**
 * Where a resume goes on from after a stop: the last checkpoint, not the update the stop came
 * after (checkpoints are where the envs restart, so the resumed run matches one that never
 * stopped). Undefined when the stop came right after a checkpoint.
 */
function resumePoint(
  updatesDone: number,
  { checkpointUpdate, checkpointEvery }: { checkpointUpdate: number; checkpointEvery: number },
): string | undefined {
  if (checkpointUpdate === updatesDone) return undefined;
  const redo =
    updatesDone === checkpointUpdate + 1
      ? `update ${updatesDone}`
      : `updates ${checkpointUpdate + 1}-${updatesDone}`;
  const from =
    checkpointUpdate === 0
      ? 'the run stopped before its first checkpoint: --resume starts it from the beginning'
      : `--resume goes on from the checkpoint of update ${checkpointUpdate}`;
  return `${from} and runs ${redo} again (a checkpoint every ${count(checkpointEvery)} updates, --checkpoint-every)`;
}

/**
 * A write that failed in a run under way (a full disk): the run keeps its last checkpoint (a
 * checkpoint is written beside the old one and swapped in), so the error says so, how much room
 * the disk has, and how to go on once there is more.
 */
function keptCheckpoint(error: unknown, dir: string, resumeCommand: string): unknown {
  if (!isTradelabError(error, 'FILE_ACCESS') || !existsSync(join(dir, MANIFEST_FILE))) return error;
  const disk = statfsSync(dir);
  const room = ` (${formatBytes(disk.bavail * disk.bsize)} free on that disk)`;
  const full = ['ENOSPC', 'EDQUOT'].includes(String(error.details?.code));
  return new TradelabError(
    'FILE_ACCESS',
    `${error.message}${room}; what the run wrote before is kept`,
    {
      hint: `${full ? 'free some space on that disk' : (error.hint ?? 'fix that path')}, then continue with: ${resumeCommand}`,
      cause: error,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  );
}

/**
 * Refuses a run whose networks and rollout do not fit this machine's memory (the planner's
 * arithmetic, as for a study's trials) before anything of that size is allocated: `--net-dim 1e12`
 * is a plan that does not fit, not a failed allocation.
 */
async function refuseTooLarge(
  project: Project,
  data: MarketData,
  ppo: Partial<PpoConfig>,
  lookback: number,
): Promise<void> {
  const { choice, backend, memory, safetyFactor } = await machineBudget(project);
  const assets = data.symbols.length;
  const features = data.featureNames.length;
  const shortfall = memoryShortfall(
    { budget: { profile: choice.profile, backend, memory, safetyFactor } },
    1,
    {
      ppo: resolvePpoConfig(ppo),
      // The env's largest observation: cash, holdings, position weights, time, the window.
      obsDim: 2 + 2 * assets + assets * features * lookback,
      assets,
      features,
      bars: data.timestamps.length,
      lookback,
    },
    { fusedAttention: nativeTransformerKernelsActive() },
  );
  if (shortfall !== undefined)
    throw new TradelabError('PLAN_DOES_NOT_FIT', `this run does not fit here: ${shortfall}`, {
      hint: 'use a smaller --net-dim, --batch-size or --envs (`tradelab profiles plan --net-dim N --batch-size N` shows the arithmetic)',
    });
}

/** Whether `--steps` asks a finished run for more updates than it ran. */
function extendsRun(manifest: RunManifest, steps: number | undefined): boolean {
  return (
    steps !== undefined &&
    Math.ceil(steps / manifest.ppo.targetStep) > manifest.progress.updatesDone
  );
}

/**
 * Marks a run that is quitting at once as interrupted, as a stop after an update does, so that
 * `--resume` continues it from its last checkpoint. Synchronous: the process exits right after.
 */
function markInterrupted(dir: string, out: CommandContext['out']): void {
  // No manifest yet (it is written when training starts): nothing to resume, nothing to mark.
  if (!existsSync(join(dir, MANIFEST_FILE))) return;
  try {
    const manifest = readRunManifest(dir);
    if (manifest.status !== 'running') return;
    manifest.status = 'interrupted';
    writeRunManifest(dir, manifest);
  } catch (error) {
    out.note(`could not mark the run interrupted: ${(error as Error).message}`);
  }
}

/** --train and --test; by default the first 80% of bars train and the rest test. */
function ranges(
  options: CommandContext['options'],
  timestamps: Float64Array,
  lookback: number,
): { train: BarRange; test: BarRange | undefined } {
  const bars = timestamps.length;
  const split = Math.floor(bars * 0.8);
  const train =
    typeof options.train === 'string'
      ? parseBarRange(options.train, timestamps, '--train')
      : ([Math.min(lookback - 1, split), split] as const);
  // An observation reads the lookback's bars up to its own: the first step is at lookback − 1.
  if (train[1] - Math.max(train[0], lookback - 1) < 2)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--lookback ${count(lookback)} leaves no bars to train on: an observation reads the ${count(lookback)} bars up to its own, so training starts at bar ${count(lookback - 1)} at the earliest, and the training range ends at bar ${count(train[1])} (of ${count(bars)})`,
      {
        hint: `use a --lookback well below ${count(train[1])} (a few to a few dozen bars), or ${typeof options.train === 'string' ? 'a --train range that ends later' : 'more data'}`,
      },
    );
  let test: BarRange | undefined;
  if (typeof options.test === 'string') test = parseBarRange(options.test, timestamps, '--test');
  else if (options['no-test'] !== true && bars - train[1] >= 2) test = [train[1], bars];
  return { train, test };
}

/**
 * The native GEMM threads of a run: --threads (default all cores), or a resumed run's own. Another
 * count rounds differently, so a resume keeps the run's; a --threads that differs is refused.
 */
function runThreads(raw: string | boolean | undefined, recorded: number | undefined): number {
  const asked = threadsOption(raw);
  const count = asked === 'all' ? availableParallelism() : asked;
  if (recorded === undefined || raw === undefined) return recorded ?? count;
  if (count !== recorded)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--threads ${String(raw)}${asked === 'all' ? ` (${count})` : ''} differs from the run's ${recorded}: the resumed run would round differently from one that never stopped`,
      {
        hint: `leave --threads out to use the run's ${recorded}, or start a new run with another --out`,
      },
    );
  return count;
}

/** --threads N|all: threads of the native GEMM; a single training run uses every core. */
export function threadsOption(raw: string | boolean | undefined): number | 'all' {
  if (raw === undefined || raw === 'all') return 'all';
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--threads: ${JSON.stringify(raw)} is not allowed: expected a whole number >= 1 or all`,
      { hint: 'e.g. --threads 1 (several runs side by side) or --threads all (the default)' },
    );
  return value;
}
