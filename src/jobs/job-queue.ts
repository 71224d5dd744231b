/*
 * The job queue's contract: what `tradelab serve` persists about the work it was given, so that a
 * restarted (or killed) service loses nothing. A job is one tradelab command line, run by a pool
 * of worker processes; every implementation (SQLite here, PostgreSQL later) passes
 * `conformance.ts`.
 */

/** A job's life: queued → running → succeeded | failed | cancelled | interrupted. */
export type JobState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'interrupted';

/** Every job state, in the order of a job's life. */
export const JOB_STATES: readonly JobState[] = [
  'queued',
  'running',
  'succeeded',
  'failed',
  'cancelled',
  'interrupted',
];

/** The states a job ends in; `retry` makes a new job from one of them. */
export const ENDED_JOB_STATES: readonly JobState[] = [
  'succeeded',
  'failed',
  'cancelled',
  'interrupted',
];

/** The most log lines a job keeps; later lines are counted, not stored. */
export const MAX_LOG_LINES = 20_000;

/** What was asked for: a command of the allowed list, its positionals and options. */
export interface JobRequest {
  /** The command's words, e.g. `train ppo`. */
  command: string;
  positionals: string[];
  /** Option values by long name (a number as it is written); `true` for a flag. */
  options: Record<string, string | number | boolean>;
}

/** The last progress line of a running job. */
export interface JobProgress {
  /** Percent done when the command says it (0–100), else null. */
  percent: number | null;
  /** The command's own progress line, e.g. `42% (12/28 trials), 74 s/trial, ETA 19 min`. */
  text: string;
  /** ms since the epoch. */
  at: number;
}

/** A job as stored. */
export interface JobRecord {
  /** Storage-assigned, increasing. */
  id: number;
  request: JobRequest;
  /** The arguments the worker process runs (after `tradelab`). */
  argv: string[];
  /** Worker slots it occupies while it runs (a campaign takes several). */
  slots: number;
  state: JobState;
  /** ms since the epoch. */
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** Last heartbeat of the runner running it; null unless running. */
  heartbeatAt: number | null;
  /** The runner (`host:pid`) that claimed it. */
  runner: string | null;
  /** The worker process's id while it runs. */
  pid: number | null;
  progress: JobProgress | null;
  cancelRequested: boolean;
  exitCode: number | null;
  /** Why it failed or was interrupted; null otherwise. */
  error: string | null;
  /** The JSON objects the command printed on stdout (`--json`), e.g. a benchmark's rows. */
  result: unknown[];
  /** The id of the job this one retries; null if it is not a retry. */
  retryOf: number | null;
}

/** What {@link JobQueue.submit} takes. */
export interface NewJob {
  request: JobRequest;
  argv: string[];
  slots: number;
  retryOf?: number;
}

/** A line of a job's log. */
export interface JobLogLine {
  /** 1, 2, 3… within the job. */
  seq: number;
  stream: 'stdout' | 'stderr';
  text: string;
  /** ms since the epoch. */
  at: number;
}

/** Filters of {@link JobQueue.list}; newest first. */
export interface JobFilter {
  states?: readonly JobState[];
  command?: string;
  /** Only jobs with a smaller id (paging). */
  beforeId?: number;
  /** Default 100. */
  limit?: number;
}

/** How a job ended, as its runner says (interrupted: its service stopped it by stopping). */
export interface JobOutcome {
  state: 'succeeded' | 'failed' | 'cancelled' | 'interrupted';
  exitCode: number | null;
  error: string | null;
  result: unknown[];
}

/** The queue. Every method is safe to call from several processes on one storage. */
export interface JobQueue {
  /** Where it lives, for messages (`sqlite:/…/tradelab.db`). */
  readonly url: string;
  submit(job: NewJob): Promise<JobRecord>;
  /** JOB_NOT_FOUND when there is none. */
  get(id: number): Promise<JobRecord>;
  list(filter?: JobFilter): Promise<JobRecord[]>;
  /**
   * The oldest queued job that needs at most `freeSlots` slots, now running under `runner`; or
   * undefined. Two runners never claim the same job.
   */
  claim(runner: string, freeSlots: number): Promise<JobRecord | undefined>;
  /** Records the worker process of a claimed job. */
  setPid(id: number, pid: number): Promise<void>;
  setProgress(id: number, progress: JobProgress): Promise<void>;
  /** Appends lines to a job's log (numbered on from its last line). */
  appendLog(id: number, lines: readonly Omit<JobLogLine, 'seq'>[]): Promise<void>;
  /** Log lines after `afterSeq`, at most `limit` (default 1000). */
  readLog(id: number, afterSeq?: number, limit?: number): Promise<JobLogLine[]>;
  /** Marks a running job as alive (the runner calls it every few seconds). */
  heartbeat(ids: readonly number[]): Promise<void>;
  /** Ends a running job; a job that already ended is left as it is. */
  finish(id: number, outcome: JobOutcome): Promise<JobRecord>;
  /**
   * Cancels a job: a queued one at once; a running one is flagged for its runner, which stops the
   * process. An ended job: JOB_ENDED.
   */
  cancel(id: number): Promise<JobRecord>;
  /** A new queued job with the request of ended job `id` (JOB_NOT_ENDED while it runs). */
  retry(id: number): Promise<JobRecord>;
  /**
   * Marks running jobs whose runner stopped as interrupted: those with no heartbeat for
   * `staleMs`, and those of `deadRunners`. Returns them.
   */
  interruptStale(staleMs: number, deadRunners?: readonly string[]): Promise<JobRecord[]>;
  close(): Promise<void>;
}
