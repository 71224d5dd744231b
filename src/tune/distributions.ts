import { TradelabError } from '../core/index.js';
import type {
  CategoricalDistribution,
  Distribution,
  FloatDistribution,
  IntDistribution,
  ParamValue,
} from '../storage/records.js';

/** Options of `suggestFloat`. */
export interface FloatOptions {
  /** Sample on a log scale (low > 0). */
  log?: boolean;
  /** Values are low + k × step (high − low must be a multiple of it). */
  step?: number;
}

/** Options of `suggestInt`. */
export interface IntOptions {
  log?: boolean;
  /** Default 1. */
  step?: number;
}

function invalid(name: string, message: string, hint: string): TradelabError {
  return new TradelabError('INVALID_SUGGESTION', `parameter "${name}": ${message}`, { hint });
}

/** Checks suggestFloat's arguments and returns their distribution. */
export function floatDistribution(
  name: string,
  low: number,
  high: number,
  options: FloatOptions = {},
): FloatDistribution {
  const log = options.log ?? false;
  const step = options.step ?? null;
  if (!Number.isFinite(low) || !Number.isFinite(high) || low > high)
    throw invalid(
      name,
      `low ${low} and high ${high} must be finite with low ≤ high`,
      'e.g. (1e-5, 1e-2)',
    );
  if (log && step !== null)
    throw invalid(name, 'log and step cannot be combined', 'drop one of them');
  if (log && low <= 0)
    throw invalid(
      name,
      `a log range needs low > 0, got ${low}`,
      'e.g. suggestFloat(name, 1e-5, 1e-1, { log: true })',
    );
  if (step !== null) {
    if (!(Number.isFinite(step) && step > 0))
      throw invalid(name, `step must be a finite number > 0, got ${step}`, 'e.g. step: 0.05');
    const k = (high - low) / step;
    if (Math.abs(k - Math.round(k)) > 1e-8 * Math.max(1, Math.abs(k)))
      throw invalid(
        name,
        `high − low (${high - low}) is not a multiple of step ${step}`,
        `use high ${low + Math.floor(k + 1e-8) * step}`,
      );
  }
  return { type: 'float', low, high, log, step };
}

/** Checks suggestInt's arguments and returns their distribution. */
export function intDistribution(
  name: string,
  low: number,
  high: number,
  options: IntOptions = {},
): IntDistribution {
  const log = options.log ?? false;
  const step = options.step ?? 1;
  if (!Number.isSafeInteger(low) || !Number.isSafeInteger(high) || low > high)
    throw invalid(
      name,
      `low ${low} and high ${high} must be integers with low ≤ high`,
      'e.g. (16, 512)',
    );
  if (!Number.isSafeInteger(step) || step < 1)
    throw invalid(name, `step must be a positive integer, got ${step}`, 'e.g. step: 2');
  if (log && step !== 1)
    throw invalid(name, 'log and a step other than 1 cannot be combined', 'drop one of them');
  if (log && low < 1)
    throw invalid(
      name,
      `a log range needs low ≥ 1, got ${low}`,
      'e.g. suggestInt(name, 1, 1024, { log: true })',
    );
  if ((high - low) % step !== 0)
    throw invalid(
      name,
      `high − low (${high - low}) is not a multiple of step ${step}`,
      `use high ${low + Math.floor((high - low) / step) * step}`,
    );
  return { type: 'int', low, high, log, step };
}

/** Checks suggestCategorical's choices and returns their distribution. */
export function categoricalDistribution(
  name: string,
  choices: readonly ParamValue[],
): CategoricalDistribution {
  if (choices.length === 0) throw invalid(name, 'no choices', 'pass at least one choice');
  for (const c of choices) {
    const ok =
      c === null ||
      typeof c === 'string' ||
      typeof c === 'boolean' ||
      (typeof c === 'number' && Number.isFinite(c));
    if (!ok)
      throw invalid(
        name,
        `choice ${String(c)} is not a string, finite number, boolean or null`,
        'choices are stored as JSON',
      );
  }
  if (new Set(choices).size !== choices.length)
    throw invalid(name, 'choices repeat a value', 'list each choice once');
  return { type: 'categorical', choices: [...choices] };
}

/** Whether two distributions are the same (a parameter asked twice must ask the same). */
export function sameDistribution(a: Distribution, b: Distribution): boolean {
  if (a.type === 'categorical' || b.type === 'categorical') {
    if (a.type !== 'categorical' || b.type !== 'categorical') return false;
    return a.choices.length === b.choices.length && a.choices.every((c, i) => c === b.choices[i]);
  }
  return (
    a.type === b.type &&
    a.low === b.low &&
    a.high === b.high &&
    a.log === b.log &&
    a.step === b.step
  );
}

/** Whether `value` lies in `distribution` (on its step grid, for stepped ones). */
export function contains(distribution: Distribution, value: ParamValue): boolean {
  if (distribution.type === 'categorical') return distribution.choices.includes(value);
  if (typeof value !== 'number' || !(value >= distribution.low && value <= distribution.high))
    return false;
  if (distribution.type === 'int')
    return Number.isInteger((value - distribution.low) / distribution.step);
  if (distribution.step === null) return true;
  const k = (value - distribution.low) / distribution.step;
  return Math.abs(k - Math.round(k)) < 1e-8 * Math.max(1, Math.abs(k));
}

/**
 * A value as samplers model it: a number on the sampling scale (log for log ranges), or a
 * categorical's choice index.
 */
export function toInternal(distribution: Distribution, value: ParamValue): number {
  if (distribution.type === 'categorical') return distribution.choices.indexOf(value);
  const x = value as number;
  return distribution.log ? Math.log(x) : x;
}

/**
 * The inverse of {@link toInternal}, snapped into the distribution: rounded to its step or to an
 * integer, clamped into [low, high]; a categorical index is rounded and clamped.
 */
export function fromInternal(distribution: Distribution, internal: number): ParamValue {
  if (distribution.type === 'categorical') {
    const i = Math.min(distribution.choices.length - 1, Math.max(0, Math.round(internal)));
    return distribution.choices[i] ?? null;
  }
  const { low, high } = distribution;
  let x = distribution.log ? Math.exp(internal) : internal;
  const step = distribution.type === 'int' ? distribution.step : distribution.step;
  if (step !== null) x = low + Math.round((x - low) / step) * step;
  else if (distribution.type === 'int') x = Math.round(x);
  if (distribution.type === 'float' && step !== null) x = Number(x.toPrecision(15));
  return Math.min(high, Math.max(low, x));
}

/** The bounds of a numeric distribution on the sampling scale (log for log ranges). */
export function internalBounds(
  distribution: FloatDistribution | IntDistribution,
): [number, number] {
  return distribution.log
    ? [Math.log(distribution.low), Math.log(distribution.high)]
    : [distribution.low, distribution.high];
}

/** A one-line description, e.g. `float [1e-05, 0.01] log` or `categorical [64, 128, 256]`. */
export function describeDistribution(distribution: Distribution): string {
  if (distribution.type === 'categorical')
    return `categorical [${distribution.choices.map((c) => JSON.stringify(c)).join(', ')}]`;
  const parts = [`${distribution.type} [${distribution.low}, ${distribution.high}]`];
  if (distribution.log) parts.push('log');
  if (distribution.step !== null && !(distribution.type === 'int' && distribution.step === 1))
    parts.push(`step ${distribution.step}`);
  return parts.join(' ');
}
