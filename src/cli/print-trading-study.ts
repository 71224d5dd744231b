import { describeBarRange } from '../data/index.js';
import {
  type SplitResult,
  describeDrlStudy,
  type DrlStudySpec,
  trialBudget,
  type TrialBudget,
  type StudyDeflatedSharpe,
} from '../trading/index.js';
import type { TrialRecord } from '../storage/index.js';
import type { RangeEvaluation } from '../eval/index.js';
import { count, num } from './format.js';
import { renderTable, type Output } from './output.js';
import { printEvaluation } from './print-evaluation.js';

/*
 * What `study show` adds for a trading study: its settings, why trials failed, the best trial's
 * per-split metrics, and that trial's model on the holdout beside buy-and-hold.
 */

/** The trading study's rows for the study table. */
export function tradingStudyRows(
  spec: DrlStudySpec,
  trials: readonly TrialRecord[],
): [string, string][] {
  const rows = describeDrlStudy(spec);
  const causes = new Map<string, number>();
  for (const t of trials)
    if (t.state === 'fail') {
      // The cause is the reason's first clause: "exceeds memory budget", "out of memory in split 2".
      const cause = (t.failReason ?? 'unknown').split(':')[0] ?? 'unknown';
      causes.set(cause, (causes.get(cause) ?? 0) + 1);
    }
  if (causes.size > 0)
    rows.push([
      'failures',
      [...causes.entries()].map(([cause, n]) => `${n} × ${cause}`).join('; '),
    ]);
  return rows;
}

/** A trading trial's step budget, from the study's spec and the trial's parameters. */
export function budgetOf(spec: DrlStudySpec, trial: TrialRecord): TrialBudget {
  return trialBudget(spec.params, trial.params, spec.budgetScale);
}

/**
 * What a trial's breakStep came to, in words: `breakStep 110,000 × 0.11 = 12,100 → 12,288 env
 * steps per split (12 updates of 1,024)`, so a reader does not take breakStep for what ran.
 */
export function describeBudget(budget: TrialBudget): string {
  const scaled =
    budget.budgetScale === 1
      ? `breakStep ${count(budget.breakStep)}`
      : `breakStep ${count(budget.breakStep)} × ${budget.budgetScale} (the study's budget scale) = ${count(budget.scaledBreakStep)}`;
  return `${scaled} → ${count(budget.stepsPerSplit)} env steps per split (${count(budget.updates)} ${budget.updates === 1 ? 'update' : 'updates'} of ${count(budget.targetStep)})`;
}

/** The bars of a study's data: their times, and the timeframe they are printed at. */
export interface StudyBars {
  timestamps: Float64Array;
  timeframe: DrlStudySpec['data']['timeframe'];
}

/** The best trial's splits, one row each; with `bars`, their test ranges as times. */
export function printSplits(out: Output, trial: TrialRecord, bars?: StudyBars): void {
  const splits = (trial.userAttrs.splits ?? []) as SplitResult[];
  if (splits.length === 0) return;
  out.line(`Trial ${trial.number} by split (out-of-sample):`);
  const ranges = (r: SplitResult['test']): string =>
    r
      .map((range) =>
        bars === undefined
          ? `[${range[0]}, ${range[1]})`
          : describeBarRange(range, bars.timestamps, bars.timeframe),
      )
      .join(' + ');
  for (const line of renderTable(splits, [
    { header: 'SPLIT', value: (s) => String(s.split), right: true },
    { header: 'TEST', value: (s) => ranges(s.test) },
    { header: 'SHARPE', value: (s) => num(s.sharpe, 3), right: true },
    { header: 'B&H SHARPE', value: (s) => num(s.benchmarkSharpe, 3), right: true },
    { header: 'RETURN', value: (s) => `${num(s.totalReturn * 100, 3)} %`, right: true },
    { header: 'MAX DD', value: (s) => `${num(s.maxDrawdown * 100, 3)} %`, right: true },
    { header: 'ENV STEPS', value: (s) => count(s.envSteps), right: true },
    {
      header: 'TRAIN S',
      value: (s) => num(s.rolloutSeconds + s.updateSeconds, 3),
      right: true,
    },
  ]))
    out.line(line);
  out.line();
}

/** The selected trial's deflated Sharpe ratio in a sentence, with what it means. */
export function printDeflatedSharpe(out: Output, deflated: StudyDeflatedSharpe): void {
  out.line(
    `Deflated Sharpe ratio of trial ${deflated.trial}: ${num(deflated.probability, 3)}, the probability that its out-of-sample Sharpe (${num(deflated.sharpe, 4)} a bar over ${count(deflated.bars)} bars) is above the ${num(deflated.expectedMaxSharpe, 4)} that the best of ${deflated.trials} complete trials would reach by luck (Bailey and López de Prado). ${deflated.probability >= 0.95 ? 'Above 0.95: the selection is unlikely to be luck alone.' : 'Below 0.95: its lead may be the luck of many tries; judge it by the holdout, not by its rank.'}`,
  );
  out.line();
}

/** Prints the holdout evaluation of the best trial. */
export function printHoldout(
  out: Output,
  best: TrialRecord,
  holdout: { evaluation: RangeEvaluation } & StudyBars,
): void {
  out.line(
    `Holdout (never seen by the search), trial ${best.number}'s model: ${describeBarRange(holdout.evaluation.range, holdout.timestamps, holdout.timeframe)}`,
  );
  printEvaluation(out, holdout.evaluation);
}
