import { closestMatch, TradelabError } from '../core/index.js';
import type { FeatureOptions } from '../data/features/compute-features.js';

/*
 * The indicators a trading study's agents see: the default set, or the groups the study names
 * (each at its default settings), so a study can leave out what only adds noise.
 */

/** Indicator groups a study may name (FeatureOptions' keys). */
export const FEATURE_GROUPS = [
  'logReturns',
  'volatility',
  'rsi',
  'macd',
  'cci',
  'adx',
  'ultimateOscillator',
  'obv',
  'bollinger',
  'atr',
  'volumeZScore',
] as const satisfies readonly (keyof FeatureOptions)[];

/** Checks group names; the error names the nearest group. */
export function checkFeatureGroups(groups: readonly string[], where = 'features'): string[] {
  if (groups.length === 0)
    throw new TradelabError('INVALID_ARGUMENT', `${where}: names no indicator group`, {
      hint: `name at least one of ${FEATURE_GROUPS.join(', ')}, or leave it out for the default set`,
    });
  for (const group of groups)
    if (!(FEATURE_GROUPS as readonly string[]).includes(group)) {
      const near = closestMatch(group, FEATURE_GROUPS);
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `${where}: "${group}" is not an indicator group${near === undefined ? '' : ` (did you mean "${near}"?)`}`,
        { hint: `groups: ${FEATURE_GROUPS.join(', ')}` },
      );
    }
  return [...groups];
}

/** The feature options of `groups`: those groups at their defaults, the others off; null: defaults. */
export function featureOptionsOf(groups: readonly string[] | null): FeatureOptions {
  if (groups === null) return {};
  const options: Record<string, false | object> = {};
  for (const group of FEATURE_GROUPS) options[group] = groups.includes(group) ? {} : false;
  return options;
}
