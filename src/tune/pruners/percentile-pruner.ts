/*
 * The percentile rule (Optuna's `PercentilePruner`): at a pruning step, stop the trial when the
 * best value it has reported so far is worse than the given percentile of what the complete trials
 * reported at that same step.
 */
import { TradelabError } from '../../core/index.js';
import type { StudyDirection, TrialRecord } from '../../storage/records.js';
import type { Pruner, PrunerContext } from '../pruner.js';
import { wholeNumber } from './whole-number.js';

/** Options shared by {@link PercentilePruner} and the median pruner. */
export interface PercentilePrunerOptions {
  /** Complete trials the study needs before any trial is pruned. Default 5. */
  nStartupTrials?: number | undefined;
  /** Steps below this are never pruned; the earliest pruning step is `nWarmupSteps`. Default 0. */
  nWarmupSteps?: number | undefined;
  /**
   * Steps between pruning checks, counted from `nWarmupSteps`. A check whose step was not reported
   * happens at the next reported step instead. Default 1.
   */
  intervalSteps?: number | undefined;
  /** Complete trials that must have reported the step for it to be judged at all. Default 1. */
  nMinTrials?: number | undefined;
}

/**
 * Keeps the trials in the better `percentile` percent at each step: with 25, a trial is pruned
 * unless its best value so far is in the top quarter of the complete trials' values at the step.
 *
 * NaN: a trial whose every reported value is NaN is pruned; NaN values of complete trials are left
 * out of the percentile (but count towards `nMinTrials`, as in Optuna).
 */
export class PercentilePruner implements Pruner {
  readonly description: string;
  private readonly percentile: number;
  private readonly nStartupTrials: number;
  private readonly nWarmupSteps: number;
  private readonly intervalSteps: number;
  private readonly nMinTrials: number;

  constructor(percentile: number, options: PercentilePrunerOptions = {}) {
    if (!Number.isFinite(percentile) || percentile < 0 || percentile > 100) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `pruner percentile must be between 0 and 100, got ${percentile}`,
        { hint: 'Pass the share of trials to keep at each step in percent, e.g. 25.' },
      );
    }
    this.percentile = percentile;
    this.nStartupTrials = wholeNumber('nStartupTrials', options.nStartupTrials ?? 5, 0);
    this.nWarmupSteps = wholeNumber('nWarmupSteps', options.nWarmupSteps ?? 0, 0);
    this.intervalSteps = wholeNumber('intervalSteps', options.intervalSteps ?? 1, 1);
    this.nMinTrials = wholeNumber('nMinTrials', options.nMinTrials ?? 1, 1);
    this.description = `percentile ${percentile} (${this.describeRules()})`;
  }

  shouldPrune(context: PrunerContext): boolean {
    const complete = context.trials.filter((t) => t.state === 'complete');
    if (complete.length === 0 || complete.length < this.nStartupTrials) return false;
    const steps = reportedSteps(context.trial);
    if (steps.length === 0) return false;
    const { step, direction } = context;
    if (step < this.nWarmupSteps) return false;
    if (!this.isFirstReportInInterval(step, steps)) return false;

    const best = bestValue(Object.values(context.trial.intermediate), direction);
    if (Number.isNaN(best)) return true;
    const atStep = complete.flatMap((t) => {
      const value = t.intermediate[step];
      return value === undefined ? [] : [value];
    });
    if (atStep.length < this.nMinTrials) return false;
    // For maximize, "worse than the p-th percentile from the bottom" mirrors to the (100 − p)-th.
    const q = direction === 'maximize' ? 100 - this.percentile : this.percentile;
    const threshold = nanPercentile(atStep, q);
    if (Number.isNaN(threshold)) return false;
    return direction === 'maximize' ? best < threshold : best > threshold;
  }

  /** The rules after the percentile, for descriptions: "5 startup trials, 0 warm-up steps, …". */
  protected describeRules(): string {
    return (
      `${this.nStartupTrials} startup trials, ${this.nWarmupSteps} warm-up steps, ` +
      `interval ${this.intervalSteps}, min ${this.nMinTrials} trials per step`
    );
  }

  /**
   * Whether `step` is the trial's first report in its pruning interval, so that a trial reporting
   * every step is judged once per interval, and one that skipped the interval's first step is
   * judged at its next report.
   */
  private isFirstReportInInterval(step: number, steps: readonly number[]): boolean {
    const offset = step - this.nWarmupSteps;
    const intervalStart =
      Math.floor(offset / this.intervalSteps) * this.intervalSteps + this.nWarmupSteps;
    const previous = steps.reduce((max, s) => (s !== step && s > max ? s : max), -1);
    return previous < intervalStart;
  }
}

/** The steps a trial has reported, in increasing order. */
function reportedSteps(trial: TrialRecord): number[] {
  return Object.keys(trial.intermediate)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The best of some values ignoring NaN, NaN when all are (numpy's nanmax / nanmin). */
function bestValue(values: readonly number[], direction: StudyDirection): number {
  let best = NaN;
  for (const value of values) {
    if (Number.isNaN(value)) continue;
    if (Number.isNaN(best) || (direction === 'maximize' ? value > best : value < best)) {
      best = value;
    }
  }
  return best;
}

/** The q-th percentile (0–100) of the non-NaN values, interpolated linearly as numpy does. */
export function nanPercentile(values: readonly number[], q: number): number {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const position = (q / 100) * (sorted.length - 1);
  const lower = Math.floor(position);
  const fraction = position - lower;
  const low = sorted[lower] ?? NaN;
  if (fraction === 0) return low;
  const high = sorted[lower + 1] ?? low;
  return low + (high - low) * fraction;
}
