import {
  artifactNotFound,
  checkOutcome,
  checkReport,
  notInState,
  paramConflict,
  studyExists,
  studyNotFound,
  trialNotFound,
} from './storage-errors.js';
import { checkArtifactName } from './artifact-files.js';
import type {
  Attributes,
  Distribution,
  ParamValue,
  StudyRecord,
  TrialRecord,
  TrialState,
} from './records.js';
import { countTowardTarget } from './target-count.js';
import type {
  ClaimTarget,
  NewStudy,
  NewWaitingTrial,
  RetryPolicy,
  StaleResult,
  StudyStorage,
  TrialOutcome,
} from './study-storage.js';

/*
 * `memory:`: studies in this process only, gone when it ends. One process, so every method is
 * trivially atomic; records are copied in and out so callers never share state with the store.
 */

interface MemoryStudy {
  record: StudyRecord;
  /** By number. */
  trials: TrialRecord[];
  /** Waiting trials, oldest first (numbers only grow, so appending keeps the order). */
  waiting: TrialRecord[];
  /** Waiting and running trials: what a refresh always returns. */
  unfinished: Set<TrialRecord>;
  artifacts: Map<string, Uint8Array>;
}

function emptyStudy(record: StudyRecord): MemoryStudy {
  return { record, trials: [], waiting: [], unfinished: new Set(), artifacts: new Map() };
}

/** Opens an empty in-memory study storage. */
export function openMemoryStorage(): StudyStorage {
  return new MemoryStorage();
}

class MemoryStorage implements StudyStorage {
  readonly url = 'memory:';

  connection(): undefined {
    return undefined;
  }
  private readonly studies = new Map<string, MemoryStudy>();
  private readonly byTrialId = new Map<number, { study: MemoryStudy; trial: TrialRecord }>();
  private nextStudyId = 1;
  private nextTrialId = 1;

  private study(name: string): MemoryStudy {
    const study = this.studies.get(name);
    if (study === undefined) throw studyNotFound(name, [...this.studies.keys()].sort());
    return study;
  }

  private studyById(studyId: number): MemoryStudy {
    for (const study of this.studies.values()) if (study.record.id === studyId) return study;
    throw studyNotFound(`#${studyId}`, []);
  }

  private entry(trialId: number): { study: MemoryStudy; trial: TrialRecord } {
    const entry = this.byTrialId.get(trialId);
    if (entry === undefined) throw trialNotFound(trialId);
    return entry;
  }

  private trialIn(trialId: number, action: string, allowed: readonly TrialState[]): TrialRecord {
    const { trial } = this.entry(trialId);
    if (!allowed.includes(trial.state)) throw notInState(trial, action, allowed);
    return trial;
  }

  createStudy(study: NewStudy): Promise<StudyRecord> {
    return attempt(() => {
      if (this.studies.has(study.name)) throw studyExists(study.name);
      const record: StudyRecord = {
        id: this.nextStudyId++,
        name: study.name,
        direction: study.direction,
        userAttrs: structuredClone(study.userAttrs ?? {}),
        systemAttrs: structuredClone(study.systemAttrs ?? {}),
        createdAt: Date.now(),
      };
      this.studies.set(study.name, emptyStudy(record));
      return structuredClone(record);
    });
  }

  getStudy(name: string): Promise<StudyRecord> {
    return attempt(() => structuredClone(this.study(name).record));
  }

  listStudies(): Promise<StudyRecord[]> {
    return attempt(() =>
      [...this.studies.values()]
        .map((s) => structuredClone(s.record))
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
    );
  }

  deleteStudy(name: string): Promise<void> {
    return attempt(() => {
      const study = this.study(name);
      for (const trial of study.trials) this.byTrialId.delete(trial.id);
      this.studies.delete(name);
    });
  }

  setStudyUserAttrs(studyId: number, attrs: Attributes): Promise<void> {
    return attempt(() => {
      const study = this.studyById(studyId);
      study.record.userAttrs = { ...study.record.userAttrs, ...structuredClone(attrs) };
    });
  }

  private insertTrial(
    study: MemoryStudy,
    state: 'waiting' | 'running',
    trial: NewWaitingTrial,
    workerId: string | null,
  ): TrialRecord {
    const now = Date.now();
    const running = state === 'running';
    const record: TrialRecord = {
      id: this.nextTrialId++,
      studyId: study.record.id,
      number: study.trials.length,
      state,
      params: structuredClone(trial.params),
      distributions: structuredClone(trial.distributions ?? {}),
      value: null,
      intermediate: {},
      userAttrs: structuredClone(trial.userAttrs ?? {}),
      createdAt: now,
      startedAt: running ? now : null,
      finishedAt: null,
      heartbeatAt: running ? now : null,
      workerId,
      retryOf: trial.retryOf ?? null,
      failReason: null,
    };
    study.trials.push(record);
    study.unfinished.add(record);
    if (state === 'waiting') study.waiting.push(record);
    this.byTrialId.set(record.id, { study, trial: record });
    return record;
  }

  enqueueTrial(studyId: number, trial: NewWaitingTrial): Promise<TrialRecord> {
    return attempt(() =>
      structuredClone(this.insertTrial(this.studyById(studyId), 'waiting', trial, null)),
    );
  }

  claimTrial(studyId: number, workerId: string): Promise<TrialRecord>;
  claimTrial(
    studyId: number,
    workerId: string,
    target: ClaimTarget,
  ): Promise<TrialRecord | undefined>;
  claimTrial(
    studyId: number,
    workerId: string,
    target?: ClaimTarget,
  ): Promise<TrialRecord | undefined> {
    return attempt(() => {
      const study = this.studyById(studyId);
      if (target !== undefined && countTowardTarget(study.trials) >= target.maxTrials)
        return undefined;
      const waiting = study.waiting.shift();
      if (waiting === undefined)
        return structuredClone(this.insertTrial(study, 'running', { params: {} }, workerId));
      const now = Date.now();
      waiting.state = 'running';
      waiting.startedAt = now;
      waiting.heartbeatAt = now;
      waiting.workerId = workerId;
      return structuredClone(waiting);
    });
  }

  setTrialParam(
    trialId: number,
    name: string,
    distribution: Distribution,
    value: ParamValue,
  ): Promise<void> {
    return attempt(() => {
      const trial = this.trialIn(trialId, `set parameter "${name}" of`, ['running']);
      if (Object.hasOwn(trial.params, name)) {
        const stored = trial.params[name] ?? null;
        if (stored !== value) throw paramConflict(trial.number, name, stored, value);
      }
      trial.params[name] = value;
      trial.distributions[name] ??= structuredClone(distribution);
    });
  }

  reportIntermediate(trialId: number, step: number, value: number): Promise<void> {
    return attempt(() => {
      checkReport(step, value);
      this.trialIn(trialId, 'report to', ['running']).intermediate[step] = value;
    });
  }

  setTrialUserAttrs(trialId: number, attrs: Attributes): Promise<void> {
    return attempt(() => {
      const trial = this.trialIn(trialId, 'set attributes of', ['waiting', 'running']);
      trial.userAttrs = { ...trial.userAttrs, ...structuredClone(attrs) };
    });
  }

  heartbeat(trialId: number): Promise<void> {
    return attempt(() => {
      this.trialIn(trialId, 'heartbeat', ['running']).heartbeatAt = Date.now();
    });
  }

  private finish(study: MemoryStudy, trial: TrialRecord, outcome: TrialOutcome, now: number): void {
    study.unfinished.delete(trial);
    trial.state = outcome.state;
    trial.value = outcome.value;
    trial.finishedAt = now;
    trial.heartbeatAt = null;
    trial.failReason = outcome.state === 'fail' ? (outcome.failReason ?? null) : null;
  }

  finishTrial(trialId: number, outcome: TrialOutcome): Promise<TrialRecord> {
    return attempt(() => {
      checkOutcome(outcome);
      const trial = this.trialIn(trialId, `end (${outcome.state})`, ['running']);
      this.finish(this.entry(trialId).study, trial, outcome, Date.now());
      return structuredClone(trial);
    });
  }

  failStale(
    studyId: number | null,
    graceMs: number,
    policy: RetryPolicy & { reason?: string; workerId?: string },
  ): Promise<StaleResult> {
    return attempt(() => {
      const now = Date.now();
      const failed: TrialRecord[] = [];
      const retries: TrialRecord[] = [];
      for (const study of this.studies.values()) {
        if (studyId !== null && study.record.id !== studyId) continue;
        const stale = [...study.unfinished]
          .sort((a, b) => a.number - b.number)
          .filter(
            (t) =>
              t.state === 'running' &&
              t.heartbeatAt !== null &&
              t.heartbeatAt < now - graceMs &&
              (policy.workerId === undefined || t.workerId === policy.workerId),
          );
        for (const trial of stale) {
          this.finish(
            study,
            trial,
            { state: 'fail', value: null, failReason: policy.reason ?? 'stale heartbeat' },
            now,
          );
          failed.push(structuredClone(trial));
          let depth = 0;
          for (let of = trial.retryOf; of !== null; of = study.trials[of]?.retryOf ?? null) depth++;
          if (depth < policy.maxRetries)
            retries.push(
              structuredClone(
                this.insertTrial(
                  study,
                  'waiting',
                  {
                    params: trial.params,
                    distributions: trial.distributions,
                    userAttrs: trial.userAttrs,
                    retryOf: trial.number,
                  },
                  null,
                ),
              ),
            );
        }
      }
      return { failed, retries };
    });
  }

  importStudy(study: StudyRecord, trials: readonly TrialRecord[]): Promise<StudyRecord> {
    return attempt(() => {
      if (this.studies.has(study.name)) throw studyExists(study.name);
      const record: StudyRecord = { ...structuredClone(study), id: this.nextStudyId++ };
      const copy = emptyStudy(record);
      for (const trial of [...trials].sort((a, b) => a.number - b.number)) {
        const t: TrialRecord = {
          ...structuredClone(trial),
          id: this.nextTrialId++,
          studyId: record.id,
        };
        copy.trials.push(t);
        if (t.state === 'waiting') copy.waiting.push(t);
        if (t.state === 'waiting' || t.state === 'running') copy.unfinished.add(t);
        this.byTrialId.set(t.id, { study: copy, trial: t });
      }
      this.studies.set(record.name, copy);
      return structuredClone(record);
    });
  }

  getTrial(trialId: number): Promise<TrialRecord> {
    return attempt(() => structuredClone(this.entry(trialId).trial));
  }

  getTrials(studyId: number, states?: readonly TrialState[]): Promise<TrialRecord[]> {
    return attempt(() => {
      const trials = this.studyById(studyId).trials;
      return structuredClone(
        states === undefined ? trials : trials.filter((t) => states.includes(t.state)),
      );
    });
  }

  refreshTrials(
    studyId: number,
    fromNumber: number,
    numbers: readonly number[],
  ): Promise<TrialRecord[]> {
    return attempt(() => {
      const study = this.studyById(studyId);
      const picked = new Set<TrialRecord>(study.unfinished);
      for (let n = Math.max(0, fromNumber); n < study.trials.length; n++) {
        const trial = study.trials[n];
        if (trial !== undefined) picked.add(trial);
      }
      for (const n of numbers) {
        const trial = study.trials[n];
        if (trial !== undefined) picked.add(trial);
      }
      return structuredClone([...picked].sort((a, b) => a.number - b.number));
    });
  }

  putArtifact(trialId: number, name: string, bytes: Uint8Array): Promise<void> {
    return attempt(() => {
      checkArtifactName(name);
      this.entry(trialId).study.artifacts.set(`${trialId}/${name}`, bytes.slice());
    });
  }

  getArtifact(trialId: number, name: string): Promise<Uint8Array> {
    return attempt(() => {
      const bytes = this.entry(trialId).study.artifacts.get(`${trialId}/${name}`);
      if (bytes === undefined) throw artifactNotFound(trialId, name);
      return bytes.slice();
    });
  }

  listArtifacts(trialId: number): Promise<string[]> {
    return attempt(() => {
      const prefix = `${trialId}/`;
      return [...this.entry(trialId).study.artifacts.keys()]
        .filter((k) => k.startsWith(prefix))
        .map((k) => k.slice(prefix.length))
        .sort();
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Runs `fn` as a promise, so a throw becomes a rejection as with the database storages. */
function attempt<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
