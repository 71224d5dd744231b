import { PercentilePruner, type PercentilePrunerOptions } from './percentile-pruner.js';

/**
 * The median stopping rule (Optuna's `MedianPruner`): prune a trial whose best value so far is worse
 * than the median of the complete trials' values at the same step. A {@link PercentilePruner} at 50.
 */
export class MedianPruner extends PercentilePruner {
  override readonly description: string;

  constructor(options: PercentilePrunerOptions = {}) {
    super(50, options);
    this.description = `median (${this.describeRules()})`;
  }
}
