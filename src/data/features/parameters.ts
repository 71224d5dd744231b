import { TradelabError } from '../../core/index.js';

/**
 * Checks for indicator parameters. Each names the option by its path in `FeatureOptions`
 * (`rsi.period`), so a message points at what to change.
 */

/** Throws unless `value` is an integer from `min` to 1,000,000; returns it. */
export function checkInteger(value: number, what: string, min = 1, hint?: string): number {
  if (!Number.isInteger(value) || value < min || value > 1_000_000) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `${what} must be an integer from ${min} to 1000000, got ${String(value)}`,
      { ...(hint === undefined ? {} : { hint }), details: { option: what, value } },
    );
  }
  return value;
}

/** A look-back length option: the default when absent, else an integer from `min` up. */
export function periodOption(
  value: number | undefined,
  fallback: number,
  what: string,
  min = 1,
): number {
  return checkInteger(
    value ?? fallback,
    what,
    min,
    `leave ${what} out for the default, ${fallback}`,
  );
}

/** A finite number greater than zero. */
export function positiveOption(value: number | undefined, fallback: number, what: string): number {
  const number = value ?? fallback;
  if (!Number.isFinite(number) || number <= 0) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `${what} must be a finite number greater than 0, got ${String(number)}`,
      { hint: `leave ${what} out for the default, ${fallback}`, details: { option: what, value } },
    );
  }
  return number;
}

/** Throws unless every series has the length of the first. */
export function checkSameLength(
  indicator: string,
  series: Record<string, ArrayLike<number>>,
): void {
  const entries = Object.entries(series);
  const [firstName, first] = entries[0] ?? ['', { length: 0 }];
  for (const [name, values] of entries) {
    if (values.length !== first.length) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `${indicator}: ${name} has ${values.length} values but ${firstName} has ${first.length}`,
        { hint: 'pass the columns of one Bars object, which all have one length' },
      );
    }
  }
}

/**
 * A Float64Array of length `n` whose first `defined` entries are NaN (an indicator's warm-up) and
 * the rest 0, for the caller to overwrite.
 */
export function nanArray(n: number, defined: number): Float64Array {
  return new Float64Array(n).fill(NaN, 0, Math.min(Math.max(defined, 0), n));
}
