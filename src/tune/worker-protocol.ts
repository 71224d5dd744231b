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
  workerId: string;
  heartbeatIntervalMs: number;
  /** Running trials with an older heartbeat are failed (and retried) before each trial. */
  heartbeatGraceMs: number;
  maxRetries: number;
}

/** Worker → parent. */
export type WorkerMessage =
  | { type: 'want' }
  | { type: 'started'; trialId: number; number: number }
  /** How far the running trial has got (its objective's `trial.progress()`). */
  | { type: 'progress'; trialId: number; number: number; fraction: number; detail: string }
  | { type: 'ended'; trial: TrialRecord }
  /** The trial was ended elsewhere (failed as stale) while this worker ran it. */
  | { type: 'lost'; trialId: number }
  /** The ticket's study had reached its `maxTrials` (with other runs' trials): none was claimed. */
  | { type: 'reached' }
  | { type: 'error'; message: string; code?: string; hint?: string };

/**
 * Parent → worker: `start` first, then a `go` per trial ticket (naming its study, and the most
 * trials the study may count when it has a target), and `stop`.
 */
export type ParentMessage =
  | { type: 'start'; config: WorkerConfig }
  | { type: 'go'; study: string; maxTrials?: number }
  | { type: 'stop' };
