import type { Trial } from './trial.js';

/** An objective: returns the value of one trial's parameters (throws TrialPruned to stop early). */
export type Objective = (trial: Trial) => number | Promise<number>;
