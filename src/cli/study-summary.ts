import { isTradelabError } from '../core/index.js';
import type {
  Attributes,
  ParamValue,
  StudyDirection,
  TrialRecord,
  TrialState,
} from '../storage/index.js';
import { duration } from './format.js';
import {
  bestOf,
  createPruner,
  createSampler,
  PRUNED_VALUE_MEANING,
  prunedValueStep,
  specsOf,
} from '../tune/index.js';

/*
 * What the study commands print about a study (`show` above all; `list`, `run` and `trials` too),
 * computed from its records with no I/O, so the arithmetic and formats are unit-tested apart from
 * the storage and the CLI.
 */

/** Trials in each state. */
export type StateCounts = Record<TrialState, number>;

/** A study's trials in numbers. */
export interface StudySummary {
  /** All trials, waiting and running included. */
  total: number;
  states: StateCounts;
  /** complete + pruned + fail. */
  finished: number;
  /** The best complete trial (the earliest among equals); undefined when none is complete. */
  best: TrialRecord | undefined;
  /** Complete trials / finished trials; null when none finished. */
  completionRate: number | null;
  /** Pruned trials / finished trials; null when none finished. */
  pruneRate: number | null;
  /** Mean of finishedAt − startedAt over finished trials, in ms; null when none finished. */
  meanDurationMs: number | null;
  /** Start of the first trial to start (ms since the epoch); null when none started. */
  firstStartedAt: number | null;
  /** End of the last trial to finish (ms since the epoch); null when none finished. */
  lastFinishedAt: number | null;
  /**
   * Finished trials per hour of wall time from the first start to the last finish: the study's
   * throughput with all its workers. Null without a finished trial or without elapsed time.
   */
  trialsPerHour: number | null;
}

/** Every trial state, in the order a trial goes through them (table columns use it). */
export const TRIAL_STATES: readonly TrialState[] = [
  'waiting',
  'running',
  'complete',
  'pruned',
  'fail',
];

/** How many trials are in each state. */
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

/** The summary of a study with `direction` from its trials. */
export function summarizeStudy(
  direction: StudyDirection,
  trials: readonly TrialRecord[],
): StudySummary {
  const states = countStates(trials);
  const finished = states.complete + states.pruned + states.fail;
  let firstStartedAt: number | null = null;
  let lastFinishedAt: number | null = null;
  let durationSum = 0;
  let timed = 0;
  for (const trial of trials) {
    if (trial.startedAt !== null)
      firstStartedAt = Math.min(firstStartedAt ?? Infinity, trial.startedAt);
    const duration = trialDurationMs(trial);
    if (duration === null || trial.finishedAt === null) continue;
    lastFinishedAt = Math.max(lastFinishedAt ?? -Infinity, trial.finishedAt);
    durationSum += duration;
    timed++;
  }
  const wallMs =
    firstStartedAt === null || lastFinishedAt === null ? 0 : lastFinishedAt - firstStartedAt;
  return {
    total: trials.length,
    states,
    finished,
    best: bestOf(trials, direction),
    completionRate: finished === 0 ? null : states.complete / finished,
    pruneRate: finished === 0 ? null : states.pruned / finished,
    meanDurationMs: timed === 0 ? null : durationSum / timed,
    firstStartedAt,
    lastFinishedAt,
    trialsPerHour: finished === 0 || wallMs <= 0 ? null : finished / (wallMs / 3_600_000),
  };
}

/** The sampler and pruner of a study, described from the specs in its system attributes. */
export interface ComponentDescriptions {
  sampler: string;
  pruner: string;
}

/**
 * Describes the sampler and pruner a study's system attributes specify. Specs this version cannot
 * read (written by a newer tradelab, or by hand) are described as such rather than failing a
 * listing of every study.
 */
export function describeComponents(systemAttrs: Attributes): ComponentDescriptions {
  try {
    const specs = specsOf(systemAttrs);
    return {
      sampler: createSampler(specs.sampler).description,
      pruner: createPruner(specs.pruner).description,
    };
  } catch (error) {
    if (!isTradelabError(error)) throw error;
    const unreadable = `unreadable spec (${error.message})`;
    return { sampler: unreadable, pruner: unreadable };
  }
}

/** A parameter value for humans: numbers to 6 significant digits, strings as they are. */
export function formatParamValue(value: ParamValue): string {
  if (typeof value === 'number') return formatNumber(value);
  return String(value);
}

/** Parameters as `name=value, …` in the order they were suggested. */
export function formatParams(params: Record<string, ParamValue>): string {
  const entries = Object.entries(params);
  if (entries.length === 0) return '(none)';
  return entries.map(([name, value]) => `${name}=${formatParamValue(value)}`).join(', ');
}

/** An objective value or statistic to `digits` significant digits; `-` for null. */
export function formatNumber(x: number | null, digits = 6): string {
  if (x === null) return '-';
  if (!Number.isFinite(x) || x === 0) return String(x);
  if (Math.abs(x) < 1e-4 || Math.abs(x) >= 1e15)
    return x.toExponential(digits - 1).replace(/\.?0+e/, 'e');
  return Number(x.toPrecision(digits)).toString();
}

/**
 * A trial's value for a table: a pruned trial's says it is intermediate and from which step
 * (`0.5596 (intermediate, step 1)`; with `splits`, a trading study's, `(intermediate, split 2)`,
 * counted from 1), as {@link prunedValueNote} explains under the table.
 */
export function formatTrialValue(trial: TrialRecord, splits = false): string {
  const pruned = prunedValueStep(trial);
  const value = formatNumber(trial.value);
  if (pruned === undefined || trial.value === null) return value;
  return `${value} (intermediate, ${splits ? `split ${pruned.step + 1}` : `step ${pruned.step}`})`;
}

/** The line under a table of trials that shows a pruned one's value; undefined when none does. */
export function prunedValueNote(trials: readonly TrialRecord[]): string | undefined {
  return trials.some((t) => t.value !== null && prunedValueStep(t) !== undefined)
    ? `intermediate: ${PRUNED_VALUE_MEANING}.`
    : undefined;
}

/** A trial duration: ms below a second, seconds to one decimal below two minutes, then words. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return duration(ms);
}

/** A fraction as a percentage with one decimal, `-` for null. */
export function formatRate(fraction: number | null): string {
  return fraction === null ? '-' : `${(fraction * 100).toFixed(1)}%`;
}

/** The union of the trials' parameter names, in the order they first appear (table columns). */
export function paramNames(trials: readonly TrialRecord[]): string[] {
  const names = new Set<string>();
  for (const trial of trials) for (const name of Object.keys(trial.params)) names.add(name);
  return [...names];
}

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV line of fields, without its line break. */
export function csvLine(fields: readonly string[]): string {
  return fields.map(csvField).join(',');
}
