/*
 * What a study storage persists: plain JSON-able records, the same in memory, SQLite and
 * PostgreSQL. `tune/` builds Study and Trial on them; nothing here knows of samplers or objectives.
 */

/** Which way a study's objective is better. */
export type StudyDirection = 'minimize' | 'maximize';

/** A trial's life: waiting (enqueued) → running → complete | pruned | fail. */
export type TrialState = 'waiting' | 'running' | 'complete' | 'pruned' | 'fail';

/** The states a trial ends in; a trial in one of them never changes again. */
export const FINISHED_STATES: readonly TrialState[] = ['complete', 'pruned', 'fail'];

/** A parameter's value as the objective sees it. */
export type ParamValue = number | string | boolean | null;

/** A float range; `log` and `step` exclude each other. */
export interface FloatDistribution {
  type: 'float';
  low: number;
  high: number;
  log: boolean;
  /** Values are low + k × step; null for a continuous range. */
  step: number | null;
}

/** An integer range; `log` and a step other than 1 exclude each other. */
export interface IntDistribution {
  type: 'int';
  low: number;
  high: number;
  log: boolean;
  step: number;
}

/** One of a list of choices (JSON scalars). */
export interface CategoricalDistribution {
  type: 'categorical';
  choices: ParamValue[];
}

/** A parameter's search space, persisted beside its value. */
export type Distribution = FloatDistribution | IntDistribution | CategoricalDistribution;

/** JSON object of user attributes (anything JSON can hold). */
export type Attributes = Record<string, unknown>;

/** A study as stored. */
export interface StudyRecord {
  /** Storage-assigned id, unique within the storage. */
  id: number;
  /** Unique within the storage. */
  name: string;
  direction: StudyDirection;
  /** The user's attributes. */
  userAttrs: Attributes;
  /** tradelab's own settings for the study (sampler, pruner, objective), written at creation. */
  systemAttrs: Attributes;
  /** ms since the epoch. */
  createdAt: number;
}

/** A trial as stored. */
export interface TrialRecord {
  /** Storage-assigned id, unique within the storage. */
  id: number;
  studyId: number;
  /** 0, 1, 2, … within the study: dense, never reused, in creation order. */
  number: number;
  state: TrialState;
  /** Parameters suggested (or enqueued) so far, by name. */
  params: Record<string, ParamValue>;
  /** The distribution of each parameter in `params` (enqueued params may lack one until suggested). */
  distributions: Record<string, Distribution>;
  /** The objective's value: set when complete; the last reported value when pruned; else null. */
  value: number | null;
  /** Values reported with `trial.report(value, step)`, by step. */
  intermediate: Record<number, number>;
  userAttrs: Attributes;
  /** When the trial was enqueued or created (ms since the epoch). */
  createdAt: number;
  /** When it started running; null while waiting. */
  startedAt: number | null;
  /** When it finished; null until then. */
  finishedAt: number | null;
  /** Last heartbeat of the worker running it; null unless running. */
  heartbeatAt: number | null;
  /** The worker that claimed it; null while waiting. */
  workerId: string | null;
  /** The number of the failed trial this one retries; null if it is not a retry. */
  retryOf: number | null;
  /** Why it failed (an error message, "interrupted", "stale heartbeat", …); null otherwise. */
  failReason: string | null;
}

/**
 * A trial record from the fields a test or benchmark cares about, the rest defaulted: id number + 1,
 * studyId 1, state 'running', no params, distributions, value, reports or attributes, createdAt 0,
 * and heartbeatAt, workerId, retryOf and failReason null. The two timestamps follow the state, as a
 * storage would hold them: startedAt is createdAt (null while waiting), and finishedAt is startedAt
 * once complete, pruned or failed (null before). Any field given wins over its default.
 */
export function trialRecord(
  fields: Partial<TrialRecord> & Pick<TrialRecord, 'number'>,
): TrialRecord {
  const state = fields.state ?? 'running';
  const createdAt = fields.createdAt ?? 0;
  const startedAt =
    fields.startedAt !== undefined ? fields.startedAt : state === 'waiting' ? null : createdAt;
  return {
    id: fields.number + 1,
    studyId: 1,
    state,
    params: {},
    distributions: {},
    value: null,
    intermediate: {},
    userAttrs: {},
    createdAt,
    startedAt,
    finishedAt: FINISHED_STATES.includes(state) ? (startedAt ?? createdAt) : null,
    heartbeatAt: null,
    workerId: null,
    retryOf: null,
    failReason: null,
    ...fields,
  };
}
