import { fork, type ChildProcess } from 'node:child_process';
import { ERROR_CODES, isTradelabError, TradelabError, type ErrorCode } from '../core/index.js';
import type { OpenStorageOptions } from '../storage/open-storage.js';
import type { TrialRecord } from '../storage/records.js';
import type { StudyStorage } from '../storage/study-storage.js';
import { compiledPath } from '../core/compiled-path.js';
import { resolveObjective } from './objective-module.js';
import { HEARTBEAT_SLOTS } from './heartbeat.js';
import { newWorkerId } from './worker-id.js';
import { failOrphanedTrials } from './orphaned-trials.js';
import { storedComponents } from './study-components.js';
import type { TrialProgress, TrialProgressListener } from './trial-progress.js';
import type { ParentMessage, WorkerConfig, WorkerMessage } from './worker-protocol.js';

/** Options of {@link runStudyPool}: the processes, and what to tell about their trials. */
export interface StudyPoolOptions {
  /** Worker processes. */
  workers: number;
  /**
   * Trials each worker runs at once (its slots; default 1): trials resident on one GPU share the
   * worker's device. At most HEARTBEAT_SLOTS.
   */
  trialsPerWorker?: number;
  /**
   * The objective module each worker loads: its path, or a name registered in this process
   * (resolved here: a worker knows only the engine's own names).
   */
  objective: string;
  /** Settings for the module's `createObjective(setup)`, sent to each worker (JSON). */
  objectiveOptions?: Record<string, unknown>;
  /** First abort: start no more trials, let running ones finish. Second: stop them too. */
  signal?: AbortSignal;
  /** Aborting this stops running trials at once (they end `fail`, "interrupted", and are retried). */
  killSignal?: AbortSignal;
  storageOptions?: OpenStorageOptions;
  heartbeatIntervalMs?: number;
  heartbeatGraceMs?: number;
  /** Retries of a trial whose worker died or was interrupted. Default 2. */
  maxRetries?: number;
  onTrialStart?: (trial: { study: string; number: number; pid: number }) => void;
  /** How far a running trial has got, as its objective says (`trial.progress()`). */
  onTrialProgress?: (progress: TrialProgress & { study: string; number: number }) => void;
  onTrialEnd?: (trial: TrialRecord, study: string) => void;
}

/** Options of {@link runWorkers}: a pool over one study. */
export interface WorkerPoolOptions extends Omit<
  StudyPoolOptions,
  'onTrialStart' | 'onTrialProgress' | 'onTrialEnd'
> {
  /** Trials to finish (complete, pruned, or failed by the objective). Default: no limit. */
  nTrials?: number;
  /** Start no trial after this many ms. */
  timeoutMs?: number;
  onTrialStart?: (trial: { number: number; pid: number }) => void;
  /** How far a running trial has got, as its objective says (`trial.progress()`). */
  onTrialProgress?: TrialProgressListener;
  onTrialEnd?: (trial: TrialRecord) => void;
}

/**
 * Which study each trial of a pool comes from: asked at each worker's request for a trial, told
 * when the ticket it gave ends. A campaign shares its workers out between studies by one.
 */
export interface TicketPolicy {
  /** The studies the pool may run: their trials left running by a dead run are failed first. */
  readonly studies: readonly string[];
  /** The study of the next trial, counted as in flight from now; undefined when none may start now. */
  next(): Promise<string | undefined>;
  /** A ticket of `study` ended: with its trial when it finished, undefined when it was lost. */
  settled(study: string, trial: TrialRecord | undefined): void;
  /**
   * The most trials `study` may count in the storage, whoever runs them (other runs, other
   * machines): its workers claim against it (see ClaimTarget), so together they stop exactly
   * there. Undefined, or no method: no target.
   */
  maxTrials?(study: string): number | undefined;
  /**
   * A worker found `study` at its target (other runs' trials count too) and claimed nothing; the
   * ticket is settled as lost first. The policy should hand out no more tickets of it.
   */
  reached?(study: string): void;
  /**
   * Whether a trial could start now, so that a pool below its size starts a worker for it (a
   * study that became ready). Without it, a pool replaces only workers that died.
   */
  hasWork?(): boolean;
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

/** One trial slot of a worker. */
interface SlotState {
  /** The study of the ticket it holds, if any. */
  study: string | null;
  /** The trial it runs (started, not ended): -1 while asking for a ticket; null: none. */
  trialId: number | null;
}

interface WorkerState {
  child: ChildProcess;
  id: string;
  slots: SlotState[];
  /** Trials it finished: a worker that dies having finished none counts toward giving up. */
  finished: number;
}

/** Whether no slot of `worker` holds or asks for a ticket. */
const idle = (worker: WorkerState): boolean => worker.slots.every((s) => s.trialId === null);

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
  const study = await storage.getStudy(studyName);
  const nTrials = options.nTrials ?? Infinity;
  const deadline = options.timeoutMs === undefined ? Infinity : startedAt + options.timeoutMs;
  const sampler = storedComponents(study.name, study.systemAttrs).sampler;
  const grid =
    sampler.isExhausted === undefined
      ? undefined
      : { isExhausted: sampler.isExhausted.bind(sampler) };
  let finished = 0;
  let inFlight = 0;
  let exhausted = false;
  const policy: TicketPolicy = {
    studies: [studyName],
    next: async () => {
      if (exhausted || performance.now() >= deadline || finished + inFlight >= nTrials)
        return undefined;
      inFlight++;
      // A grid sampler stops the run once the study's trials hold every point.
      if (grid !== undefined && grid.isExhausted(await storage.getTrials(study.id))) {
        exhausted = true;
        inFlight--;
        return undefined;
      }
      return studyName;
    },
    settled: (_study, trial) => {
      inFlight--;
      if (trial !== undefined) finished++;
    },
  };
  const { onTrialStart, onTrialProgress, onTrialEnd, ...rest } = options;
  return runStudyPool(storage, policy, {
    ...rest,
    workers: Math.max(1, Math.min(options.workers, nTrials)),
    ...(options.trialsPerWorker === undefined
      ? {}
      : { trialsPerWorker: Math.max(1, Math.min(options.trialsPerWorker, nTrials)) }),
    onTrialStart: ({ number, pid }) => onTrialStart?.({ number, pid }),
    onTrialProgress: ({ number, fraction, detail }) =>
      onTrialProgress?.({ number, fraction, detail }),
    onTrialEnd: (trial) => onTrialEnd?.(trial),
  });
}

/**
 * Runs trials of the studies `policy` names in `options.workers` child processes that share only
 * the storage: each worker asks for a ticket before each trial and the policy says of which study
 * (or none: the worker stops). A worker that dies costs its current trial, which is failed at once
 * (reason: how it exited) and retried, and is replaced while the policy has work.
 */
export async function runStudyPool(
  storage: StudyStorage,
  policy: TicketPolicy,
  options: StudyPoolOptions,
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
  const maxRetries = options.maxRetries ?? 2;
  const grace = options.heartbeatGraceMs ?? 60_000;
  const trialsPerWorker = options.trialsPerWorker ?? 1;
  if (
    !Number.isInteger(trialsPerWorker) ||
    trialsPerWorker < 1 ||
    trialsPerWorker > HEARTBEAT_SLOTS
  )
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `trials per worker: ${trialsPerWorker} is not a whole number from 1 to ${HEARTBEAT_SLOTS}`,
      { hint: `run more worker processes for more than ${HEARTBEAT_SLOTS} trials at once` },
    );
  for (const name of policy.studies) {
    const { id } = await storage.getStudy(name);
    await failOrphanedTrials(storage, id, maxRetries);
    await storage.failStale(id, grace, { maxRetries });
  }
  const studyIds = new Map<string, number>();
  const studyId = async (name: string): Promise<number> => {
    let id = studyIds.get(name);
    if (id === undefined) {
      id = (await storage.getStudy(name)).id;
      studyIds.set(name, id);
    }
    return id;
  };
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
  let earlyDeaths = 0;
  let fatal: TradelabError | undefined;
  const canStart = (): boolean =>
    fatal === undefined && options.signal?.aborted !== true && options.killSignal?.aborted !== true;

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

    /** Asks the policy for a ticket for `slot` of `worker`; none stops the slot (and an idle worker). */
    const offer = (worker: WorkerState, slot: number): void => {
      const state = worker.slots[slot];
      if (state === undefined) return;
      if (!canStart()) {
        state.trialId = null;
        if (idle(worker)) tell(worker, { type: 'stop' });
        return;
      }
      state.trialId = -1; // asking the policy: a ticket, not yet a trial
      policy.next().then(
        (study) => {
          // Stopped, or the worker died, while the policy answered: the ticket goes back unused.
          if (study !== undefined && (!canStart() || !workers.has(worker))) {
            policy.settled(study, undefined);
            study = undefined;
          }
          if (study === undefined) {
            state.trialId = null;
            if (idle(worker)) tell(worker, { type: 'stop' });
            return;
          }
          state.study = study;
          const maxTrials = policy.maxTrials?.(study);
          tell(worker, {
            type: 'go',
            slot,
            study,
            ...(maxTrials === undefined ? {} : { maxTrials }),
          });
        },
        (error: unknown) => {
          state.trialId = null;
          fatal ??= isTradelabError(error)
            ? error
            : new TradelabError('INTERNAL', `choosing a trial: ${String(error)}`, {
                cause: error,
              });
          if (idle(worker)) tell(worker, { type: 'stop' });
        },
      );
    };

    const onMessage = (worker: WorkerState, message: WorkerMessage): void => {
      if (message.type === 'error') {
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
      if (message.type === 'progress') {
        // A late message of a trial this worker no longer runs would show a stale figure.
        const running = worker.slots.find((s) => s.trialId === message.trialId);
        if (running !== undefined)
          options.onTrialProgress?.({
            study: running.study ?? '',
            number: message.number,
            fraction: message.fraction,
            detail: message.detail,
          });
        return;
      }
      const slot = worker.slots[message.slot];
      if (slot === undefined) return;
      switch (message.type) {
        case 'want':
          offer(worker, message.slot);
          return;
        case 'started':
          slot.trialId = message.trialId;
          options.onTrialStart?.({
            study: slot.study ?? '',
            number: message.number,
            pid: worker.child.pid ?? 0,
          });
          return;
        case 'ended': {
          const study = slot.study ?? '';
          slot.trialId = null;
          slot.study = null;
          worker.finished++;
          earlyDeaths = 0;
          const trial = message.trial;
          summary.trials.push(trial);
          if (trial.state === 'complete') summary.complete++;
          else if (trial.state === 'pruned') summary.pruned++;
          else summary.failed++;
          policy.settled(study, trial);
          options.onTrialEnd?.(trial, study);
          topUp();
          return;
        }
        case 'lost':
          if (slot.study !== null) policy.settled(slot.study, undefined);
          slot.trialId = null;
          slot.study = null;
          summary.lost++;
          return;
        case 'reached': {
          const study = slot.study;
          slot.trialId = null;
          slot.study = null;
          if (study === null) return;
          policy.settled(study, undefined);
          policy.reached?.(study);
          return;
        }
      }
    };

    const onExit = (worker: WorkerState, code: number | null, signal: string | null): void => {
      workers.delete(worker);
      const held = worker.slots.filter((s) => s.trialId !== null && s.study !== null);
      const cleanup = async (): Promise<void> => {
        for (const slot of held) {
          policy.settled(slot.study as string, undefined);
          if (slot.trialId !== -1) summary.lost++;
        }
        const interrupted = options.killSignal?.aborted === true;
        // One sweep per study fails every trial the worker ran there.
        for (const study of new Set(held.map((s) => s.study as string)))
          await storage.failStale(await studyId(study), -Number.MAX_SAFE_INTEGER, {
            maxRetries,
            workerId: worker.id,
            reason: interrupted ? 'interrupted' : `worker exited (${signal ?? `code ${code}`})`,
          });
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
        topUp();
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
        objective,
        objectiveOptions: options.objectiveOptions ?? {},
        workers: options.workers,
        slots: trialsPerWorker,
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
      const worker: WorkerState = {
        child,
        id: config.workerId,
        slots: Array.from({ length: trialsPerWorker }, () => ({ study: null, trialId: null })),
        finished: 0,
      };
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

    // A study that became ready (a campaign's fine-tuning study) gets the idle slots of running
    // workers, then the workers that stopped.
    const topUp = (): void => {
      for (const worker of workers)
        worker.slots.forEach((slot, i) => {
          // An idle worker was told to stop; only busy workers' idle slots are offered.
          if (slot.trialId === null && !idle(worker) && canStart() && policy.hasWork?.() === true)
            offer(worker, i);
        });
      while (workers.size < options.workers && canStart() && policy.hasWork?.() === true) spawn();
    };

    options.killSignal?.addEventListener('abort', () => {
      for (const worker of workers) worker.child.kill('SIGTERM');
    });
    options.signal?.addEventListener('abort', () => {
      for (const worker of workers) if (idle(worker)) tell(worker, { type: 'stop' });
    });
    for (let i = 0; i < Math.max(1, options.workers); i++) spawn();
  });
}
