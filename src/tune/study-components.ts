import { isTradelabError, TradelabError } from '../core/index.js';
import type { Attributes } from '../storage/records.js';
import type { Pruner } from './pruner.js';
import { createPruner, parsePrunerSpec, type PrunerSpec } from './pruners/index.js';
import type { Sampler } from './sampler.js';
import { createSampler, parseSamplerSpec, type SamplerSpec } from './sampler-spec.js';

/** The sampler a study uses when none is given: TPE with Optuna's defaults. */
export const DEFAULT_SAMPLER: SamplerSpec = { type: 'tpe' };
/** The pruner a study uses when none is given: median with Optuna's defaults. */
export const DEFAULT_PRUNER: PrunerSpec = { type: 'median' };

/** The sampler and pruner a study object asks. */
export interface StudyComponents {
  sampler: Sampler;
  pruner: Pruner;
}

/** The specs a study keeps in its system attributes, so every worker builds the same components. */
export interface ComponentSpecs {
  sampler: SamplerSpec;
  pruner: PrunerSpec;
}

/**
 * Where a study created with in-process sampler or pruner objects records their descriptions: no
 * spec can rebuild them, so other processes refuse to work on the study instead of guessing.
 */
export const CUSTOM_COMPONENTS_ATTR = 'customComponents';

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

/**
 * The components another process builds for a stored study.
 * @throws TradelabError STUDY_NOT_PORTABLE when the study was created with in-process objects.
 */
export function storedComponents(name: string, systemAttrs: Attributes): StudyComponents {
  const custom = systemAttrs[CUSTOM_COMPONENTS_ATTR];
  if (custom !== undefined)
    throw new TradelabError(
      'STUDY_NOT_PORTABLE',
      `study "${name}" was created with a custom sampler or pruner object (${JSON.stringify(custom)}), which no other process can rebuild`,
      {
        hint: 'run its trials in the process that created it (optimize without workers), or create the study with sampler/pruner specs',
      },
    );
  return componentsOf(specsOf(systemAttrs));
}

/** The sampler and pruner of a study, described from the specs in its system attributes. */
export interface ComponentDescriptions {
  sampler: string;
  pruner: string;
}

/**
 * Describes the sampler and pruner a study's system attributes specify. Specs this version cannot
 * read (written by a newer tradelab, or by hand) are described as such rather than failing a
 * listing of every study.
 */
export function describeComponents(systemAttrs: Attributes): ComponentDescriptions {
  try {
    const specs = specsOf(systemAttrs);
    return {
      sampler: createSampler(specs.sampler).description,
      pruner: createPruner(specs.pruner).description,
    };
  } catch (error) {
    if (!isTradelabError(error)) throw error;
    const unreadable = `unreadable spec (${error.message})`;
    return { sampler: unreadable, pruner: unreadable };
  }
}
