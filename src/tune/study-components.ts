import type { Attributes } from '../storage/records.js';
import { createPruner, parsePrunerSpec, type PrunerSpec } from './pruners/index.js';
import { createSampler, parseSamplerSpec, type SamplerSpec } from './sampler-spec.js';
import type { StudyComponents } from './study.js';

/** The sampler a study uses when none is given: TPE with Optuna's defaults. */
export const DEFAULT_SAMPLER: SamplerSpec = { type: 'tpe' };
/** The pruner a study uses when none is given: median with Optuna's defaults. */
export const DEFAULT_PRUNER: PrunerSpec = { type: 'median' };

/** The specs a study keeps in its system attributes, so every worker builds the same components. */
export interface ComponentSpecs {
  sampler: SamplerSpec;
  pruner: PrunerSpec;
}

/** The specs stored in a study's system attributes (defaults for what is absent). */
export function specsOf(systemAttrs: Attributes): ComponentSpecs {
  return {
    sampler:
      systemAttrs.sampler === undefined ? DEFAULT_SAMPLER : parseSamplerSpec(systemAttrs.sampler),
    pruner: systemAttrs.pruner === undefined ? DEFAULT_PRUNER : parsePrunerSpec(systemAttrs.pruner),
  };
}

/** The sampler and pruner the specs describe. */
export function componentsOf(specs: ComponentSpecs): StudyComponents {
  return { sampler: createSampler(specs.sampler), pruner: createPruner(specs.pruner) };
}
