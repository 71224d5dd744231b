/*
 * Asynchronous successive halving (ASHA; Optuna's `SuccessiveHalvingPruner`). Rung k sits at step
 * minResource × reductionFactor^(minEarlyStoppingRate + k). When a trial first reports a step at or
 * past a rung, it is promoted only if its value there is in the best 1/reductionFactor of every
 * value recorded at that rung so far (its own included); otherwise it is pruned.
 *
 * Optuna stores each trial's rung values as system attributes when it judges them. Our trial records
 * carry none, so the rung values are derived from the intermediate values: a trial's value at a rung
 * is the value of its first report at or past the rung's step — the value Optuna would have recorded
 * when the trial asked after that report. A rung the trial had already passed before its latest
 * report was judged then (and the trial, still running, was promoted), so it is not judged again.
 */
import { TradelabError } from '../../core/index.js';
import type { StudyDirection, TrialRecord } from '../../storage/records.js';
import type { Pruner, PrunerContext } from '../pruner.js';
import { wholeNumber } from './whole-number.js';

/** Options for {@link SuccessiveHalvingPruner}. */
export interface SuccessiveHalvingPrunerOptions {
  /**
   * Steps before the first rung (r in the ASHA paper), a whole number ≥ 1, or 'auto': the last step
   * of the first trial to complete ÷ 100, rounded down, at least 1 (no pruning until one completes).
   * Default 'auto'.
   */
  minResource?: number | 'auto' | undefined;
  /** How much each rung's step grows, and 1/x is the share promoted (η), ≥ 2. Default 4. */
  reductionFactor?: number | undefined;
  /** Rungs skipped at the start (s): the first rung is at minResource × η^s. Default 0. */
  minEarlyStoppingRate?: number | undefined;
  /** Values a rung must hold, the trial's own included, before any trial is promoted. Default 0. */
  bootstrapCount?: number | undefined;
}

/** ASHA: promotes the best 1/reductionFactor of the trials at each rung and prunes the rest. */
export class SuccessiveHalvingPruner implements Pruner {
  readonly description: string;
  private readonly minResource: number | 'auto';
  private readonly reductionFactor: number;
  private readonly minEarlyStoppingRate: number;
  private readonly bootstrapCount: number;

  constructor(options: SuccessiveHalvingPrunerOptions = {}) {
    const minResource = options.minResource ?? 'auto';
    this.minResource =
      minResource === 'auto' ? 'auto' : wholeNumber('minResource', minResource, 1, "or 'auto'");
    this.reductionFactor = wholeNumber('reductionFactor', options.reductionFactor ?? 4, 2);
    this.minEarlyStoppingRate = wholeNumber(
      'minEarlyStoppingRate',
      options.minEarlyStoppingRate ?? 0,
      0,
    );
    this.bootstrapCount = wholeNumber('bootstrapCount', options.bootstrapCount ?? 0, 0);
    if (this.bootstrapCount > 0 && this.minResource === 'auto') {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `pruner option bootstrapCount (${this.bootstrapCount}) needs a fixed minResource, got 'auto'`,
        { hint: 'Set minResource to a number of steps, or leave bootstrapCount at 0.' },
      );
    }
    this.description =
      `successive halving (min resource ${this.minResource}, reduction factor ` +
      `${this.reductionFactor}, min early-stopping rate ${this.minEarlyStoppingRate}` +
      (this.bootstrapCount > 0 ? `, bootstrap ${this.bootstrapCount})` : ')');
  }

  shouldPrune(context: PrunerContext): boolean {
    const reports = reportsOf(context.trial);
    const latest = reports.find((r) => r.step === context.step) ?? reports.at(-1);
    if (latest === undefined) return false;
    const minResource =
      this.minResource === 'auto' ? estimateMinResource(context.trials) : this.minResource;
    if (minResource === undefined) return false;
    const previousStep = reports.filter((r) => r.step < latest.step).at(-1)?.step ?? -Infinity;

    for (let rung = 0; ; rung++) {
      const rungStep = this.rungStep(minResource, rung);
      if (latest.step < rungStep) return false;
      if (previousStep >= rungStep) continue;
      if (Number.isNaN(latest.value)) return true;
      const competing = context.trials.flatMap((t) => {
        const value = valueAtRung(t, rungStep);
        return value === undefined || Number.isNaN(value) ? [] : [value];
      });
      competing.push(latest.value);
      if (competing.length <= this.bootstrapCount) return true;
      if (!isPromotable(latest.value, competing, this.reductionFactor, context.direction)) {
        return true;
      }
    }
  }

  /** The step of a rung, given the resolved minimum resource. */
  rungStep(minResource: number, rung: number): number {
    return minResource * this.reductionFactor ** (this.minEarlyStoppingRate + rung);
  }
}

interface Report {
  step: number;
  value: number;
}

/** A trial's reports in increasing step order. */
function reportsOf(trial: TrialRecord): Report[] {
  return Object.entries(trial.intermediate)
    .map(([step, value]) => ({ step: Number(step), value }))
    .sort((a, b) => a.step - b.step);
}

/** A trial's value at the rung at `rungStep`: its first report at or past it; none if not there. */
function valueAtRung(trial: TrialRecord, rungStep: number): number | undefined {
  let firstStep = Infinity;
  let value: number | undefined;
  for (const [key, reported] of Object.entries(trial.intermediate)) {
    const step = Number(key);
    if (step >= rungStep && step < firstStep) {
      firstStep = step;
      value = reported;
    }
  }
  return value;
}

/**
 * The first complete trial (earliest finish, then lowest number) among those that reported
 * anything: taken as the one whose length sets an 'auto' resource. Fixed once it exists, so the
 * rungs do not move as more trials complete (Optuna fixes it in memory on first use instead).
 */
export function firstCompleteTrialLastStep(trials: readonly TrialRecord[]): number | undefined {
  let first: TrialRecord | undefined;
  let lastStep: number | undefined;
  for (const trial of trials) {
    if (trial.state !== 'complete') continue;
    const steps = Object.keys(trial.intermediate).map(Number);
    if (steps.length === 0) continue;
    if (first !== undefined && !finishedBefore(trial, first)) continue;
    first = trial;
    lastStep = Math.max(...steps);
  }
  return lastStep;
}

function finishedBefore(a: TrialRecord, b: TrialRecord): boolean {
  const aAt = a.finishedAt ?? Infinity;
  const bAt = b.finishedAt ?? Infinity;
  return aAt !== bAt ? aAt < bAt : a.number < b.number;
}

/** Optuna's heuristic for 'auto': the first complete trial's last step ÷ 100, at least 1. */
function estimateMinResource(trials: readonly TrialRecord[]): number | undefined {
  const lastStep = firstCompleteTrialLastStep(trials);
  return lastStep === undefined ? undefined : Math.max(Math.floor(lastStep / 100), 1);
}

/**
 * Whether `value` is among the best ⌊n/η⌋ of the n competing values (its own included). With fewer
 * than η values no trial could be promoted by that rule, and ASHA cannot pause a trial until more
 * arrive, so then only a value equal to the best so far is promoted (as in Optuna).
 */
function isPromotable(
  value: number,
  competing: number[],
  reductionFactor: number,
  direction: StudyDirection,
): boolean {
  const promotable = Math.max(Math.floor(competing.length / reductionFactor), 1);
  competing.sort((a, b) => (direction === 'maximize' ? b - a : a - b));
  const worstPromoted = competing[promotable - 1] ?? value;
  return direction === 'maximize' ? value >= worstPromoted : value <= worstPromoted;
}
