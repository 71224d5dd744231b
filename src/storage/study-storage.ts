import type { StorageOptions } from './storage-options.js';
import type {
  Attributes,
  Distribution,
  ParamValue,
  StudyDirection,
  StudyRecord,
  TrialRecord,
  TrialState,
} from './records.js';

/** See {@link StudyStorage.connection}. */
export interface StorageConnection {
  url: string;
  options: StorageOptions;
}

/** What {@link StudyStorage.createStudy} takes. */
export interface NewStudy {
  name: string;
  direction: StudyDirection;
  userAttrs?: Attributes;
  systemAttrs?: Attributes;
}

/** What {@link StudyStorage.enqueueTrial} takes. */
export interface NewWaitingTrial {
  /** Fixed parameter values; the objective's suggest calls return them. */
  params: Record<string, ParamValue>;
  /** Their distributions, when known (a retry copies its failed trial's). */
  distributions?: Record<string, Distribution>;
  userAttrs?: Attributes;
  /** The number of the failed trial this retries. */
  retryOf?: number | null;
}

/**
 * A target for {@link StudyStorage.claimTrial}: the study's trials that count toward it never pass
 * it, however many processes and machines claim at once. A trial counts once it has started:
 * running, complete, pruned, or failed and not retried (a retry takes its place). Waiting trials
 * do not count until claimed.
 */
export interface ClaimTarget {
  /** Claim nothing once this many of the study's trials count. */
  maxTrials: number;
}

/** How a running trial ends. */
export interface TrialOutcome {
  state: Extract<TrialState, 'complete' | 'pruned' | 'fail'>;
  /** Required (finite) for complete; the last reported value (or null) for pruned; null for fail. */
  value: number | null;
  /** Required for fail: why. */
  failReason?: string;
}

/** What {@link StudyStorage.failStale} did. */
export interface StaleResult {
  /** The trials it marked failed. */
  failed: TrialRecord[];
  /** The waiting trials it enqueued to retry them (fewer when a trial ran out of retries). */
  retries: TrialRecord[];
}

/** Options of {@link StudyStorage.failStale} and {@link StudyStorage.failTrial}-style retries. */
export interface RetryPolicy {
  /** Retry a failed trial (with its params) while it has been retried fewer than this many times. */
  maxRetries: number;
}

/**
 * Where studies and trials live: `memory:`, `sqlite:PATH` or `postgres://…`.
 *
 * The contract every implementation keeps (the conformance suite in
 * `storage/conformance.ts` checks it against all three):
 *
 * - **Atomic state changes.** Every method that changes state does so in one transaction: it
 *   happens completely or not at all, and a reader never sees half of it.
 * - **Process safety.** Any number of processes (and, for PostgreSQL, machines) may use one storage
 *   at once. Trial numbers stay dense and unique; {@link claimTrial} gives each waiting trial to
 *   exactly one caller, and claims against a target ({@link ClaimTarget}) never pass it.
 * - **Immutability.** A finished trial (complete, pruned, fail) never changes again, and a
 *   parameter, once set on a trial, never changes; a study's name and direction never change.
 *   Writes that would break this throw `STORAGE_CONFLICT`.
 * - **Errors.** `STUDY_NOT_FOUND` / `TRIAL_NOT_FOUND` for a missing name or id; `STUDY_EXISTS` for
 *   a taken name; `STORAGE_CONFLICT` for a write the trial's state does not allow (for instance a
 *   report to a trial another worker already failed); `STORAGE_SCHEMA` for a schema written by a
 *   newer tradelab; `STORAGE_UNAVAILABLE` when the database cannot be reached. Nothing is written
 *   when a method throws.
 * - **Durability.** When a method's promise resolves, the change survives a crash of any process.
 *   SQLite (WAL, synchronous=NORMAL) may lose the last commits on power loss; memory: keeps nothing
 *   after the process ends.
 * - **Time.** Timestamps are ms since the epoch from the calling process's clock; stale-heartbeat
 *   detection assumes clocks within a few seconds of each other.
 */
export interface StudyStorage {
  /** The URL it was opened from (a password replaced with `***`): for messages. */
  readonly url: string;

  /**
   * How another process or thread opens this same storage: the full URL (with its password:
   * never print it) and the options. Undefined for a storage private to this process (`memory:`,
   * `sqlite::memory:`), which worker processes and heartbeat threads cannot share.
   */
  connection(): StorageConnection | undefined;

  createStudy(study: NewStudy): Promise<StudyRecord>;
  /** The study named `name`; throws STUDY_NOT_FOUND (naming the studies there are). */
  getStudy(name: string): Promise<StudyRecord>;
  /** Every study, by name. */
  listStudies(): Promise<StudyRecord[]>;
  /** Removes a study with its trials and artifacts. */
  deleteStudy(name: string): Promise<void>;
  /** Sets (merges) user attributes of a study. */
  setStudyUserAttrs(studyId: number, attrs: Attributes): Promise<void>;

  /** Adds a waiting trial with the next number. */
  enqueueTrial(studyId: number, trial: NewWaitingTrial): Promise<TrialRecord>;
  /**
   * Starts a trial for `workerId`: the oldest waiting trial if there is one (waiting trials go
   * first), else a new trial with the next number, in state running with a fresh heartbeat.
   */
  claimTrial(studyId: number, workerId: string): Promise<TrialRecord>;
  /**
   * The same, unless the study already counts `target.maxTrials` trials toward its target (see
   * {@link ClaimTarget}): then undefined and nothing changes. The count and the claim are one
   * transaction, so concurrent claims stop exactly at the target.
   */
  claimTrial(
    studyId: number,
    workerId: string,
    target: ClaimTarget,
  ): Promise<TrialRecord | undefined>;
  /** Records a suggested parameter of a running trial; the same value again is a no-op. */
  setTrialParam(
    trialId: number,
    name: string,
    distribution: Distribution,
    value: ParamValue,
  ): Promise<void>;
  /** Records `trial.report(value, step)` of a running trial (a step reported again is replaced). */
  reportIntermediate(trialId: number, step: number, value: number): Promise<void>;
  /** Sets (merges) user attributes of a trial that is not finished. */
  setTrialUserAttrs(trialId: number, attrs: Attributes): Promise<void>;
  /** Refreshes a running trial's heartbeat; throws STORAGE_CONFLICT if it is no longer running. */
  heartbeat(trialId: number): Promise<void>;
  /** Ends a running trial. Throws STORAGE_CONFLICT if it is not running (for example failed as stale). */
  finishTrial(trialId: number, outcome: TrialOutcome): Promise<TrialRecord>;
  /**
   * Fails the running trials of `studyId` (every study when null) whose heartbeat is older than
   * `graceMs`, with reason `reason`, and enqueues a retry (same params) of each that has been
   * retried fewer than `maxRetries` times, in one transaction.
   */
  failStale(
    studyId: number | null,
    graceMs: number,
    policy: RetryPolicy & { reason?: string; workerId?: string },
  ): Promise<StaleResult>;

  getTrial(trialId: number): Promise<TrialRecord>;
  /** A study's trials by number, optionally only those in `states`. */
  getTrials(studyId: number, states?: readonly TrialState[]): Promise<TrialRecord[]>;

  /**
   * The trials a cached history needs to catch up: those numbered `fromNumber` or later, those
   * in `numbers` (the ones the cache holds unfinished), and every waiting or running one. Finished
   * trials never change, so a cache of them plus this is the whole study.
   */
  refreshTrials(
    studyId: number,
    fromNumber: number,
    numbers: readonly number[],
  ): Promise<TrialRecord[]>;

  /**
   * Copies a study with its trials (numbers, states, values, times and all) into this storage, in
   * one transaction, under the same name; `study export` uses it. STUDY_EXISTS if the name is taken.
   * Ids are this storage's own; `retryOf` keeps pointing at trial numbers.
   */
  importStudy(study: StudyRecord, trials: readonly TrialRecord[]): Promise<StudyRecord>;

  /** Stores bytes under (trial, name), replacing an earlier artifact of that name. */
  putArtifact(trialId: number, name: string, bytes: Uint8Array): Promise<void>;
  /** The bytes stored under (trial, name); throws ARTIFACT_NOT_FOUND. */
  getArtifact(trialId: number, name: string): Promise<Uint8Array>;
  /** Names of a trial's artifacts. */
  listArtifacts(trialId: number): Promise<string[]>;

  /** Releases connections; the storage is unusable afterwards. */
  close(): Promise<void>;
}
