import { hostname } from 'node:os';
import { TradelabError } from '../core/index.js';
import type {
  Attributes,
  ParamValue,
  StudyDirection,
  StudyRecord,
  TrialRecord,
  TrialState,
} from '../storage/records.js';
import type { StudyStorage } from '../storage/study-storage.js';
import type { Objective, OptimizeOptions, OptimizeSummary } from './optimize.js';
import type { Pruner } from './pruner.js';
import type { Sampler } from './sampler.js';
import { Trial } from './trial.js';
import { TrialHistory } from './trial-history.js';

/** What a study is created with. */
export interface NewStudyOptions {
  name: string;
  direction: StudyDirection;
  userAttrs?: Attributes;
  /** Settings other processes need to rebuild the study (sampler and pruner specs, objective). */
  systemAttrs?: Attributes;
  /** Continue an existing study of that name instead of failing. */
  loadIfExists?: boolean;
}

/** The sampler and pruner a study object asks (they are not stored; specs in systemAttrs are). */
export interface StudyComponents {
  sampler: Sampler;
  pruner: Pruner;
}

/** The result a trial is told. */
export type TellResult = number | 'pruned' | 'fail';

/** A name for this process as a worker: host, pid and a counter. */
let workers = 0;
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${workers++}`;
}

/**
 * A study on a storage: ask/tell, enqueue, and what has been found. Several Study objects (in
 * several processes, on several machines) may work on one stored study at once; the storage keeps
 * them consistent.
 */
export class Study {
  /** The trials samplers and pruners see, refreshed incrementally. */
  private readonly history: TrialHistory;

  private constructor(
    readonly storage: StudyStorage,
    readonly record: StudyRecord,
    private readonly components: StudyComponents,
  ) {
    this.history = new TrialHistory(storage, record.id);
  }

  /** Creates a study (or, with loadIfExists, loads the existing one of that name). */
  static async create(
    storage: StudyStorage,
    options: NewStudyOptions,
    components: StudyComponents,
  ): Promise<Study> {
    try {
      const record = await storage.createStudy({
        name: options.name,
        direction: options.direction,
        userAttrs: options.userAttrs ?? {},
        systemAttrs: options.systemAttrs ?? {},
      });
      return new Study(storage, record, components);
    } catch (error) {
      if (options.loadIfExists !== true || !(error instanceof TradelabError)) throw error;
      if (error.code !== 'STUDY_EXISTS') throw error;
      const study = await Study.load(storage, options.name, components);
      if (study.direction !== options.direction)
        throw new TradelabError(
          'INVALID_ARGUMENT',
          `study "${options.name}" exists with direction ${study.direction}, not ${options.direction}`,
          { hint: 'a study’s direction never changes: use another name' },
        );
      return study;
    }
  }

  /** Loads an existing study. */
  static async load(
    storage: StudyStorage,
    name: string,
    components: StudyComponents,
  ): Promise<Study> {
    return new Study(storage, await storage.getStudy(name), components);
  }

  get name(): string {
    return this.record.name;
  }

  get id(): number {
    return this.record.id;
  }

  get direction(): StudyDirection {
    return this.record.direction;
  }

  get sampler(): Sampler {
    return this.components.sampler;
  }

  get pruner(): Pruner {
    return this.components.pruner;
  }

  /** Starts a trial: an enqueued one first, else a new one; its suggest calls ask the sampler. */
  async ask(workerId: string = newWorkerId()): Promise<Trial> {
    const record = await this.storage.claimTrial(this.id, workerId);
    const all = await this.history.refresh();
    return new Trial(record, {
      storage: this.storage,
      study: this.record,
      direction: this.direction,
      sampler: this.components.sampler,
      pruner: this.components.pruner,
      history: this.history,
      others: all.filter((t) => t.number !== record.number),
    });
  }

  /**
   * Ends a trial: a finite value (complete), 'pruned' (with its last reported value) or 'fail'.
   * Writes its pending parameters first.
   */
  async tell(trial: Trial, result: TellResult, failReason?: string): Promise<TrialRecord> {
    await trial.flush();
    if (result === 'pruned')
      return this.storage.finishTrial(trial.id, { state: 'pruned', value: trial.lastReported() });
    if (result === 'fail')
      return this.storage.finishTrial(trial.id, {
        state: 'fail',
        value: null,
        failReason: failReason ?? 'failed',
      });
    return this.storage.finishTrial(trial.id, { state: 'complete', value: result });
  }

  /** Adds a trial with fixed parameters; the next ask() takes it before sampling new ones. */
  async enqueueTrial(
    params: Record<string, ParamValue>,
    userAttrs: Attributes = {},
  ): Promise<TrialRecord> {
    return this.storage.enqueueTrial(this.id, { params, userAttrs });
  }

  /**
   * Runs trials until `nTrials` finish or the timeout passes: in this process, or with `workers`
   * in worker processes (the objective then a module path or built-in name). See `optimize`.
   */
  async optimize(
    objective: Objective | string,
    options: OptimizeOptions = {},
  ): Promise<OptimizeSummary> {
    const { optimize } = await import('./optimize.js');
    return optimize(this, objective, options);
  }

  /** The study's trials by number, optionally only those in `states`. */
  async trials(states?: readonly TrialState[]): Promise<TrialRecord[]> {
    return this.storage.getTrials(this.id, states);
  }

  /** The complete trial with the best value (the earliest among equals), if any. */
  async bestTrial(): Promise<TrialRecord | undefined> {
    return bestOf(await this.trials(['complete']), this.direction);
  }
}

/** The best complete trial of `trials` for `direction` (the earliest among equals). */
export function bestOf(
  trials: readonly TrialRecord[],
  direction: StudyDirection,
): TrialRecord | undefined {
  let best: TrialRecord | undefined;
  for (const trial of trials) {
    if (trial.state !== 'complete' || trial.value === null) continue;
    if (
      best === undefined ||
      (direction === 'minimize'
        ? trial.value < (best.value ?? Infinity)
        : trial.value > (best.value ?? -Infinity))
    )
      best = trial;
  }
  return best;
}
