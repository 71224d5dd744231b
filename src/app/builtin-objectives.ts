import { compiledPath } from '../core/index.js';
import { registerObjective } from '../tune/objective-module.js';

/**
 * Registers the objectives tradelab's applications ship (the engine itself ships `quadratic`), so
 * `study run --objective drl` and `optimize(study, 'drl', { workers })` find them by name.
 * Idempotent; {@link openProject} calls it.
 */
export function registerBuiltinObjectives(): void {
  registerObjective('drl', {
    module: compiledPath('trading/drl-worker-objective.js'),
    description:
      'PPO trading agents, cross-validated: the objective of a trading study (`--preset`/`--data`)',
  });
}
