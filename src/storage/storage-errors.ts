import { TradelabError } from '../core/index.js';
import { closestMatch } from '../core/closest-match.js';
import type { ParamValue, TrialRecord, TrialState } from './records.js';
import type { TrialOutcome } from './study-storage.js';

/*
 * The errors every storage throws, worded once so memory, SQLite and PostgreSQL say the same.
 */

export function studyNotFound(name: string, known: readonly string[]): TradelabError {
  const near = closestMatch(name, known);
  return new TradelabError('STUDY_NOT_FOUND', `no study named "${name}"`, {
    hint:
      known.length === 0
        ? 'create one with `tradelab study create NAME`'
        : `${near === undefined ? '' : `did you mean "${near}"? `}studies: ${known.join(', ')}`,
    details: { study: name },
  });
}

export function studyExists(name: string): TradelabError {
  return new TradelabError('STUDY_EXISTS', `a study named "${name}" already exists`, {
    hint: 'pick another name, or pass --load-if-exists to continue it',
    details: { study: name },
  });
}

export function trialNotFound(trialId: number): TradelabError {
  return new TradelabError('TRIAL_NOT_FOUND', `no trial with id ${trialId}`, {
    hint: 'list the study’s trials with `tradelab study trials NAME`',
    details: { trialId },
  });
}

export function notInState(
  trial: Pick<TrialRecord, 'id' | 'number' | 'state' | 'failReason'>,
  action: string,
  allowed: readonly TrialState[],
): TradelabError {
  const why = trial.failReason === null ? '' : ` (${trial.failReason})`;
  return new TradelabError(
    'STORAGE_CONFLICT',
    `cannot ${action} trial ${trial.number}: it is ${trial.state}${why}, not ${allowed.join(' or ')}`,
    {
      hint:
        trial.state === 'fail'
          ? 'its heartbeat may have gone stale (another worker failed and re-enqueued it): raise heartbeatGrace'
          : 'a finished trial never changes; start a new one',
      details: { trialId: trial.id, number: trial.number, state: trial.state },
    },
  );
}

export function paramConflict(
  number: number,
  name: string,
  stored: ParamValue,
  value: ParamValue,
): TradelabError {
  return new TradelabError(
    'STORAGE_CONFLICT',
    `trial ${number}: parameter "${name}" is already ${JSON.stringify(stored)}, cannot set ${JSON.stringify(value)}`,
    { hint: 'a parameter, once set, never changes', details: { number, name } },
  );
}

export function artifactNotFound(trialId: number, name: string): TradelabError {
  return new TradelabError('ARTIFACT_NOT_FOUND', `trial ${trialId} has no artifact "${name}"`, {
    hint: 'list them with listArtifacts(trialId)',
    details: { trialId, name },
  });
}

/** Throws unless `outcome` is a valid way to end a trial. */
export function checkOutcome(outcome: TrialOutcome): void {
  const { state, value } = outcome;
  if (state === 'complete' && (value === null || !Number.isFinite(value)))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `a complete trial needs a finite value, got ${String(value)}`,
      { hint: 'return a finite number from the objective, or end the trial as fail' },
    );
  if (state === 'pruned' && value !== null && !Number.isFinite(value))
    throw new TradelabError('INVALID_ARGUMENT', `a pruned trial's value must be finite or null`, {
      hint: 'report finite intermediate values',
    });
  if (state === 'fail' && value !== null)
    throw new TradelabError('INVALID_ARGUMENT', `a failed trial has no value, got ${value}`, {
      hint: 'end it as complete with its value, or as fail with value null',
    });
  if (state === 'fail' && (outcome.failReason === undefined || outcome.failReason === ''))
    throw new TradelabError('INVALID_ARGUMENT', 'a failed trial needs a reason', {
      hint: 'pass failReason, e.g. the error message',
    });
}

/** Throws unless `step` is a non-negative integer and `value` a number (NaN allowed). */
export function checkReport(step: number, value: number): void {
  if (!Number.isSafeInteger(step) || step < 0)
    throw new TradelabError('INVALID_ARGUMENT', `report step must be an integer ≥ 0, got ${step}`, {
      hint: 'report(value, step) with step = epoch, fold or update index',
    });
  if (typeof value !== 'number')
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `report value must be a number, got ${typeof value}`,
    );
}
