import { isTradelabError, TradelabError } from '../core/index.js';
import type {
  Attributes,
  ParamValue,
  StudyDirection,
  StudyRecord,
  TrialRecord,
  TrialState,
} from '../storage/records.js';
import type { StudyStorage } from '../storage/study-storage.js';
import type { Pruner } from './pruner.js';
import type { PrunerSpec } from './pruners/index.js';
import type { Sampler } from './sampler.js';
import type { SamplerSpec } from './sampler-spec.js';
import {
  componentsOf,
  CUSTOM_COMPONENTS_ATTR,
  DEFAULT_PRUNER,
  DEFAULT_SAMPLER,
  specsOf,
  storedComponents,
  type ComponentSpecs,
  type StudyComponents,
} from './study-components.js';
import { Trial } from './trial.js';
import { newWorkerId } from './worker-id.js';
import { TrialHistory } from './trial-history.js';
import type { TrialProgressListener } from './trial-progress.js';

/** What a study is created with. */
export interface NewStudyOptions {
  name: string;
  direction: StudyDirection;
  userAttrs?: Attributes;
  /** What an application of the engine keeps with the study (a trading study's spec, its objective). */
  systemAttrs?: Attributes;
  /** The sampler, stored with the study so every worker builds the same one. Default TPE. */
  sampler?: SamplerSpec;
  /** The pruner, stored likewise. Default median. */
  pruner?: PrunerSpec;
  /**
   * Continue an existing study of that name instead of failing (its direction must match; its
   * stored sampler and pruner win over the ones given).
   */
  loadIfExists?: boolean;
}

/** The result a trial is told. */
export type TellResult = number | 'pruned' | 'fail';

/**
 * A study on a storage: ask/tell, enqueue, and what has been found. Several Study objects (in
 * several processes, on several machines) may work on one stored study at once; the storage keeps
 * them consistent. Its sampler and pruner are built from the specs stored with it, so every
 * process that loads it asks the same ones.
 */
export class Study {
  /** The trials samplers and pruners see, refreshed incrementally. */
  private readonly history: TrialHistory;

  private constructor(
    readonly storage: StudyStorage,
    readonly record: StudyRecord,
    private readonly components: StudyComponents,
    /** Whether this call created the study (false: an existing one was loaded). */
    readonly created: boolean,
  ) {
    this.history = new TrialHistory(storage, record.id);
  }

  /**
   * Creates a study with its sampler and pruner specs stored (or, with loadIfExists, loads the
   * existing one of that name). `custom` objects replace the specs' components in this process
   * only: the study then records their descriptions, and worker processes refuse it.
   * @throws TradelabError STUDY_EXISTS, or STUDY_CONFLICT for a loaded study of another direction.
   */
  static async create(
    storage: StudyStorage,
    options: NewStudyOptions,
    custom: Partial<StudyComponents> = {},
  ): Promise<Study> {
    const specs: ComponentSpecs = {
      sampler: options.sampler ?? DEFAULT_SAMPLER,
      pruner: options.pruner ?? DEFAULT_PRUNER,
    };
    // Built before anything is stored: a spec that fails to build creates nothing.
    const built = componentsOf(specs);
    const customized = {
      ...(custom.sampler === undefined ? {} : { sampler: custom.sampler.description }),
      ...(custom.pruner === undefined ? {} : { pruner: custom.pruner.description }),
    };
    try {
      const record = await storage.createStudy({
        name: options.name,
        direction: options.direction,
        userAttrs: options.userAttrs ?? {},
        systemAttrs: {
          ...options.systemAttrs,
          sampler: specs.sampler,
          pruner: specs.pruner,
          ...(Object.keys(customized).length === 0 ? {} : { [CUSTOM_COMPONENTS_ATTR]: customized }),
        },
      });
      return new Study(storage, record, { ...built, ...custom }, true);
    } catch (error) {
      if (options.loadIfExists !== true || !isTradelabError(error, 'STUDY_EXISTS')) throw error;
      const record = await storage.getStudy(options.name);
      if (record.direction !== options.direction)
        throw new TradelabError(
          'STUDY_CONFLICT',
          `study "${options.name}" in ${storage.url} exists with direction ${record.direction}, not ${options.direction}`,
          {
            hint: `a study's direction never changes: continue it as ${record.direction}, or pick another name`,
            details: { study: options.name, direction: record.direction },
          },
        );
      // This process's own objects may stand in for the stored specs; other callers get the specs.
      const hasCustom = custom.sampler !== undefined || custom.pruner !== undefined;
      const components = hasCustom
        ? { ...componentsOf(specsOf(record.systemAttrs)), ...custom }
        : storedComponents(record.name, record.systemAttrs);
      return new Study(storage, record, components, false);
    }
  }

  /**
   * Loads an existing study with the sampler and pruner stored with it.
   * @throws TradelabError STUDY_NOT_FOUND, or STUDY_NOT_PORTABLE for a study of custom objects.
   */
  static async load(storage: StudyStorage, name: string): Promise<Study> {
    const record = await storage.getStudy(name);
    return new Study(storage, record, storedComponents(record.name, record.systemAttrs), false);
  }

  /** The sampler and pruner specs stored with the study. */
  get specs(): ComponentSpecs {
    return specsOf(this.record.systemAttrs);
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

  /**
   * Starts a trial: an enqueued one first, else a new one; its suggest calls ask the sampler.
   * `onProgress` receives what the objective says with `trial.progress()`.
   */
  async ask(workerId: string = newWorkerId(), onProgress?: TrialProgressListener): Promise<Trial> {
    return this.trialOf(await this.storage.claimTrial(this.id, workerId), onProgress);
  }

  /**
   * {@link ask}, unless the study already counts `maxTrials` trials (see ClaimTarget in
   * storage/study-storage.ts): then undefined. Any number of processes and machines asking at
   * once stop exactly at the target.
   */
  async askWithin(
    maxTrials: number,
    workerId: string = newWorkerId(),
    onProgress?: TrialProgressListener,
  ): Promise<Trial | undefined> {
    const record = await this.storage.claimTrial(this.id, workerId, { maxTrials });
    return record === undefined ? undefined : this.trialOf(record, onProgress);
  }

  /** The Trial of a claimed record, its history caught up. */
  private async trialOf(record: TrialRecord, onProgress?: TrialProgressListener): Promise<Trial> {
    const all = await this.history.refresh();
    return new Trial(record, {
      storage: this.storage,
      study: this.record,
      direction: this.direction,
      sampler: this.components.sampler,
      pruner: this.components.pruner,
      history: this.history,
      others: all.filter((t) => t.number !== record.number),
      onProgress:
        onProgress === undefined
          ? undefined
          : (progress) => {
              onProgress({ number: record.number, ...progress });
            },
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
