import type { Pruner } from '../pruner.js';

/** A pruner that never prunes: every trial runs to the end (Optuna's `NopPruner`). */
export class NopPruner implements Pruner {
  readonly description = 'nop (never prunes)';

  shouldPrune(): boolean {
    return false;
  }
}
