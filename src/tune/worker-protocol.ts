import type { OpenStorageOptions } from '../storage/open-storage.js';
import type { TrialRecord } from '../storage/records.js';

/*
 * The messages between a study run (parent) and its worker processes. A worker asks for a ticket
 * before each trial, so the parent alone decides how many trials run: it never starts more than
 * were requested, and it knows which trial a worker held when that worker dies.
 */

/** What a worker process is started with: the parent's first message. */
export interface WorkerConfig {
  url: string;
  storageOptions: OpenStorageOptions;
  /** Path of the objective module. */
  objective: string;
  /** Settings for the module's `createObjective(setup)`. */
  objectiveOptions: Record<string, unknown>;
  /** Worker processes of this run (an objective's share of the machine). */
  workers: number;
  /**
   * Trials this worker runs at once, each in its own slot (0 … slots − 1) with its own tickets:
   * trials resident on one GPU share the device and the process. At most HEARTBEAT_SLOTS.
   */
  slots: number;
  workerId: string;
  heartbeatIntervalMs: number;
  /** Running trials with an older heartbeat are failed (and retried) before each trial. */
  heartbeatGraceMs: number;
  maxRetries: number;
}

/** Worker → parent; `slot` says which of the worker's trial slots. */
export type WorkerMessage =
  | { type: 'want'; slot: number }
  | { type: 'started'; slot: number; trialId: number; number: number }
  /** How far the running trial has got (its objective's `trial.progress()`). */
  | { type: 'progress'; trialId: number; number: number; fraction: number; detail: string }
  | { type: 'ended'; slot: number; trial: TrialRecord }
  /** The trial was ended elsewhere (failed as stale) while this worker ran it. */
  | { type: 'lost'; slot: number; trialId: number }
  /** The ticket's study had reached its `maxTrials` (with other runs' trials): none was claimed. */
  | { type: 'reached'; slot: number }
  | { type: 'error'; message: string; code?: string; hint?: string };

/**
 * Parent → worker: `start` first, then a `go` per trial ticket for one slot (naming its study,
 * and the most trials the study may count when it has a target), and `stop` (the whole worker:
 * sent once none of its slots holds a ticket).
 */
export type ParentMessage =
  | { type: 'start'; config: WorkerConfig }
  | { type: 'go'; slot: number; study: string; maxTrials?: number }
  | { type: 'stop' };
