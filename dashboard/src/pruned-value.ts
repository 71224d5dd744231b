import type { Trial } from './types.js';

/*
 * What a pruned trial's value is, as the CLI and the campaign report say it (src/tune/
 * pruned-value.ts; the dashboard is compiled apart from src/, and its browser test checks that the
 * two sentences are the same): the last intermediate value it reported, not comparable with
 * complete trials' values.
 */

/** The sentence shown beside pruned trials' values. */
export const PRUNED_VALUE_MEANING =
  "a pruned trial's value is the last intermediate value it reported (a trading trial's: the Sharpe ratio of the last split it ran, where a complete trial's is over all of its splits): it is not compared with complete trials' values, and never the best";

/**
 * A pruned trial's value as a table shows it, `-9.015 (intermediate, split 3)` (a trading study's
 * step is its split, counted from 1 here), or undefined for any other trial.
 */
export function prunedValueText(
  trial: Trial,
  splits: boolean,
  format: (v: number) => string,
): string | undefined {
  if (trial.state !== 'pruned' || trial.value === null) return undefined;
  const steps = Object.keys(trial.intermediate).map(Number);
  if (steps.length === 0) return undefined;
  const step = Math.max(...steps);
  return `${format(trial.value)} (intermediate, ${splits ? `split ${step + 1}` : `step ${step}`})`;
}
