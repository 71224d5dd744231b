import { isTradelabError, TradelabError } from '../core/index.js';
import { errorText } from '../core/error-text.js';
import type { TrialRecord } from '../storage/records.js';
import { Heartbeater } from './heartbeat.js';
import { loadObjective } from './objective-module.js';
import type { Objective } from './objective.js';
import type { Study } from './study.js';
import { newWorkerId } from './worker-id.js';
import { TrialPruned, type Trial } from './trial.js';
import type { TrialProgressListener } from './trial-progress.js';
import { runWorkers } from './worker-pool.js';

/** Options of {@link optimize}. */
export interface OptimizeOptions {
  /** Trials to finish in this call (complete, pruned, or failed by the objective). Default: no limit. */
  nTrials?: number;
  /** Start no trial after this many ms. Default: no limit. */
  timeoutMs?: number;
  /** Stop starting trials when aborted (running ones finish). */
  signal?: AbortSignal;
  /** How often a running trial heartbeats. Default 10 s. */
  heartbeatIntervalMs?: number;
  /** A running trial whose heartbeat is older than this is failed and retried. Default 60 s. */
  heartbeatGraceMs?: number;
  /** Retries of a trial that failed for lack of heartbeat (not of objective errors). Default 2. */
  maxRetries?: number;
  /** Called after each trial ends. */
  onTrialEnd?: (trial: TrialRecord) => void;
  /** How far a running trial has got, as its objective says (`trial.progress()`). */
  onTrialProgress?: TrialProgressListener;
  workerId?: string;
  /**
   * Run the trials in this many worker processes (see runWorkers) instead of this process; the
   * objective must then be a module (path or built-in name), since a process cannot receive a
   * function.
   */
  workers?: number;
  /** With `workers`: trials each worker process runs at once (see runWorkers). Default 1. */
  trialsPerWorker?: number;
  /**
   * Settings for a module objective's `createObjective(setup)` (JSON: with `workers` they travel
   * in each worker's start message).
   */
  objectiveOptions?: Record<string, unknown>;
}

/** What {@link optimize} did. */
export interface OptimizeSummary {
  /** The trials it finished, in the order they ended. */
  trials: TrialRecord[];
  complete: number;
  pruned: number;
  failed: number;
  /** Trials it lost to another worker (failed as stale meanwhile and retried there). */
  lost: number;
  seconds: number;
}

/**
 * Runs trials of `study` in this process until `nTrials` are finished, the timeout passes, the
 * signal aborts or a grid sampler has tried every point. Other processes may work on the same study at once. Stale trials (of crashed
 * workers) are failed and re-enqueued on the way. With a database storage, heartbeats come from a
 * thread, so they go on while the objective blocks.
 */
export async function optimize(
  study: Study,
  objective: Objective | string,
  options: OptimizeOptions = {},
): Promise<OptimizeSummary> {
  if (options.workers !== undefined) {
    if (typeof objective !== 'string')
      throw new TradelabError(
        'INVALID_ARGUMENT',
        'worker processes need the objective as a module, not a function',
        { hint: 'pass the path of a module exporting `objective(trial)`, or leave workers out' },
      );
    const { workers, timeoutMs, nTrials, signal, onTrialEnd, onTrialProgress, objectiveOptions } =
      options;
    return runWorkers(study.storage, study.name, {
      workers,
      objective,
      ...(objectiveOptions === undefined ? {} : { objectiveOptions }),
      ...(nTrials === undefined ? {} : { nTrials }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(signal === undefined ? {} : { signal }),
      ...(onTrialEnd === undefined ? {} : { onTrialEnd }),
      ...(onTrialProgress === undefined ? {} : { onTrialProgress }),
      ...(options.heartbeatIntervalMs === undefined
        ? {}
        : { heartbeatIntervalMs: options.heartbeatIntervalMs }),
      ...(options.heartbeatGraceMs === undefined
        ? {}
        : { heartbeatGraceMs: options.heartbeatGraceMs }),
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      ...(options.trialsPerWorker === undefined
        ? {}
        : { trialsPerWorker: options.trialsPerWorker }),
    });
  }
  const run =
    typeof objective === 'string'
      ? await loadObjective(objective, { workers: 1, options: options.objectiveOptions ?? {} })
      : objective;
  const started = performance.now();
  const nTrials = options.nTrials ?? Infinity;
  const deadline = options.timeoutMs === undefined ? Infinity : started + options.timeoutMs;
  const interval = options.heartbeatIntervalMs ?? 10_000;
  const grace = options.heartbeatGraceMs ?? 60_000;
  const maxRetries = options.maxRetries ?? 2;
  const workerId = options.workerId ?? newWorkerId();
  const summary: OptimizeSummary = {
    trials: [],
    complete: 0,
    pruned: 0,
    failed: 0,
    lost: 0,
    seconds: 0,
  };
  // A storage of this process alone (memory:) has no one else to tell that a trial is alive.
  const connection = study.storage.connection();
  const heartbeater =
    connection === undefined ? undefined : await Heartbeater.start(connection, interval);
  let lastSweep = -Infinity;
  try {
    while (
      summary.trials.length < nTrials &&
      performance.now() < deadline &&
      options.signal?.aborted !== true
    ) {
      if (performance.now() - lastSweep >= interval) {
        await study.storage.failStale(study.id, grace, { maxRetries });
        lastSweep = performance.now();
      }
      if (await gridDone(study)) break;
      const trial = await study.ask(workerId, options.onTrialProgress);
      heartbeater?.beat(trial.id);
      const ended = await runTrial(study, trial, run);
      heartbeater?.stop(trial.id);
      if (ended === undefined) {
        summary.lost++;
        continue;
      }
      summary.trials.push(ended);
      if (ended.state === 'complete') summary.complete++;
      else if (ended.state === 'pruned') summary.pruned++;
      else summary.failed++;
      options.onTrialEnd?.(ended);
    }
  } finally {
    await heartbeater?.close();
  }
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/** Whether the study's sampler has a finite search space (grid) that its trials all hold. */
async function gridDone(study: Study): Promise<boolean> {
  const sampler = study.sampler;
  if (sampler.isExhausted === undefined) return false;
  return sampler.isExhausted(await study.trials());
}

/**
 * Runs the objective on one trial and ends it: complete with a finite value, pruned on
 * TrialPruned, fail on any other error or a non-finite value. Undefined when the trial was ended
 * elsewhere meanwhile (another worker found its heartbeat stale).
 */
export async function runTrial(
  study: Study,
  trial: Trial,
  objective: Objective,
): Promise<TrialRecord | undefined> {
  let result: number | 'pruned' | 'fail';
  let reason: string | undefined;
  try {
    const value = await objective(trial);
    if (typeof value === 'number' && Number.isFinite(value)) result = value;
    else {
      result = 'fail';
      reason = `the objective returned ${String(value)}, not a finite number`;
    }
  } catch (error) {
    // By name too: an objective module may import TrialPruned from another copy of tradelab.
    if (error instanceof TrialPruned || (error instanceof Error && error.name === 'TrialPruned'))
      result = 'pruned';
    else {
      result = 'fail';
      reason = errorText(error);
    }
  }
  try {
    return await study.tell(trial, result, reason);
  } catch (error) {
    if (isTradelabError(error, 'STORAGE_CONFLICT')) return undefined;
    throw error;
  }
}
