import { fork, type ChildProcess } from 'node:child_process';
import { ERROR_CODES, TradelabError, type ErrorCode } from '../core/index.js';
import type { OpenStorageOptions } from '../storage/open-storage.js';
import type { TrialRecord } from '../storage/records.js';
import type { StudyStorage } from '../storage/study-storage.js';
import { compiledPath } from '../core/compiled-path.js';
import { resolveObjective } from './objective-module.js';
import { newWorkerId } from './worker-id.js';
import { storedComponents } from './study-components.js';
import type { TrialProgressListener } from './trial-progress.js';
import type { ParentMessage, WorkerConfig, WorkerMessage } from './worker-protocol.js';

/** Options of {@link runWorkers}. */
export interface WorkerPoolOptions {
  /** Worker processes. */
  workers: number;
  /**
   * The objective module each worker loads: its path, or a name registered in this process
   * (resolved here: a worker knows only the engine's own names).
   */
  objective: string;
  /** Settings for the module's `createObjective(setup)`, sent to each worker (JSON). */
  objectiveOptions?: Record<string, unknown>;
  /** Trials to finish (complete, pruned, or failed by the objective). Default: no limit. */
  nTrials?: number;
  /** Start no trial after this many ms. */
  timeoutMs?: number;
  /** First abort: start no more trials, let running ones finish. Second: stop them too. */
  signal?: AbortSignal;
  /** Aborting this stops running trials at once (they end `fail`, "interrupted", and are retried). */
  killSignal?: AbortSignal;
  storageOptions?: OpenStorageOptions;
  heartbeatIntervalMs?: number;
  heartbeatGraceMs?: number;
  /** Retries of a trial whose worker died or was interrupted. Default 2. */
  maxRetries?: number;
  onTrialStart?: (trial: { number: number; pid: number }) => void;
  /** How far a running trial has got, as its objective says (`trial.progress()`). */
  onTrialProgress?: TrialProgressListener;
  onTrialEnd?: (trial: TrialRecord) => void;
}

/** What {@link runWorkers} did. */
export interface WorkerPoolSummary {
  trials: TrialRecord[];
  complete: number;
  pruned: number;
  failed: number;
  /** Trials lost with a worker (failed and, within the retry limit, re-enqueued). */
  lost: number;
  /** Worker processes started, replacements included. */
  started: number;
  seconds: number;
}

interface WorkerState {
  child: ChildProcess;
  id: string;
  /** The trial it runs (started, not ended), if any. */
  trialId: number | null;
  /** Trials it finished: a worker that dies having finished none counts toward giving up. */
  finished: number;
}

/** Workers in a row that die before finishing a trial before the run gives up. */
const MAX_EARLY_DEATHS = 3;

/**
 * Runs a study's trials in `workers` child processes that share only the storage. The parent
 * hands out one ticket per trial, so no more than `nTrials` finish; a worker that dies costs its
 * current trial, which is failed at once (reason: how it exited) and retried, and is replaced
 * while trials remain. A dead machine's trials are caught by the heartbeat grace period instead.
 */
export async function runWorkers(
  storage: StudyStorage,
  studyName: string,
  options: WorkerPoolOptions,
): Promise<WorkerPoolSummary> {
  const startedAt = performance.now();
  const connection = storage.connection();
  if (connection === undefined)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `worker processes cannot share the storage ${storage.url}: it lives in this process`,
      { hint: 'use sqlite:FILE or postgres://…, or run the trials in this process' },
    );
  // Resolved once, here: a name registered in this process (an application's objective, such as
  // `drl`) means nothing in a fresh worker, and an unknown one fails before any worker starts.
  const objective = resolveObjective(options.objective);
  const study = await storage.getStudy(studyName);
  const nTrials = options.nTrials ?? Infinity;
  const deadline = options.timeoutMs === undefined ? Infinity : startedAt + options.timeoutMs;
  const maxRetries = options.maxRetries ?? 2;
  const grace = options.heartbeatGraceMs ?? 60_000;
  await storage.failStale(study.id, grace, { maxRetries });
  const summary: WorkerPoolSummary = {
    trials: [],
    complete: 0,
    pruned: 0,
    failed: 0,
    lost: 0,
    started: 0,
    seconds: 0,
  };
  const workers = new Set<WorkerState>();
  let inFlight = 0;
  let earlyDeaths = 0;
  let fatal: TradelabError | undefined;

  const sampler = storedComponents(study.name, study.systemAttrs).sampler;
  const grid =
    sampler.isExhausted === undefined
      ? undefined
      : { isExhausted: sampler.isExhausted.bind(sampler) };
  let exhausted = false;
  const canStart = (): boolean =>
    !exhausted &&
    fatal === undefined &&
    options.signal?.aborted !== true &&
    options.killSignal?.aborted !== true &&
    performance.now() < deadline &&
    summary.trials.length + inFlight < nTrials;

  return new Promise<WorkerPoolSummary>((resolve, reject) => {
    const finishIfDone = (): void => {
      if (workers.size > 0) return;
      summary.seconds = (performance.now() - startedAt) / 1000;
      if (fatal !== undefined) reject(fatal);
      else resolve(summary);
    };

    const tell = (worker: WorkerState, message: ParentMessage): void => {
      if (worker.child.connected) worker.child.send(message);
    };

    const onMessage = (worker: WorkerState, message: WorkerMessage): void => {
      switch (message.type) {
        case 'want':
          if (!canStart()) {
            tell(worker, { type: 'stop' });
            return;
          }
          inFlight++;
          worker.trialId = -1; // ticket granted, trial not yet claimed
          if (grid === undefined) tell(worker, { type: 'go' });
          else
            // A grid sampler stops the run once the study's trials hold every point.
            void storage.getTrials(study.id).then(
              (trials) => {
                if (!grid.isExhausted(trials)) {
                  tell(worker, { type: 'go' });
                  return;
                }
                exhausted = true;
                inFlight--;
                worker.trialId = null;
                tell(worker, { type: 'stop' });
              },
              (error: unknown) => {
                fatal ??= new TradelabError('INTERNAL', `reading the study: ${String(error)}`, {
                  cause: error,
                });
                tell(worker, { type: 'stop' });
              },
            );
          return;
        case 'started':
          worker.trialId = message.trialId;
          options.onTrialStart?.({ number: message.number, pid: worker.child.pid ?? 0 });
          return;
        case 'progress':
          // A late message of a trial this worker no longer runs would show a stale figure.
          if (worker.trialId === message.trialId)
            options.onTrialProgress?.({
              number: message.number,
              fraction: message.fraction,
              detail: message.detail,
            });
          return;
        case 'ended': {
          inFlight--;
          worker.trialId = null;
          worker.finished++;
          earlyDeaths = 0;
          const trial = message.trial;
          summary.trials.push(trial);
          if (trial.state === 'complete') summary.complete++;
          else if (trial.state === 'pruned') summary.pruned++;
          else summary.failed++;
          options.onTrialEnd?.(trial);
          return;
        }
        case 'lost':
          inFlight--;
          worker.trialId = null;
          summary.lost++;
          return;
        case 'error':
          // The worker's own error (its code, so a usage error stays one), once for the run.
          fatal ??= new TradelabError(
            message.code !== undefined && message.code in ERROR_CODES
              ? (message.code as ErrorCode)
              : 'INTERNAL',
            `a trial worker failed: ${message.message}`,
            message.hint === undefined ? {} : { hint: message.hint },
          );
          return;
      }
    };

    const onExit = (worker: WorkerState, code: number | null, signal: string | null): void => {
      workers.delete(worker);
      const held = worker.trialId;
      const cleanup = async (): Promise<void> => {
        if (held !== null) {
          inFlight--;
          if (held !== -1) summary.lost++;
          const interrupted = options.killSignal?.aborted === true;
          await storage.failStale(study.id, -Number.MAX_SAFE_INTEGER, {
            maxRetries,
            workerId: worker.id,
            reason: interrupted ? 'interrupted' : `worker exited (${signal ?? `code ${code}`})`,
          });
        }
        // Workers this run stopped (a second Ctrl-C) did not fail on their own.
        const stopped = options.killSignal?.aborted === true;
        if (!stopped && worker.finished === 0 && code !== 0 && ++earlyDeaths >= MAX_EARLY_DEATHS)
          fatal ??= new TradelabError(
            'WORKER_FAILED',
            `${MAX_EARLY_DEATHS} trial workers in a row exited (${signal ?? `code ${code}`}) before finishing a trial`,
            {
              hint: 'their stderr is above; to debug, run the objective in this process: optimize(study, fn) without workers',
            },
          );
        if (canStart() && code !== 0) spawn();
        finishIfDone();
      };
      cleanup().catch((error: unknown) => {
        fatal ??= new TradelabError('INTERNAL', `after a worker exited: ${String(error)}`, {
          cause: error,
        });
        finishIfDone();
      });
    };

    const spawn = (): void => {
      const id = newWorkerId();
      const config: WorkerConfig = {
        url: connection.url,
        storageOptions: { ...connection.options, ...options.storageOptions },
        study: studyName,
        objective,
        objectiveOptions: options.objectiveOptions ?? {},
        workers: options.workers,
        workerId: `${id}/w${summary.started}`,
        heartbeatIntervalMs: options.heartbeatIntervalMs ?? 10_000,
        heartbeatGraceMs: grace,
        maxRetries,
      };
      // The settings go in the first message, not argv (which `ps` shows: a storage password) nor
      // the environment (which every child of the worker would inherit).
      const child = fork(compiledPath('tune/worker-main.js'), [], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      child.send({ type: 'start', config } satisfies ParentMessage);
      const worker: WorkerState = { child, id: config.workerId, trialId: null, finished: 0 };
      summary.started++;
      workers.add(worker);
      child.on('message', (message: WorkerMessage) => {
        onMessage(worker, message);
      });
      // 'close', not 'exit': messages the worker sent before it ended are handled first.
      child.on('close', (code, signal) => {
        onExit(worker, code, signal);
      });
      // A failed fork (or a send on a channel that just closed) must not crash this process.
      child.on('error', (error) => {
        fatal ??= new TradelabError('WORKER_FAILED', `trial worker: ${error.message}`, {
          hint: 'check the machine has memory and process slots left',
          cause: error,
        });
        if (child.exitCode === null && child.pid === undefined) onExit(worker, 1, null);
      });
    };

    options.killSignal?.addEventListener('abort', () => {
      for (const worker of workers) worker.child.kill('SIGTERM');
    });
    options.signal?.addEventListener('abort', () => {
      for (const worker of workers) if (worker.trialId === null) tell(worker, { type: 'stop' });
    });
    const count = Math.max(1, Math.min(options.workers, nTrials));
    for (let i = 0; i < count; i++) spawn();
  });
}
