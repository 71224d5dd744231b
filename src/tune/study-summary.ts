import type { StudyDirection, TrialRecord, TrialState } from '../storage/records.js';
import { bestOf } from './study.js';

/*
 * A study's trials in numbers, from its records alone and with no I/O: `study show`, `study list`,
 * `study run`, `GET /api/studies`, the dashboard and a campaign's table and report all print these
 * figures, so one study reads the same everywhere.
 *
 * The one rule for retried failures: a failed trial whose retry exists (a trial lost with its worker
 * is failed and enqueued again with the same parameters) is `retried`, not `failed`, and does not
 * count toward `done`: its retry counts instead once it ends. Its time still counts in the mean
 * duration and the wall time, since a worker spent it.
 */

/** Trials in each state, as stored. */
export type StateCounts = Record<TrialState, number>;

/** The counts a summary prints everywhere (CLI JSON, API, dashboard), as one object. */
export interface TrialCounts {
  /** Every trial record, waiting, running and retried ones included. */
  total: number;
  complete: number;
  pruned: number;
  /** Failed and not retried. */
  failed: number;
  /** Failed and enqueued again (their retries count instead). */
  retried: number;
  running: number;
  /** Enqueued trials, retries of lost trials among them. */
  waiting: number;
  /** Trials that count toward a target: complete + pruned + failed. */
  done: number;
}

/** A study's trials in numbers. */
export interface StudySummary extends TrialCounts {
  /** Records per state, as stored (`fail` includes the retried failures). */
  states: StateCounts;
  /** The best complete trial (the earliest among equals); undefined when none is complete. */
  best: TrialRecord | undefined;
  /** complete / done; null when none is done. */
  completionRate: number | null;
  /** pruned / done; null when none is done. */
  pruneRate: number | null;
  /** Trials with a start and an end time, retried failures included: the mean duration's count. */
  ended: number;
  /** Mean of finishedAt − startedAt over the ended trials (ms); null when none ended. */
  meanDurationMs: number | null;
  /** When the first trial started (ms since the epoch); null when none did. */
  firstStart: number | null;
  /** When the last trial ended (ms since the epoch); null when none did. */
  lastEnd: number | null;
  /**
   * Trials done per hour of wall time from the first start to the last end: the study's
   * throughput with all its workers. Null without a done trial or without elapsed time.
   */
  perHour: number | null;
}

/** Every trial state, in the order a trial goes through them (table columns use it). */
export const TRIAL_STATES: readonly TrialState[] = [
  'waiting',
  'running',
  'complete',
  'pruned',
  'fail',
];

/** How many trials are in each state, as stored. */
export function countStates(trials: readonly TrialRecord[]): StateCounts {
  const counts: StateCounts = { waiting: 0, running: 0, complete: 0, pruned: 0, fail: 0 };
  for (const trial of trials) counts[trial.state]++;
  return counts;
}

/** How long a trial ran (finish − start) in ms; null unless it started and finished. */
export function trialDurationMs(trial: TrialRecord): number | null {
  if (trial.startedAt === null || trial.finishedAt === null) return null;
  return trial.finishedAt - trial.startedAt;
}

/** The numbers of the failed trials that were enqueued again. */
export function retriedTrials(trials: readonly TrialRecord[]): Set<number> {
  const retried = new Set<number>();
  for (const trial of trials) if (trial.retryOf !== null) retried.add(trial.retryOf);
  return retried;
}

/** A summary's counts as one object. */
export function countsOf(summary: StudySummary): TrialCounts {
  const { total, done, complete, pruned, failed, retried, running, waiting } = summary;
  return { total, done, complete, pruned, failed, retried, running, waiting };
}

/** The figures a study is shown with, in the CLI's JSON, the API and the dashboard alike. */
export interface StudyFigures {
  counts: TrialCounts;
  best: { number: number; value: number | null } | null;
  perHour: number | null;
  meanDurationMs: number | null;
  completionRate: number | null;
  pruneRate: number | null;
}

/** A summary's figures, as `study list --json` and `GET /api/studies` give them. */
export function studyFigures(summary: StudySummary): StudyFigures {
  const { best } = summary;
  return {
    counts: countsOf(summary),
    best: best === undefined ? null : { number: best.number, value: best.value },
    perHour: summary.perHour,
    meanDurationMs: summary.meanDurationMs,
    completionRate: summary.completionRate,
    pruneRate: summary.pruneRate,
  };
}

/** The summary of a study with `direction` from its trials. */
export function summarizeStudy(
  direction: StudyDirection,
  trials: readonly TrialRecord[],
): StudySummary {
  const states = countStates(trials);
  const retriedNumbers = retriedTrials(trials);
  const retried = trials.filter((t) => t.state === 'fail' && retriedNumbers.has(t.number)).length;
  const failed = states.fail - retried;
  const done = states.complete + states.pruned + failed;
  let firstStart: number | null = null;
  let lastEnd: number | null = null;
  let durationSum = 0;
  let timed = 0;
  for (const trial of trials) {
    if (trial.startedAt !== null) firstStart = Math.min(firstStart ?? Infinity, trial.startedAt);
    const duration = trialDurationMs(trial);
    if (duration === null || trial.finishedAt === null) continue;
    lastEnd = Math.max(lastEnd ?? -Infinity, trial.finishedAt);
    durationSum += duration;
    timed++;
  }
  const wallMs = firstStart === null || lastEnd === null ? 0 : lastEnd - firstStart;
  return {
    total: trials.length,
    states,
    complete: states.complete,
    pruned: states.pruned,
    failed,
    retried,
    running: states.running,
    waiting: states.waiting,
    done,
    best: bestOf(trials, direction),
    completionRate: done === 0 ? null : states.complete / done,
    pruneRate: done === 0 ? null : states.pruned / done,
    ended: timed,
    meanDurationMs: timed === 0 ? null : durationSum / timed,
    firstStart,
    lastEnd,
    perHour: done === 0 || wallMs <= 0 ? null : done / (wallMs / 3_600_000),
  };
}

/**
 * The summary of several studies' trials together (a campaign's total) from their summaries:
 * counts summed, the mean duration over all their ended trials, the rate over the whole span from
 * the first start to the last end, and the best of their bests in `direction`.
 */
export function combineSummaries(
  parts: readonly StudySummary[],
  direction: StudyDirection,
): StudySummary {
  const sum = (f: (s: StudySummary) => number): number => parts.reduce((t, s) => t + f(s), 0);
  const states = countStates([]);
  for (const part of parts) for (const state of TRIAL_STATES) states[state] += part.states[state];
  const starts = parts.flatMap((s) => (s.firstStart === null ? [] : [s.firstStart]));
  const ends = parts.flatMap((s) => (s.lastEnd === null ? [] : [s.lastEnd]));
  const firstStart = starts.length === 0 ? null : Math.min(...starts);
  const lastEnd = ends.length === 0 ? null : Math.max(...ends);
  const wallMs = firstStart === null || lastEnd === null ? 0 : lastEnd - firstStart;
  const done = sum((s) => s.done);
  const ended = sum((s) => s.ended);
  return {
    total: sum((s) => s.total),
    states,
    complete: states.complete,
    pruned: states.pruned,
    failed: sum((s) => s.failed),
    retried: sum((s) => s.retried),
    running: states.running,
    waiting: states.waiting,
    done,
    best: bestOf(
      parts.flatMap((s) => (s.best === undefined ? [] : [s.best])),
      direction,
    ),
    completionRate: done === 0 ? null : states.complete / done,
    pruneRate: done === 0 ? null : states.pruned / done,
    ended,
    meanDurationMs: ended === 0 ? null : sum((s) => (s.meanDurationMs ?? 0) * s.ended) / ended,
    firstStart,
    lastEnd,
    perHour: done === 0 || wallMs <= 0 ? null : done / (wallMs / 3_600_000),
  };
}
