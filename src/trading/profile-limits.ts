import type { GpuProfile } from '../profiles/index.js';
import { isRange, type ParamSpec } from './search-space.js';

/*
 * A GPU profile's DRL settings bound what a study samples: `netDimMax` the widest network and
 * `batchSize` the largest minibatch the card is meant to train. A preset written for a larger card
 * is narrowed to them when a study is created on the profile, and the command says what changed.
 */

/** The profile's bounds on a trading study's parameters. */
export interface DrlLimits {
  /** The profile's name, for the notes. */
  profile: string;
  netDimMax: number;
  batchSizeMax: number;
}

/** `spec` bounded above by `max`; undefined when it already is. */
function bounded(spec: ParamSpec, max: number): ParamSpec | undefined {
  if (typeof spec === 'number') return spec > max ? max : undefined;
  if (Array.isArray(spec)) {
    if (spec.every((c) => typeof c !== 'number' || c <= max)) return undefined;
    const kept = spec.filter((c) => typeof c !== 'number' || c <= max);
    // One choice left is a fixed value, as the study shows it.
    return kept.length === 0 ? max : kept.length === 1 ? (kept[0] ?? max) : kept;
  }
  if (isRange(spec)) {
    if (spec.high <= max) return undefined;
    if (spec.low >= max) return max;
    return { ...spec, high: max };
  }
  return undefined;
}

const show = (spec: ParamSpec): string =>
  Array.isArray(spec)
    ? `[${spec.join(', ')}]`
    : isRange(spec)
      ? `${spec.low}..${spec.high}`
      : String(spec);

/** The parameters within the profile's limits, and one note per parameter narrowed. */
export function fitParamsToProfile(
  params: Readonly<Record<string, ParamSpec>>,
  limits: DrlLimits,
): { params: Record<string, ParamSpec>; notes: string[] } {
  const out: Record<string, ParamSpec> = { ...params };
  const notes: string[] = [];
  const caps: [string, number, string][] = [
    ['netDim', limits.netDimMax, 'netDimMax'],
    ['batchSize', limits.batchSizeMax, 'batchSize'],
  ];
  for (const [name, max, field] of caps) {
    const spec = params[name];
    if (spec === undefined) continue;
    const fitted = bounded(spec, max);
    if (fitted === undefined) continue;
    out[name] = fitted;
    notes.push(
      `${name}: ${show(spec)} → ${show(fitted)} (profile ${limits.profile}: drl.${field} ${max})`,
    );
  }
  return { params: out, notes };
}

/** A profile's DRL limits. */
export function drlLimitsOf(profile: GpuProfile): DrlLimits {
  return {
    profile: profile.name,
    netDimMax: profile.workloads.drl.netDimMax,
    batchSizeMax: profile.workloads.drl.batchSize,
  };
}
