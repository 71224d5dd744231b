/*
 * How far a running trial has got, as its objective says: a fraction of the trial's work and a
 * line of detail the objective words (a trading objective: "split 2/3, 6,144/12,288 env steps").
 * A study run otherwise knows nothing until a trial ends, which for a DRL trial is minutes.
 */

/** A running trial's progress, from its objective. */
export interface TrialProgress {
  /** Fraction of the trial's work done, in [0, 1]. */
  fraction: number;
  /** What the objective is doing, in its own words (may be empty). */
  detail: string;
}

/** Receives the progress of running trials (a study run's display). */
export type TrialProgressListener = (trial: { number: number } & TrialProgress) => void;

/** `fraction` clamped to [0, 1] (NaN counts as 0). */
export function clampFraction(fraction: number): number {
  return Number.isFinite(fraction) ? Math.min(1, Math.max(0, fraction)) : fraction > 0 ? 1 : 0;
}
