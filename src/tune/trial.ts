import { TradelabError } from '../core/index.js';
import type {
  Attributes,
  Distribution,
  ParamValue,
  StudyDirection,
  StudyRecord,
  TrialRecord,
} from '../storage/records.js';
import type { StudyStorage } from '../storage/study-storage.js';
import {
  categoricalDistribution,
  contains,
  describeDistribution,
  floatDistribution,
  intDistribution,
  sameDistribution,
  type FloatOptions,
  type IntOptions,
} from './distributions.js';
import type { Pruner } from './pruner.js';
import type { Sampler } from './sampler.js';
import type { TrialHistory } from './trial-history.js';
import { clampFraction, type TrialProgress } from './trial-progress.js';

/**
 * Thrown by an objective to stop a trial the pruner gave up on: a signal, not an error. The trial
 * ends `pruned` with its last reported value.
 */
export class TrialPruned extends Error {
  override readonly name = 'TrialPruned';
  constructor(message = 'pruned') {
    super(message);
  }
}

/** What a {@link Trial} needs from its study. */
export interface TrialSession {
  storage: StudyStorage;
  /** The study's record: its name and the settings it was created with. */
  study: StudyRecord;
  direction: StudyDirection;
  sampler: Sampler;
  pruner: Pruner;
  history: TrialHistory;
  /** The study's other trials when this one started (refreshed on each report). */
  others: readonly TrialRecord[];
  /** Where {@link Trial.progress} goes (a worker sends it to its study run); default nowhere. */
  onProgress?: ((progress: TrialProgress) => void) | undefined;
}

/**
 * One run of the objective: define-by-run parameters (`suggest*`), intermediate values and the
 * pruning question. Suggestions are synchronous (the sampler works on a snapshot of the study
 * taken when the trial started) and persisted in the background, in order; a failed write
 * surfaces at the next `report` or when the trial ends.
 */
export class Trial {
  /** The storage's record of this trial, kept current locally. */
  private readonly record: TrialRecord;
  /** Joint values chosen when the trial started (multivariate samplers). */
  private readonly relative: Record<string, ParamValue>;
  private writes: Promise<void> = Promise.resolve();
  private writeError: Error | undefined = undefined;
  private lastStep: number | null = null;

  constructor(
    record: TrialRecord,
    private readonly session: TrialSession,
  ) {
    this.record = record;
    this.relative =
      session.sampler.sampleRelative?.({
        direction: session.direction,
        trials: session.others,
        trial: record,
      }) ?? {};
  }

  /** Storage id of the trial. */
  get id(): number {
    return this.record.id;
  }

  /** The study this trial belongs to, as stored (its attributes carry a trading study's spec). */
  get study(): Readonly<StudyRecord> {
    return this.session.study;
  }

  /** 0, 1, 2, … within the study. */
  get number(): number {
    return this.record.number;
  }

  /**
   * The number of the first trial of this one's retry chain (its own when it is no retry): an
   * objective seeds by it, so a trial retried after its worker died reports what the trial would
   * have, with the same parameters and the same seed.
   */
  get seedNumber(): number {
    let number = this.record.number;
    let retryOf = this.record.retryOf;
    const byNumber = new Map(this.session.others.map((t) => [t.number, t]));
    // Bounded by the chain's length; a missing link ends it at the earliest trial known.
    for (let hops = 0; retryOf !== null && hops <= byNumber.size; hops++) {
      number = retryOf;
      retryOf = byNumber.get(retryOf)?.retryOf ?? null;
    }
    return number;
  }

  /** The parameters suggested so far. */
  get params(): Readonly<Record<string, ParamValue>> {
    return this.record.params;
  }

  /** Intermediate values reported so far, by step. */
  get intermediate(): Readonly<Record<number, number>> {
    return this.record.intermediate;
  }

  /** A float in [low, high], optionally on a log scale or a step grid. */
  suggestFloat(name: string, low: number, high: number, options: FloatOptions = {}): number {
    return this.suggest(name, floatDistribution(name, low, high, options)) as number;
  }

  /** An integer in [low, high], optionally on a log scale or every `step`. */
  suggestInt(name: string, low: number, high: number, options: IntOptions = {}): number {
    return this.suggest(name, intDistribution(name, low, high, options)) as number;
  }

  /** One of `choices` (strings, finite numbers, booleans or null). */
  suggestCategorical<T extends ParamValue>(name: string, choices: readonly T[]): T {
    return this.suggest(name, categoricalDistribution(name, choices)) as T;
  }

  private suggest(name: string, distribution: Distribution): ParamValue {
    const { params, distributions } = this.record;
    const known = distributions[name];
    if (known !== undefined) {
      if (!sameDistribution(known, distribution))
        throw new TradelabError(
          'INVALID_SUGGESTION',
          `parameter "${name}" was asked as ${describeDistribution(known)} and now as ${describeDistribution(distribution)}`,
          { hint: 'ask each parameter with one distribution throughout a study' },
        );
      return params[name] ?? null;
    }
    let value: ParamValue;
    if (Object.hasOwn(params, name)) {
      // Enqueued (fixed) value: it must lie in what the objective asks for.
      value = params[name] ?? null;
      if (!contains(distribution, value))
        throw new TradelabError(
          'INVALID_SUGGESTION',
          `trial ${this.number}: enqueued value ${JSON.stringify(value)} of "${name}" is not in ${describeDistribution(distribution)}`,
          { hint: 'enqueue values inside the range the objective asks for' },
        );
    } else if (
      Object.hasOwn(this.relative, name) &&
      contains(distribution, this.relative[name] ?? null)
    ) {
      value = this.relative[name] ?? null;
    } else {
      value = this.session.sampler.sampleIndependent(
        { direction: this.session.direction, trials: this.session.others, trial: this.record },
        name,
        distribution,
      );
    }
    params[name] = value;
    distributions[name] = distribution;
    this.persist(() => this.session.storage.setTrialParam(this.id, name, distribution, value));
    return value;
  }

  /**
   * Starts a write now — a synchronous storage (SQLite) has stored it before the suggest call
   * returns, so an objective that then exits the process (a crash, `process.exit`) leaves its
   * parameters for the retry — and keeps the first failure for {@link flush}.
   */
  private persist(write: () => Promise<void>): void {
    const started = write().catch((error: unknown) => {
      this.writeError ??= error instanceof Error ? error : new Error(String(error));
    });
    this.writes = Promise.all([this.writes, started]).then(() => undefined);
  }

  /** Waits for queued writes; throws the first that failed. */
  async flush(): Promise<void> {
    await this.writes;
    if (this.writeError !== undefined) throw this.writeError;
  }

  /**
   * Reports an intermediate value (a validation score after an epoch or fold) at `step`, and
   * refreshes what the pruner knows of the other trials.
   */
  async report(value: number, step: number): Promise<void> {
    await this.flush();
    await this.session.storage.reportIntermediate(this.id, step, value);
    this.record.intermediate[step] = value;
    this.lastStep = this.lastStep === null ? step : Math.max(this.lastStep, step);
    const all = await this.session.history.refresh();
    this.session.others = all.filter((t) => t.number !== this.number);
  }

  /** Whether the pruner would stop this trial now (false before anything is reported). */
  shouldPrune(): boolean {
    if (this.lastStep === null) return false;
    return this.session.pruner.shouldPrune({
      direction: this.session.direction,
      trials: this.session.others,
      trial: this.record,
      step: this.lastStep,
    });
  }

  /** The value of the latest step reported, or null: what a pruned trial ends with. */
  lastReported(): number | null {
    if (this.lastStep === null) return null;
    const value = this.record.intermediate[this.lastStep];
    return value === undefined || !Number.isFinite(value) ? null : value;
  }

  /**
   * Says how far the trial has got (`fraction` of its work, and a line of detail) to whoever runs
   * it: a study run shows it while the trial computes. Nothing is stored; cheap to call often.
   */
  progress(fraction: number, detail = ''): void {
    this.session.onProgress?.({ fraction: clampFraction(fraction), detail });
  }

  /** Stores an artifact of this trial (replacing one of that name): a model, per-bar returns. */
  async putArtifact(name: string, bytes: Uint8Array): Promise<void> {
    await this.flush();
    await this.session.storage.putArtifact(this.id, name, bytes);
  }

  /** Sets (merges) user attributes. */
  async setUserAttrs(attrs: Attributes): Promise<void> {
    await this.flush();
    await this.session.storage.setTrialUserAttrs(this.id, attrs);
    Object.assign(this.record.userAttrs, attrs);
  }
}
