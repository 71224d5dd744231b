import type { TrialRecord } from './records.js';

/**
 * How many of a study's `trials` count toward a target (see ClaimTarget in study-storage.ts):
 * running, complete and pruned ones, and failed ones that no trial retries. The SQL storages
 * count the same in their claim statement.
 */
export function countTowardTarget(trials: readonly TrialRecord[]): number {
  const retried = new Set<number>();
  for (const t of trials) if (t.retryOf !== null) retried.add(t.retryOf);
  let count = 0;
  for (const t of trials)
    if (t.state === 'fail' ? !retried.has(t.number) : t.state !== 'waiting') count++;
  return count;
}

/**
 * The statement both SQL storages count with, {@link countTowardTarget} in SQL; `study` is the
 * dialect's placeholder for the study id (`?`, `$1`). Returns one row, `{ n }`.
 */
export function countTowardTargetSql(study: string): string {
  return `SELECT count(*) AS n FROM trials t WHERE t.study_id = ${study} AND t.state <> 'waiting'
    AND NOT (t.state = 'fail' AND EXISTS (
      SELECT 1 FROM trials r WHERE r.study_id = t.study_id AND r.retry_of = t.number))`;
}
