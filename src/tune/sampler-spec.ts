import { z } from 'zod';
import { closestMatch, TradelabError } from '../core/index.js';
import type { Sampler } from './sampler.js';
import { GridSampler } from './samplers/grid-sampler.js';
import { RandomSampler } from './samplers/random-sampler.js';
import { TpeSampler } from './samplers/tpe-sampler.js';

/**
 * A sampler as configuration: stored with the study, so every worker process (on any machine)
 * builds the same sampler.
 */
export type SamplerSpec = z.infer<typeof samplerSpecSchema>;

/** The sampler types a spec may name. */
export type SamplerType = SamplerSpec['type'];

/** Every sampler type, for help text and "did you mean" hints. */
export const SAMPLER_TYPES: readonly SamplerType[] = ['tpe', 'random', 'grid'];

const seed = z.number().int().optional();
const choice = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/** The shape of a {@link SamplerSpec}; value ranges are checked by the samplers themselves. */
export const samplerSpecSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('tpe'),
    seed,
    nStartupTrials: z.number().int().optional(),
    nEiCandidates: z.number().int().optional(),
    priorWeight: z.number().optional(),
    multivariate: z.boolean().optional(),
    constantLiar: z.boolean().optional(),
  }),
  z.strictObject({ type: z.literal('random'), seed }),
  z.strictObject({
    type: z.literal('grid'),
    seed,
    searchSpace: z.record(z.string(), z.array(choice).min(1)),
  }),
]);

/**
 * Checks a spec read from JSON, YAML or the command line.
 * @throws TradelabError INVALID_ARGUMENT naming the bad key and value.
 */
export function parseSamplerSpec(input: unknown): SamplerSpec {
  const result = samplerSpecSchema.safeParse(input);
  if (result.success) return result.data;
  const type: unknown =
    typeof input === 'object' && input !== null ? (input as { type?: unknown }).type : undefined;
  if (typeof type !== 'string' || !(SAMPLER_TYPES as readonly string[]).includes(type)) {
    const guess = typeof type === 'string' ? closestMatch(type, SAMPLER_TYPES) : undefined;
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `unknown sampler type ${type === undefined ? '(missing)' : JSON.stringify(type)}; known: ${SAMPLER_TYPES.join(', ')}` +
        (guess === undefined ? '' : `; did you mean ${guess}?`),
      { hint: 'give the sampler as {"type": "tpe", …}', details: { value: input } },
    );
  }
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return `${path === '' ? '(spec)' : path}: ${issue.message}`;
  });
  throw new TradelabError('INVALID_ARGUMENT', `invalid ${type} sampler: ${problems.join('; ')}`, {
    hint: `see the options of the ${type} sampler; leave one out for its default`,
    details: { value: input },
  });
}

/** The sampler a spec describes. */
export function createSampler(spec: SamplerSpec): Sampler {
  switch (spec.type) {
    case 'tpe': {
      const { type: _type, ...options } = spec;
      return new TpeSampler(stripUndefined(options));
    }
    case 'random':
      return new RandomSampler(spec.seed === undefined ? {} : { seed: spec.seed });
    case 'grid':
      return new GridSampler({
        searchSpace: spec.searchSpace,
        ...(spec.seed === undefined ? {} : { seed: spec.seed }),
      });
  }
}

/** `options` without its undefined values (exactOptionalPropertyTypes). */
function stripUndefined<T extends object>(
  options: T,
): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}
