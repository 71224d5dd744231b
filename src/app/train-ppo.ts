import { existsSync, statfsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type {
  PolicyNetwork,
  PpoConfig,
  PpoRunResult,
  PpoTrainer,
  PpoUpdateReport,
  RunEnvOptions,
  RunManifest,
  TcnEncoderInfo,
} from '../agents/index.js';
import type { ActiveBackend } from '../compute/index.js';
// The manifest's file alone: agents/index.js brings TensorFlow.js, loaded only to train.
import { MANIFEST_FILE, readRunManifest, writeRunManifest } from '../agents/run-manifest.js';
import { isTradelabError, TradelabError } from '../core/index.js';
import {
  digestMarketData,
  loadMarketData,
  openDatasetStore,
  parseBarRange,
  parseDatasetKeys,
  type BarRange,
  type MarketData,
} from '../data/index.js';
import type { ActionScaling, ExecutionPrice } from '../env/index.js';
import type { RangeEvaluation, VerdictContext } from '../eval/index.js';
import { formatBytes } from '../profiles/index.js';
import type { Project } from './open-project.js';
import { machineBudget } from './plan-here.js';
import { startBackend } from './start-backend.js';
import { refuseChangedResumeFlags, runDataSpec, type ResumeFlag } from './resume-changes.js';
import { tradelabVersion } from './version.js';

/*
 * Training one PPO agent on a dataset: the use case `tradelab train ppo`, a service job and the
 * public API share, with its defaults and guards in one place — the 80/20 ranges, the threads
 * (all cores; a resumed run its own), PPO's defaults (resolvePpoConfig's), the resume rules (a run
 * resumes with its own settings; a setting asked otherwise is refused, --steps may extend it),
 * the planner's check that the networks fit, and a checkpoint kept when a write fails.
 */

/** What a training run is asked. Unset fields take the defaults (a resumed run: its own). */
export interface TrainPpoOptions {
  /** The run directory; relative to the project root. */
  out: string;
  /** `SYM[,SYM]:TF`; a resumed run's own when unset. */
  data?: string | undefined;
  /** Continue the run in `out` from its last checkpoint. */
  resume?: boolean | undefined;
  /** Native GEMM threads: default every core; a resumed run keeps its own. */
  threads?: number | 'all' | undefined;
  /** The actor's network, or a pretrained TCN's run directory whose encodings it reads. */
  policy?: PolicyNetwork | { tcnRun: string } | undefined;
  /** PPO settings asked (breakStep is `--steps`). */
  ppo?: { [K in Exclude<keyof PpoConfig, 'policy'>]?: PpoConfig[K] | undefined } | undefined;
  /** Env settings asked; `buyFeeBps` is both sides' fee. */
  env?: {
    lookback?: number | undefined;
    buyFeeBps?: number | undefined;
    episodeLength?: number | undefined;
    reward?: 'value-change' | 'excess' | undefined;
    turnoverPenalty?: number | undefined;
    actionScaling?: ActionScaling | undefined;
    noTradeBand?: number | undefined;
    executionPrice?: ExecutionPrice | undefined;
  };
  /** Bar ranges as `START:END` (dates or bar numbers); default the first 80% and the rest. */
  train?: string | undefined;
  /** A test range, or false for none. */
  test?: string | false | undefined;
  /** Updates between checkpoints (default 10). */
  checkpointEvery?: number | undefined;
  /** The command line recorded in the manifest. */
  command?: string[] | undefined;
}

/** What the run starts with, before its first update. */
export interface TrainPpoStart {
  dir: string;
  resuming: boolean;
  data: MarketData;
  train: BarRange;
  test: BarRange | undefined;
  backend: ActiveBackend;
  threads: number;
  /** The run's policy network (a resumed run's own). */
  policy: PolicyNetwork | undefined;
  encoder: TcnEncoderInfo | undefined;
}

/** What a run tells as it goes. */
export interface TrainPpoEvents {
  /** A note for the user (resuming with the run's threads, the encoder read). */
  onNote?: (text: string) => void;
  onStart?: (start: TrainPpoStart) => void | Promise<void>;
  onUpdate?: (report: PpoUpdateReport, trainer: PpoTrainer) => void;
  onWarning?: (message: string) => void;
  /** Checked after every update; true stops the run (checkpointed, resumable). */
  shouldStop?: () => boolean;
}

/** How a run ended. */
export type TrainPpoOutcome =
  | { kind: 'nothing-left'; dir: string; manifest: RunManifest }
  | {
      kind: 'stopped';
      dir: string;
      result: PpoRunResult;
      /** Where a resume goes on from, when it is not the update the stop came after. */
      resumePoint: string | undefined;
    }
  | {
      kind: 'finished';
      dir: string;
      result: PpoRunResult;
      evaluation: RangeEvaluation | undefined;
      verdictContext: VerdictContext;
    };

/** The settings asked, each with its `--flag` name, as a resume compares them with the run's. */
const PPO_FLAGS: readonly [keyof PpoConfig, string][] = [
  ['nEnvs', 'envs'],
  ['policy', 'policy'],
  ['netDim', 'net-dim'],
  ['layers', 'layers'],
  ['batchSize', 'batch-size'],
  ['targetStep', 'target-step'],
  ['repeatTimes', 'repeat-times'],
  ['learningRate', 'lr'],
  ['gamma', 'gamma'],
  ['lambdaGae', 'lambda-gae'],
  ['ratioClip', 'ratio-clip'],
  ['lambdaEntropy', 'entropy'],
  ['normalizeRewards', 'no-reward-scaling'],
  ['seed', 'seed'],
];

/** Env settings with their `--flag` and what a run started without it ran with (env-config.ts). */
const ENV_FLAGS: readonly [keyof RunEnvOptions, string, unknown][] = [
  ['lookback', 'lookback', 1],
  ['buyFeeBps', 'fee-bps', 10],
  ['episodeLength', 'episode-length', undefined],
  ['reward', 'reward', 'value-change'],
  ['turnoverPenalty', 'turnover-penalty', 0],
  ['actionScaling', 'action-scaling', 'fraction'],
  ['noTradeBand', 'rebalance-band', 0],
  ['executionPrice', 'execution-price', 'close'],
];

/** The resume command of run `out`, for messages. */
export function resumeCommandOf(out: string): string {
  return `tradelab train ppo --out ${/^[\w./-]+$/.test(out) ? out : `'${out.replace(/'/g, "'\\''")}'`} --resume`;
}

/** Trains (or resumes) a PPO run as `options` ask. */
export async function trainPpo(
  project: Project,
  options: TrainPpoOptions,
  events: TrainPpoEvents = {},
): Promise<TrainPpoOutcome> {
  // Loaded here: agents/ brings TensorFlow.js, which opening a project does not need.
  const agents = await import('../agents/index.js');
  const { memoryShortfall } = await import('../trading/index.js');
  const { nativeTransformerKernelsActive } = await import('../compute/index.js');
  const root = project.config.projectRoot;
  const dir = resolve(root, options.out);
  const resume = options.resume === true;
  const previous = resume ? readRunManifest(dir) : undefined;
  const spec = runDataSpec('train ppo', previous?.data.spec, options.data, 'BTCUSDT,ETHUSDT:1h');

  const threads = runThreads(options.threads, previous?.backend.threads);
  if (previous?.backend.threads !== undefined && options.threads === undefined)
    events.onNote?.(`resuming with the run's --threads ${threads}`);
  const backend = await startBackend(project, { nativeThreads: threads });
  const askedEncoder =
    typeof options.policy === 'object' ? resolve(root, options.policy.tcnRun) : undefined;
  const encoderRun = previous?.data.encoder?.run ?? askedEncoder;
  const loaded = await loadMarketData(
    openDatasetStore(project.config.settings.dataDir),
    parseDatasetKeys(spec),
  );
  // A resumed run's encoder is its own: withRecordedEncoder refuses one whose weights changed.
  const withEncoder =
    encoderRun === undefined
      ? undefined
      : previous?.data.encoder === undefined
        ? agents.withTcnEncoder(loaded, encoderRun)
        : {
            data: agents.withRecordedEncoder(loaded, previous.data.encoder),
            encoder: previous.data.encoder,
          };
  const data = withEncoder?.data ?? loaded;
  if (withEncoder !== undefined)
    events.onNote?.(
      `policy: an MLP over the features and a frozen TCN encoder (${withEncoder.encoder.run}: ${withEncoder.encoder.hidden} encodings an asset over ${withEncoder.encoder.chunkLen}-bar chunks, ${withEncoder.encoder.method})`,
    );
  const lookback = options.env?.lookback ?? 1;
  const { train, test } = ranges(options, data.timestamps, lookback);

  const ppo: Partial<PpoConfig> = {};
  for (const [key, value] of Object.entries(options.ppo ?? {}))
    if (value !== undefined) Object.assign(ppo, { [key]: value });
  if (typeof options.policy === 'string') ppo.policy = options.policy;
  const env: RunEnvOptions = { lookback };
  for (const [key, value] of Object.entries(options.env ?? {}))
    if (value !== undefined) Object.assign(env, { [key]: value });
  if (env.buyFeeBps !== undefined) env.sellFeeBps = env.buyFeeBps; // one fee, both sides
  if (options.env?.noTradeBand !== undefined && env.actionScaling === 'units')
    throw new TradelabError(
      'INVALID_ARGUMENT',
      '--rebalance-band is a share of the portfolio, and --action-scaling units orders units',
      {
        hint: 'use --action-scaling fraction or target with a band, or leave --rebalance-band out',
      },
    );

  // A new run's defaults (its rollout of about 2,048 env steps among them) are resolvePpoConfig's;
  // a resumed run keeps its own.
  if (previous !== undefined)
    refuseChangedSettings(previous, options, ppo, { train, test }, askedEncoder);
  if (previous?.status === 'finished' && !extendsRun(previous, options.ppo?.breakStep))
    return { kind: 'nothing-left', dir, manifest: previous };

  if (previous === undefined) {
    // The planner's arithmetic before anything of that size is allocated: `--net-dim 1e12` is
    // a plan that does not fit, not a failed allocation.
    const { choice, backend: planned, memory, safetyFactor } = await machineBudget(project);
    const assets = data.symbols.length;
    const features = data.featureNames.length;
    const shortfall = memoryShortfall(
      { budget: { profile: choice.profile, backend: planned, memory, safetyFactor } },
      1,
      {
        ppo: agents.resolvePpoConfig(ppo),
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
    // Before anything is printed: a run there already, or an --out that cannot be made.
    agents.prepareRunDirectory(dir);
  }

  await events.onStart?.({
    dir,
    resuming: previous !== undefined,
    data,
    train: previous?.ranges.train.bars ?? train,
    test: previous === undefined ? test : (previous.ranges.test?.bars ?? undefined),
    backend,
    threads,
    policy: previous?.ppo.policy ?? ppo.policy,
    encoder: withEncoder?.encoder,
  });
  const resumeCommand = resumeCommandOf(options.out);
  let result: PpoRunResult;
  try {
    result = await agents.trainPpoRun({
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
      ...(options.checkpointEvery === undefined
        ? {}
        : { checkpointEvery: options.checkpointEvery }),
      backend: { name: backend.name, matmul: backend.matmul, threads },
      gpu: backend.gpu,
      tradelabVersion: tradelabVersion(),
      ...(options.command === undefined ? {} : { command: options.command }),
      ...(events.onUpdate === undefined ? {} : { onUpdate: events.onUpdate }),
      ...(events.onWarning === undefined ? {} : { onWarning: events.onWarning }),
      ...(events.shouldStop === undefined ? {} : { shouldStop: events.shouldStop }),
    });
  } catch (error) {
    throw keptCheckpoint(error, dir, resumeCommand);
  }
  if (result.stopped)
    return {
      kind: 'stopped',
      dir,
      result,
      resumePoint: resumePoint(result.manifest.progress.updatesDone, result),
    };
  return {
    kind: 'finished',
    dir,
    result,
    evaluation: result.evaluation,
    verdictContext: agents.trainingVerdictContext(result.reports),
  };
}

/**
 * Marks run `dir` that is quitting at once as interrupted, as a stop after an update does, so that
 * `--resume` continues it from its last checkpoint. Synchronous: the process exits right after.
 * Returns why it could not, if it could not.
 */
export function markRunInterrupted(dir: string): string | undefined {
  // No manifest yet (it is written when training starts): nothing to resume, nothing to mark.
  if (!existsSync(join(dir, MANIFEST_FILE))) return undefined;
  try {
    const manifest = readRunManifest(dir);
    if (manifest.status !== 'running') return undefined;
    manifest.status = 'interrupted';
    writeRunManifest(dir, manifest);
    return undefined;
  } catch (error) {
    return `could not mark the run interrupted: ${(error as Error).message}`;
  }
}

/**
 * The settings a resume was asked, each with the run's value (its default where the run was
 * started without it): refused where they differ. Only `breakStep` (--steps) is left out, as it may
 * extend the run.
 */
function refuseChangedSettings(
  previous: RunManifest,
  options: TrainPpoOptions,
  ppo: Partial<PpoConfig>,
  asked: { train: BarRange; test: BarRange | undefined },
  askedEncoder: string | undefined,
): void {
  const flags: ResumeFlag[] = [];
  for (const [key, flag] of PPO_FLAGS) {
    const value = ppo[key];
    if (value !== undefined && key !== 'breakStep')
      flags.push({ flag: `--${flag}`, run: previous.ppo[key], asked: value });
  }
  for (const [key, flag, runDefault] of ENV_FLAGS) {
    const value = options.env?.[key as keyof NonNullable<TrainPpoOptions['env']>];
    if (value !== undefined)
      flags.push({ flag: `--${flag}`, run: previous.env[key] ?? runDefault, asked: value });
  }
  if (options.checkpointEvery !== undefined)
    flags.push({
      flag: '--checkpoint-every',
      run: previous.checkpointEvery,
      asked: options.checkpointEvery,
    });
  if (options.train !== undefined)
    flags.push({ flag: '--train', run: previous.ranges.train.bars, asked: asked.train });
  if (typeof options.test === 'string')
    flags.push({ flag: '--test', run: previous.ranges.test?.bars, asked: asked.test });
  if (options.test === false)
    flags.push({ flag: '--no-test', run: previous.ranges.test === null, asked: true });
  if (askedEncoder !== undefined)
    flags.push({ flag: '--policy', run: previous.data.encoder?.run, asked: askedEncoder });
  refuseChangedResumeFlags(flags, '--steps');
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
  return `${from} and runs ${redo} again (a checkpoint every ${checkpointEvery.toLocaleString('en-US')} updates, --checkpoint-every)`;
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

/** Whether `breakStep` asks a finished run for more updates than it ran. */
function extendsRun(manifest: RunManifest, steps: number | undefined): boolean {
  return (
    steps !== undefined &&
    Math.ceil(steps / manifest.ppo.targetStep) > manifest.progress.updatesDone
  );
}

/** The train and test ranges: by default the first 80% of bars train and the rest test. */
function ranges(
  options: TrainPpoOptions,
  timestamps: Float64Array,
  lookback: number,
): { train: BarRange; test: BarRange | undefined } {
  const bars = timestamps.length;
  const split = Math.floor(bars * 0.8);
  const count = (n: number): string => n.toLocaleString('en-US');
  const train =
    options.train === undefined
      ? ([Math.min(lookback - 1, split), split] as const)
      : parseBarRange(options.train, timestamps, '--train');
  // An observation reads the lookback's bars up to its own: the first step is at lookback − 1.
  if (train[1] - Math.max(train[0], lookback - 1) < 2)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--lookback ${count(lookback)} leaves no bars to train on: an observation reads the ${count(lookback)} bars up to its own, so training starts at bar ${count(lookback - 1)} at the earliest, and the training range ends at bar ${count(train[1])} (of ${count(bars)})`,
      {
        hint: `use a --lookback well below ${count(train[1])} (a few to a few dozen bars), or ${options.train === undefined ? 'more data' : 'a --train range that ends later'}`,
      },
    );
  let test: BarRange | undefined;
  if (typeof options.test === 'string') test = parseBarRange(options.test, timestamps, '--test');
  else if (options.test !== false && bars - train[1] >= 2) test = [train[1], bars];
  return { train, test };
}

/**
 * The native GEMM threads of a run: `threads` (default all cores), or a resumed run's own. Another
 * count rounds differently, so a resume keeps the run's; a count that differs is refused.
 */
function runThreads(asked: number | 'all' | undefined, recorded: number | undefined): number {
  const count = asked === undefined || asked === 'all' ? availableParallelism() : asked;
  if (recorded === undefined || asked === undefined) return recorded ?? count;
  if (count !== recorded)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--threads ${String(asked)}${asked === 'all' ? ` (${count})` : ''} differs from the run's ${recorded}: the resumed run would round differently from one that never stopped`,
      {
        hint: `leave --threads out to use the run's ${recorded}, or start a new run with another --out`,
      },
    );
  return count;
}
