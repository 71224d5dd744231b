/*
 * Helpers shared by the samplers' tests. Test-only: the build leaves this file out.
 */
import type { Rng } from '../../core/random.js';
import {
  trialRecord,
  type Distribution,
  type StudyDirection,
  type TrialRecord,
} from '../../storage/records.js';
import type { SamplerContext } from '../sampler.js';

/** A sampler's context for a running trial `number` (default: next after `trials`). */
export function samplerContext(
  trials: readonly TrialRecord[] = [],
  number = trials.length,
  direction: StudyDirection = 'minimize',
): SamplerContext {
  return { direction, trials, trial: trialRecord({ number }) };
}

/** A random valid distribution of any kind (float, log, step, int, log-int, categorical). */
export function randomDistribution(rng: Rng): Distribution {
  const kind = Math.floor(rng.uniform() * 6);
  const low = Math.round((rng.uniform() - 0.5) * 200) / 4;
  const width = 1 + Math.floor(rng.uniform() * 40);
  switch (kind) {
    case 0:
      return { type: 'float', low, high: low + width * rng.uniform(), log: false, step: null };
    case 1: {
      const l = 1e-4 * (1 + rng.uniform() * 100);
      return { type: 'float', low: l, high: l * (1 + width * 10), log: true, step: null };
    }
    case 2:
      return { type: 'float', low, high: low + width * 0.25, log: false, step: 0.25 };
    case 3: {
      const step = 1 + Math.floor(rng.uniform() * 3);
      const lo = Math.round(low);
      return { type: 'int', low: lo, high: lo + width * step, log: false, step };
    }
    case 4:
      return {
        type: 'int',
        low: 1 + Math.floor(rng.uniform() * 5),
        high: 10 + width * 20,
        log: true,
        step: 1,
      };
    default:
      return {
        type: 'categorical',
        choices: ['a', 1, true, null, 2.5, 'b'].slice(0, 1 + Math.floor(rng.uniform() * 6)),
      };
  }
}
