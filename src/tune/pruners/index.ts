/*
 * The pruners of the study engine and a factory from a JSON-able spec, the form the CLI and the
 * study's system attributes hold: `{ "type": "median", "nStartupTrials": 5 }`.
 */
import { z } from 'zod';
import { TradelabError, closestMatch } from '../../core/index.js';
import type { Pruner } from '../pruner.js';
import { HyperbandPruner, type HyperbandPrunerOptions } from './hyperband-pruner.js';
import { MedianPruner } from './median-pruner.js';
import { NopPruner } from './nop-pruner.js';
import { PercentilePruner, type PercentilePrunerOptions } from './percentile-pruner.js';
import {
  SuccessiveHalvingPruner,
  type SuccessiveHalvingPrunerOptions,
} from './successive-halving-pruner.js';

export {
  HyperbandPruner,
  hashTrialNumber,
  type HyperbandPrunerOptions,
} from './hyperband-pruner.js';
export { MedianPruner } from './median-pruner.js';
export { NopPruner } from './nop-pruner.js';
export { PercentilePruner, type PercentilePrunerOptions } from './percentile-pruner.js';
export {
  SuccessiveHalvingPruner,
  type SuccessiveHalvingPrunerOptions,
} from './successive-halving-pruner.js';

/** A pruner as configuration: its `type` and its options (each with the pruner's default). */
export type PrunerSpec =
  | { type: 'nop' }
  | ({ type: 'median' } & PercentilePrunerOptions)
  | ({ type: 'percentile'; percentile: number } & PercentilePrunerOptions)
  | ({ type: 'successive-halving' } & SuccessiveHalvingPrunerOptions)
  | ({ type: 'hyperband' } & HyperbandPrunerOptions);

/** The pruner types a spec may name. */
export type PrunerType = PrunerSpec['type'];

/** Every pruner type, for help text and "did you mean" hints. */
export const PRUNER_TYPES: readonly PrunerType[] = [
  'nop',
  'median',
  'percentile',
  'successive-halving',
  'hyperband',
];

const count = z.number().optional();
const percentileOptions = {
  nStartupTrials: count,
  nWarmupSteps: count,
  intervalSteps: count,
  nMinTrials: count,
};
const resource = z.union([z.number(), z.literal('auto')]).optional();

/** The shape of a {@link PrunerSpec}; value ranges are checked by the pruners themselves. */
export const prunerSpecSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('nop') }),
  z.strictObject({ type: z.literal('median'), ...percentileOptions }),
  z.strictObject({ type: z.literal('percentile'), percentile: z.number(), ...percentileOptions }),
  z.strictObject({
    type: z.literal('successive-halving'),
    minResource: resource,
    reductionFactor: count,
    minEarlyStoppingRate: count,
    bootstrapCount: count,
  }),
  z.strictObject({
    type: z.literal('hyperband'),
    minResource: count,
    maxResource: resource,
    reductionFactor: count,
    bootstrapCount: count,
  }),
]);

/**
 * Checks a spec read from JSON, YAML or the command line.
 * @throws TradelabError INVALID_ARGUMENT naming the bad key and value.
 */
export function parsePrunerSpec(input: unknown): PrunerSpec {
  const result = prunerSpecSchema.safeParse(input);
  if (result.success) return result.data;
  const type: unknown =
    typeof input === 'object' && input !== null ? (input as { type?: unknown }).type : undefined;
  if (typeof type !== 'string' || !(PRUNER_TYPES as readonly string[]).includes(type)) {
    const guess = typeof type === 'string' ? closestMatch(type, PRUNER_TYPES) : undefined;
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `unknown pruner type ${type === undefined ? '(missing)' : JSON.stringify(type)}; known: ${PRUNER_TYPES.join(', ')}` +
        (guess === undefined ? '' : `; did you mean ${guess}?`),
      { hint: 'Give the pruner as {"type": "median", …}.', details: { value: input } },
    );
  }
  const problems = result.error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return `${path === '' ? '(spec)' : path}: ${issue.message}`;
  });
  throw new TradelabError('INVALID_ARGUMENT', `invalid ${type} pruner: ${problems.join('; ')}`, {
    hint: `See the options of the ${type} pruner; leave one out for its default.`,
    details: { value: input, issues: result.error.issues },
  });
}

/**
 * The pruner a spec describes.
 * @throws TradelabError INVALID_ARGUMENT for an option out of range.
 */
export function createPruner(spec: PrunerSpec): Pruner {
  switch (spec.type) {
    case 'nop':
      return new NopPruner();
    case 'median':
      return new MedianPruner(spec);
    case 'percentile':
      return new PercentilePruner(spec.percentile, spec);
    case 'successive-halving':
      return new SuccessiveHalvingPruner(spec);
    case 'hyperband':
      return new HyperbandPruner(spec);
  }
}

/** A one-line description of the pruner a spec describes, e.g. for `study show`. */
export function describePruner(spec: PrunerSpec): string {
  return createPruner(spec).description;
}
