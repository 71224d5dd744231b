import type { StudyDirection, TrialRecord } from '../storage/records.js';

/*
 * What a campaign's table says of one study, from its stored trials alone, so that a run, `campaign
 * status` on another machine and the report agree.
 */

/** One study's trials, counted. */
export interface StudyCounts {
  /**
   * Trials that count toward the study's target: complete, pruned and failed ones, less the failed
   * ones that were retried (their retry counts instead once it ends).
   */
  done: number;
  complete: number;
  pruned: number;
  /** Failed and not retried. */
  failed: number;
  running: number;
  /** Enqueued, or retries of interrupted trials. */
  waiting: number;
  /** The best complete trial, if any. */
  best: TrialRecord | undefined;
  /** When the first trial started and the last one ended (ms since the epoch), if any did. */
  firstStart: number | null;
  lastEnd: number | null;
  /** Mean duration of the trials that ended (ms), if any did. */
  meanDurationMs: number | null;
  /** Trials that ended per hour of the study's running time (first start to last end). */
  perHour: number | null;
}

/** Counts `trials` of a study of `direction`. */
export function countTrials(
  trials: readonly TrialRecord[],
  direction: StudyDirection,
): StudyCounts {
  const retried = new Set<number>();
  for (const t of trials) if (t.retryOf !== null) retried.add(t.retryOf);
  let complete = 0;
  let pruned = 0;
  let failed = 0;
  let running = 0;
  let waiting = 0;
  let best: TrialRecord | undefined;
  let firstStart: number | null = null;
  let lastEnd: number | null = null;
  let durations = 0;
  let ended = 0;
  for (const t of trials) {
    if (t.startedAt !== null) firstStart = Math.min(firstStart ?? t.startedAt, t.startedAt);
    if (t.state === 'running') running++;
    else if (t.state === 'waiting') waiting++;
    else {
      if (t.finishedAt !== null) {
        lastEnd = Math.max(lastEnd ?? t.finishedAt, t.finishedAt);
        if (t.startedAt !== null) {
          durations += t.finishedAt - t.startedAt;
          ended++;
        }
      }
      if (t.state === 'complete') {
        complete++;
        if (t.value !== null && (best === undefined || better(t, best, direction))) best = t;
      } else if (t.state === 'pruned') pruned++;
      else if (!retried.has(t.number)) failed++;
    }
  }
  const done = complete + pruned + failed;
  const hours =
    firstStart === null || lastEnd === null ? 0 : Math.max(lastEnd - firstStart, 0) / 3_600_000;
  return {
    done,
    complete,
    pruned,
    failed,
    running,
    waiting,
    best,
    firstStart,
    lastEnd,
    meanDurationMs: ended === 0 ? null : durations / ended,
    perHour: hours > 0 && done > 0 ? done / hours : null,
  };
}

function better(a: TrialRecord, b: TrialRecord, direction: StudyDirection): boolean {
  const x = a.value as number;
  const y = b.value as number;
  if (x === y) return a.number < b.number;
  return direction === 'maximize' ? x > y : x < y;
}

/** Hours until `target` trials are done at `perHour`, or null when it cannot be said. */
export function etaHours(counts: StudyCounts, target: number): number | null {
  const left = Math.max(0, target - counts.done);
  if (left === 0) return 0;
  return counts.perHour === null ? null : left / counts.perHour;
}
