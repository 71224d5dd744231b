import type { StudyDirection, TrialRecord } from '../storage/records.js';

/**
 * What a pruner sees when a running trial asks `shouldPrune()`: the study's other trials (a
 * snapshot: finished ones with their intermediate values, running ones with what they have
 * reported so far) and the asking trial with its intermediate values, the latest at `step`.
 */
export interface PrunerContext {
  direction: StudyDirection;
  /** The study's trials by number, the asking trial excluded. */
  trials: readonly TrialRecord[];
  trial: TrialRecord;
  /** The step of the asking trial's latest report. */
  step: number;
}

/** Decides whether a running trial should stop early. Deterministic given its context. */
export interface Pruner {
  /** A short description for `study show`, e.g. "median (5 startup trials, 0 warm-up steps)". */
  readonly description: string;
  shouldPrune(context: PrunerContext): boolean;
}
