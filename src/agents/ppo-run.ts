import type { TcnEncoderInfo } from './tcn-encoder.js';
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { BarRange } from '../data/bar-range.js';
import { fitNormalizer, type Normalizer } from '../data/features/normalizer.js';
import type { MarketData } from '../data/load-market-data.js';
import { digestMarketData } from '../data/market-digest.js';
import { writeFileAtomic, makeDirectory } from '../core/index.js';
import { VectorTradingEnv } from '../env/trading-env.js';
import { equityCsv } from '../eval/equity-csv.js';
import { evaluate, type RangeEvaluation } from '../eval/evaluate.js';
import { TradelabError } from '../core/index.js';
import { loadPpoModel, savePpoModel } from './ppo-checkpoint.js';
import { resolvePpoConfig, resolveSavedPpoConfig, type PpoConfig } from './ppo-config.js';
import { PpoTrainer, type PpoUpdateReport } from './ppo.js';
import type { GpuDevice } from '../gpu/index.js';
import { writeRunReport } from './run-report.js';
import {
  describeMachine,
  evaluationEnvOptions,
  savedEnvOptions,
  MANIFEST_FILE,
  manifestRange,
  readRunManifest,
  RUN_FILES,
  writeRunManifest,
  type RunBackend,
  type RunEnvOptions,
  type RunManifest,
} from './run-manifest.js';

/*
 * A PPO training run in a directory: manifest.json, updates.jsonl (one report per update),
 * checkpoints/latest (networks + Adam + counters, every `checkpointEvery` updates and when
 * stopped), model/ (the final networks and normalizer) and, with a test range, the deterministic
 * policy's evaluation there: test-equity.csv beside buy-and-hold, and the metrics in the manifest.
 *
 * The envs are reset (new seeded starts) at every checkpoint boundary, so a run resumed from its
 * last checkpoint continues exactly as if it had never stopped.
 */

/**
 * Steps in a new run's training episodes (each from a random start in the training range) unless
 * its env options say otherwise. Run to the range's end (the env's own default), the 16 envs of a
 * 300,000-step run see about one episode each. On the README tour's data (planted signal 0.1,
 * 10 bps) 256-step episodes were ahead of buy-and-hold on 2 seeds of 3 against 1 of 3 (mean Sharpe
 * 0.73 against −0.26; docs/ppo.md); the presets and the learning check use 256 too.
 */
export const DEFAULT_EPISODE_LENGTH = 256;

/** What {@link trainPpoRun} needs. */
export interface PpoRunOptions {
  dir: string;
  data: MarketData;
  /** The `SYM[,SYM]:TF` the data was loaded from (for the manifest and `--resume`). */
  dataSpec: string;
  train: BarRange;
  test?: BarRange | undefined;
  ppo: Partial<PpoConfig>;
  env?: RunEnvOptions;
  /** Updates between checkpoints. Default 10. */
  checkpointEvery?: number;
  /** Continue the run in `dir` from its last checkpoint (the manifest's settings are used). */
  resume?: boolean;
  /** The backend this process computes on; a resume refuses one other than the run's. */
  backend: RunBackend;
  /** tradelab's GPU engine, when the backend is `gpu`: the updates run there. */
  gpu?: GpuDevice | undefined;
  tradelabVersion: string;
  command?: string[];
  onUpdate?: (report: PpoUpdateReport, trainer: PpoTrainer) => void;
  /** Told what the user should know but does not stop the run (an older checkpoint resumed). */
  onWarning?: (message: string) => void;
  /** Checked after every update; true stops the run (checkpointed, resumable). */
  shouldStop?: () => boolean;
  /** The pretrained TCN whose encodings `data` carries (withTcnEncoder), for the manifest. */
  encoder?: TcnEncoderInfo;
  /**
   * The digest of the market `data` was derived from (before an encoder's features); default
   * `data`'s own. Runs, studies and backtests compare this one.
   */
  marketDigest?: string;
}

/** What a run did. */
export interface PpoRunResult {
  manifest: RunManifest;
  /** Reports of the updates this call ran. */
  reports: PpoUpdateReport[];
  /** Stopped by `shouldStop` before breakStep. */
  stopped: boolean;
  evaluation: RangeEvaluation | undefined;
  normalizer: Normalizer;
  /** report.html, when the run finished. */
  reportPath?: string;
  /** The update of the run's last checkpoint (0: none yet), where `--resume` goes on from. */
  checkpointUpdate: number;
  /** Updates between checkpoints (the envs restart there, so a resume matches a straight run). */
  checkpointEvery: number;
}

function checkRanges(data: MarketData, train: BarRange, test: BarRange | undefined): void {
  if (test !== undefined && train[0] < test[1] && test[0] < train[1])
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `the test range (bars ${test[0]}..${test[1]}) overlaps the training range (bars ${train[0]}..${train[1]})`,
      {
        hint: 'evaluate on bars the policy never trained on: make --test start after --train ends',
      },
    );
  if (train[1] > data.timestamps.length)
    throw new TradelabError('INVALID_ARGUMENT', `the training range ends past the data`, {
      hint: `use bars below ${data.timestamps.length}`,
    });
}

/**
 * Makes a new run's directory, refusing one that already holds a run (RUN_EXISTS) or cannot be
 * made (FILE_ACCESS). Cheap: a command calls it before it loads data or prints a plan.
 */
export function prepareRunDirectory(dir: string): void {
  if (existsSync(join(dir, MANIFEST_FILE)))
    throw new TradelabError('RUN_EXISTS', `${dir} already holds a training run`, {
      hint: 'continue it with --resume, or choose another --out',
    });
  makeDirectory(dir);
}

/** Trains (or resumes) a PPO run in `options.dir`; see the file header. */
export async function trainPpoRun(options: PpoRunOptions): Promise<PpoRunResult> {
  const { dir, data } = options;
  const digest = options.marketDigest ?? digestMarketData(data);
  const previous = options.resume === true ? readRunManifest(dir) : undefined;
  if (previous === undefined) prepareRunDirectory(dir);
  if (previous !== undefined && previous.data.sha256 !== digest)
    throw new TradelabError(
      'DATA_MISMATCH',
      `the data of ${previous.data.spec} changed since the run started (digest ${previous.data.sha256.slice(0, 12)}…, now ${digest.slice(0, 12)}…)`,
      { hint: 'resume on the same datasets, or start a new run with another --out' },
    );
  if (previous !== undefined) checkResumeBackend(dir, previous.backend, options.backend);
  const train = previous?.ranges.train.bars ?? options.train;
  const test = previous === undefined ? options.test : (previous.ranges.test?.bars ?? undefined);
  checkRanges(data, train, test);
  const ppo =
    previous === undefined ? resolvePpoConfig(options.ppo) : resolveSavedPpoConfig(previous.ppo);
  if (previous !== undefined && options.ppo.breakStep !== undefined)
    ppo.breakStep = options.ppo.breakStep; // --steps may extend a resumed run
  const given: RunEnvOptions =
    previous === undefined
      ? { ...options.env, episodeLength: options.env?.episodeLength ?? DEFAULT_EPISODE_LENGTH }
      : savedEnvOptions(previous.env);
  const checkpointEvery = previous?.checkpointEvery ?? options.checkpointEvery ?? 10;
  if (!Number.isSafeInteger(checkpointEvery) || checkpointEvery < 1)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `checkpointEvery must be a whole number ≥ 1, got ${checkpointEvery}`,
      {
        hint: 'e.g. --checkpoint-every 10',
      },
    );
  const features = data.featureNames.length;
  const normalizer = fitNormalizer(data.techArray, { assets: data.symbols.length, features }, [
    train,
  ]);
  const env = new VectorTradingEnv(data, normalizer, {
    ...given,
    nEnvs: ppo.nEnvs,
    ranges: [train],
    seed: ppo.seed,
  });
  // The fills are recorded as resolved, so a later default never changes what the run meant.
  const envOptions: RunEnvOptions = { ...given, executionPrice: env.options.executionPrice };

  makeDirectory(dir);
  const checkpointDir = join(dir, RUN_FILES.checkpoint);
  let trainer: PpoTrainer;
  let seconds = previous?.progress.seconds ?? 0;
  const resumeFrom = previous === undefined ? undefined : findCheckpoint(checkpointDir);
  if (resumeFrom !== undefined) {
    const loaded = await loadPpoModel(resumeFrom);
    if (loaded.optimizer === undefined || loaded.training === undefined)
      throw new TradelabError('MODEL_INVALID', `${resumeFrom} has no optimizer state`, {
        hint: 'the checkpoint is damaged; start a new run with another --out',
      });
    for (const warning of loaded.warnings) options.onWarning?.(warning);
    trainer = new PpoTrainer(env, ppo, {
      resetEvery: checkpointEvery,
      resume: { nets: loaded.nets, optimizer: loaded.optimizer, ...loaded.training },
      ...(options.gpu === undefined ? {} : { gpu: options.gpu }),
    });
    keepUpdatesUpTo(join(dir, RUN_FILES.updates), loaded.training.updatesDone);
  } else {
    trainer = new PpoTrainer(env, ppo, {
      resetEvery: checkpointEvery,
      ...(options.gpu === undefined ? {} : { gpu: options.gpu }),
    });
    writeFileAtomic(join(dir, RUN_FILES.updates), '');
  }

  const manifest: RunManifest = previous ?? {
    format: 'tradelab-run',
    version: 1,
    agent: 'ppo',
    status: 'running',
    createdAt: new Date().toISOString(),
    updatedAt: '',
    tradelab: options.tradelabVersion,
    command: options.command ?? [],
    data: {
      spec: options.dataSpec,
      symbols: data.symbols,
      timeframe: data.timeframe,
      bars: data.timestamps.length,
      featureNames: data.featureNames,
      sha256: digest,
      ...(options.encoder === undefined ? {} : { encoder: options.encoder }),
    },
    ranges: {
      train: manifestRange(train, data.timestamps),
      test: test === undefined ? null : manifestRange(test, data.timestamps),
    },
    ppo,
    env: envOptions,
    checkpointEvery,
    backend: options.backend,
    machine: describeMachine(),
    progress: { updatesDone: 0, totalUpdates: 0, envSteps: 0, seconds: 0 },
    evaluation: null,
  };
  manifest.status = 'running';
  manifest.backend = options.backend;
  manifest.machine = describeMachine();
  manifest.ppo = ppo;
  manifest.env = envOptions;
  const progress = (): void => {
    manifest.progress = {
      updatesDone: trainer.updatesDone,
      totalUpdates: trainer.totalUpdates,
      envSteps: trainer.envSteps,
      seconds,
    };
  };
  progress();
  writeRunManifest(dir, manifest);

  const meta = {
    data: manifest.data,
    env: envOptions,
    train: manifest.ranges.train,
  };
  let checkpointUpdate = trainer.updatesDone;
  const checkpoint = async (): Promise<void> => {
    await trainer.syncOptimizer();
    await savePpoModel(checkpointDir, trainer.nets, {
      ppo,
      normalizer,
      meta,
      checkpoint: {
        optimizer: trainer.optimizer,
        counters: trainer.trainingCounters(),
      },
    });
    checkpointUpdate = trainer.updatesDone;
    progress();
    writeRunManifest(dir, manifest);
  };

  const reports: PpoUpdateReport[] = [];
  let stopped = false;
  try {
    while (!trainer.finished) {
      const report = await trainer.update();
      seconds += report.rolloutSeconds + report.updateSeconds;
      reports.push(report);
      appendFileSync(join(dir, RUN_FILES.updates), `${JSON.stringify(report)}\n`);
      options.onUpdate?.(report, trainer);
      if (trainer.updatesDone % checkpointEvery === 0) await checkpoint();
      // Let signals (Ctrl-C) and other events through between updates.
      await new Promise((resolve) => setImmediate(resolve));
      if (trainer.updatesDone < trainer.totalUpdates && options.shouldStop?.() === true) {
        stopped = true;
        break;
      }
    }
    if (stopped) {
      // Resuming restarts from the last checkpoint boundary, so updates since then are redone.
      manifest.status = 'interrupted';
      progress();
      writeRunManifest(dir, manifest);
      return {
        manifest,
        reports,
        stopped,
        evaluation: undefined,
        normalizer,
        checkpointUpdate,
        checkpointEvery,
      };
    }
    if (trainer.updatesDone % checkpointEvery !== 0) await checkpoint();
    await savePpoModel(join(dir, RUN_FILES.model), trainer.nets, { ppo, normalizer, meta });
    let evaluation: RangeEvaluation | undefined;
    if (test !== undefined) {
      [evaluation] = await evaluate(
        data,
        normalizer,
        trainer.policy(),
        [test],
        evaluationEnvOptions(envOptions),
      );
      if (evaluation !== undefined) {
        writeFileAtomic(join(dir, RUN_FILES.testEquity), equityCsv(evaluation, data.timestamps));
        manifest.evaluation = {
          range: manifestRange(test, data.timestamps),
          metrics: evaluation.metrics,
          benchmarkMetrics: evaluation.benchmarkMetrics,
          fees: evaluation.fees,
          ended: evaluation.ended,
        };
      }
    }
    manifest.status = 'finished';
    progress();
    writeRunManifest(dir, manifest);
    const reportPath = writeRunReport(
      dir,
      manifest,
      readRunUpdates(dir),
      evaluation,
      data.timestamps,
    );
    return {
      manifest,
      reports,
      stopped,
      evaluation,
      normalizer,
      reportPath,
      checkpointUpdate,
      checkpointEvery,
    };
  } finally {
    trainer.dispose();
  }
}

/**
 * A resumed run continues exactly only on the backend, matmul kernels and threads it ran on: another
 * GEMM or thread count rounds differently, and the run would end with other weights than one that
 * never stopped. So a resume on anything else is refused rather than silently inexact.
 */
function checkResumeBackend(dir: string, run: RunBackend, now: RunBackend): void {
  const describe = (b: RunBackend): string =>
    `${b.name} (${b.matmul}${b.threads === undefined ? '' : `; --threads ${b.threads}`})`;
  const differs =
    run.name !== now.name ||
    run.matmul !== now.matmul ||
    (run.threads !== undefined && run.threads !== now.threads);
  if (differs)
    throw new TradelabError(
      'BACKEND_UNAVAILABLE',
      `${dir} was trained on ${describe(run)}; this resume would run on ${describe(now)}, and would not continue the run exactly`,
      {
        hint: `resume where the run started, on its backend (--backend ${run.name}, and TRADELAB_MATMUL if it was set)${run.threads === undefined ? '' : ` with --threads ${run.threads}`}, or start a new run with another --out`,
      },
    );
}

/**
 * The checkpoint to resume from: `latest`, or, when a kill fell between the two renames that
 * replace it (the old one aside, the new one in), the most advanced complete copy beside it —
 * `latest.old-…`, or `latest.tmp-…` once its model.json, written last, is there. Undefined when
 * the run never reached a checkpoint. Whichever it is, loading it checks its checksums.
 */
function findCheckpoint(checkpointDir: string): string | undefined {
  if (existsSync(join(checkpointDir, 'model.json'))) return checkpointDir;
  const parent = dirname(checkpointDir);
  if (!existsSync(parent)) return undefined;
  const name = basename(checkpointDir);
  let best: { dir: string; updates: number } | undefined;
  for (const entry of readdirSync(parent)) {
    if (!entry.startsWith(`${name}.tmp-`) && !entry.startsWith(`${name}.old-`)) continue;
    const json = join(parent, entry, 'model.json');
    if (!existsSync(json)) continue;
    let updates: unknown;
    try {
      updates = (JSON.parse(readFileSync(json, 'utf8')) as { training?: { updatesDone?: unknown } })
        .training?.updatesDone;
    } catch {
      continue; // not a complete checkpoint: skipped like a missing one
    }
    if (typeof updates === 'number' && (best === undefined || updates > best.updates))
      best = { dir: join(parent, entry), updates };
  }
  return best?.dir;
}

/** Drops report rows past `updatesDone` (they are redone after a resume). */
function keepUpdatesUpTo(path: string, updatesDone: number): void {
  if (!existsSync(path)) return;
  const kept = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => {
      try {
        return (JSON.parse(line) as { update: number }).update <= updatesDone;
      } catch {
        return false;
      }
    });
  writeFileAtomic(path, kept.map((line) => `${line}\n`).join(''));
}

/** The update reports a run directory holds. */
export function readRunUpdates(dir: string): PpoUpdateReport[] {
  const path = join(dir, RUN_FILES.updates);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as PpoUpdateReport);
}
