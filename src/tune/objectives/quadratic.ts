import type { Trial } from '../trial.js';

/**
 * x² over one float in [−10, 10]: a trivial objective, so a benchmark measures the study engine
 * (sampler, storage, workers) and nothing else.
 */
export function objective(trial: Trial): number {
  const x = trial.suggestFloat('x', -10, 10);
  return x * x;
}
