import { TradelabError } from '../core/index.js';

/** Round tick values for a numeric axis and the range they span. */
export interface NiceTicks {
  /** The first tick: at or below the data minimum. */
  readonly min: number;
  /** The last tick: at or above the data maximum. */
  readonly max: number;
  /** Distance between ticks: 1, 2 or 5 times a power of ten. */
  readonly step: number;
  /** The ticks from `min` to `max`, `step` apart. */
  readonly values: readonly number[];
}

const MANTISSAS = [1, 2, 5] as const;
// Slack for quotients like 0.3 / 0.1 = 2.9999999999999996, so a tick sitting on the data is kept.
const EPSILON = 1e-9;

function snapToInteger(quotient: number): number {
  const nearest = Math.round(quotient);
  return Math.abs(quotient - nearest) < EPSILON ? nearest : quotient;
}

/**
 * Ticks 1, 2 or 5 × 10^k apart covering [min, max] with at most `maxTicks` values (at least 3: a
 * range around zero needs a tick on each side of it); with `integer`, whole numbers only (counts,
 * trial numbers: no tick at 0.5 trials). Equal bounds are widened first so a constant series still
 * gets an axis.
 */
export function niceTicks(min: number, max: number, maxTicks = 6, integer = false): NiceTicks {
  if (!Number.isFinite(min) || !Number.isFinite(max) || min > max) {
    throw new TradelabError('INVALID_ARGUMENT', `no ticks for the range [${min}, ${max}]`, {
      hint: 'pass finite bounds with min <= max',
    });
  }
  if (min === max) {
    const pad = Math.abs(min) * 0.05 || 1;
    return niceTicks(min - pad, max + pad, maxTicks, integer);
  }
  const limit = Math.max(3, Math.floor(maxTicks));
  // Start one decade below the step that would give `limit` ticks and walk up: a few iterations.
  for (let exponent = Math.floor(Math.log10((max - min) / limit)) - 1; ; exponent++) {
    for (const mantissa of MANTISSAS) {
      const step = exponent < 0 ? mantissa / 10 ** -exponent : mantissa * 10 ** exponent;
      if (integer && step < 1) continue;
      const first = Math.floor(snapToInteger(min / step));
      const last = Math.ceil(snapToInteger(max / step));
      if (last - first + 1 > limit) continue;
      const decimals = Math.max(0, -exponent);
      const values: number[] = [];
      for (let k = first; k <= last; k++) values.push(roundTo(k * step, decimals));
      return {
        min: roundTo(first * step, decimals),
        max: roundTo(last * step, decimals),
        step,
        values,
      };
    }
  }
}

/**
 * Ticks for a log axis over [min, max] (both > 0): powers of ten when the range holds at least three
 * of them, else 1-2-5 values when there are three, else whichever of 1-2-5 or round linear values
 * gives more. Only ticks inside the range are returned; `step` is the linear step when linear
 * values win and 0 otherwise.
 */
export function logTicks(min: number, max: number, maxTicks = 6): NiceTicks {
  if (!(min > 0) || !Number.isFinite(max) || min > max) {
    throw new TradelabError('INVALID_ARGUMENT', `no log ticks for the range [${min}, ${max}]`, {
      hint: 'pass finite bounds with 0 < min <= max',
    });
  }
  const limit = Math.max(2, Math.floor(maxTicks));
  // Powers of ten alone only when there are three: two bare ticks make a poor axis.
  const powers = logSpacedTicks(min, max, [1], limit);
  if (powers.length >= 3) return { min, max, step: 0, values: powers };
  const oneTwoFive = logSpacedTicks(min, max, MANTISSAS, limit);
  if (oneTwoFive.length >= 3) return { min, max, step: 0, values: oneTwoFive };
  // Under a decade or so, round linear values are denser (10k, 20k, 30k, 40k beats 10k, 20k).
  const linear = niceTicks(min, max, limit);
  const inside = linear.values.filter((v) => v >= min && v <= max);
  return inside.length > oneTwoFive.length
    ? { min, max, step: linear.step, values: inside }
    : { min, max, step: 0, values: oneTwoFive };
}

/** Mantissa × 10^k values inside [min, max], thinned to at most `limit`. */
function logSpacedTicks(
  min: number,
  max: number,
  mantissas: readonly number[],
  limit: number,
): number[] {
  const values: number[] = [];
  for (
    let exponent = Math.floor(Math.log10(min));
    exponent <= Math.ceil(Math.log10(max));
    exponent++
  ) {
    for (const mantissa of mantissas) {
      const value = roundTo(mantissa * 10 ** exponent, Math.max(0, -exponent));
      if (value >= min * (1 - EPSILON) && value <= max * (1 + EPSILON)) values.push(value);
    }
  }
  // Too many decades: keep every n-th value.
  const stride = Math.ceil(values.length / limit);
  return values.filter((_, i) => i % stride === 0);
}

function roundTo(value: number, decimals: number): number {
  return Number(value.toFixed(Math.min(decimals, 20)));
}
