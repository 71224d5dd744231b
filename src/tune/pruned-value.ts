import type { TrialRecord } from '../storage/index.js';

/*
 * What a pruned trial's stored value is, said once for every surface (`study trials`, the campaign
 * report, the dashboard's trials): a pruned trial ends with the last intermediate value it reported
 * (`Study.tell`), from fewer steps than a complete trial's value is over. A trading trial reports
 * each split's Sharpe ratio, so its value is the Sharpe of the last split it ran, where a complete
 * trial's is the mean of all of them: a pruned value above the best says nothing. `bestOf` and the
 * campaign's counts take complete trials only.
 */

/** The sentence every surface shows beside pruned trials' values. */
export const PRUNED_VALUE_MEANING =
  "a pruned trial's value is the last intermediate value it reported (a trading trial's: the Sharpe ratio of the last split it ran, where a complete trial's is over all of its splits): it is not compared with complete trials' values, and never the best";

/**
 * The step a pruned trial's value was reported at (a trading trial's: the split, from 0), and how
 * many steps it reported; undefined for a trial that is not pruned or reported nothing.
 */
export function prunedValueStep(
  trial: Pick<TrialRecord, 'state' | 'intermediate'>,
): { step: number; reported: number } | undefined {
  if (trial.state !== 'pruned') return undefined;
  const steps = Object.keys(trial.intermediate).map(Number);
  if (steps.length === 0) return undefined;
  return { step: Math.max(...steps), reported: steps.length };
}
