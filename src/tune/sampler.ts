import type { Distribution, ParamValue, StudyDirection, TrialRecord } from '../storage/records.js';

/**
 * What a sampler sees of its study when a trial asks: every trial so far (complete, pruned, fail,
 * running with the params it has suggested so far, and waiting), a snapshot taken when the trial
 * started, plus the asking trial itself.
 */
export interface SamplerContext {
  direction: StudyDirection;
  /** The study's trials by number, the asking trial excluded. */
  trials: readonly TrialRecord[];
  /** The asking trial (its params so far). */
  trial: TrialRecord;
}

/**
 * Chooses parameter values. Define-by-run: the search space is only known as the objective asks, so
 * a sampler gets one parameter at a time ({@link Sampler.sampleIndependent}); a sampler that models
 * parameters jointly (multivariate TPE, grid) may also choose, when a trial starts, values for the
 * parameters it has seen in every earlier finished trial ({@link Sampler.sampleRelative}) — those
 * are then returned by the trial's suggest calls when their distribution matches.
 *
 * Samplers are seeded and deterministic: the same seed and the same history give the same values.
 */
export interface Sampler {
  /** A short description for `study show`, e.g. "tpe (multivariate, seed 1)". */
  readonly description: string;
  /** Joint values for a new trial; absent or {} when the sampler has none. */
  sampleRelative?(context: SamplerContext): Record<string, ParamValue>;
  /** A value for one parameter, in `distribution`. */
  sampleIndependent(context: SamplerContext, name: string, distribution: Distribution): ParamValue;
  /**
   * For a finite search space (grid): whether `trials` (the study's) hold every point, so that
   * the study stops starting trials instead of repeating points.
   */
  isExhausted?(trials: readonly TrialRecord[]): boolean;
}
