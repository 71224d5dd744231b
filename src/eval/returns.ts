import { TradelabError } from '../core/index.js';

/** Throws unless every value of an equity curve is finite and the first is positive. */
export function checkEquity(equity: Float64Array, what = 'equity'): void {
  for (let i = 0; i < equity.length; i++) {
    const v = equity[i] ?? Number.NaN;
    if (!Number.isFinite(v)) {
      throw new TradelabError('INVALID_ARGUMENT', `${what}[${i}] is ${v}, not a finite number`, {
        hint: 'an equity curve holds finite portfolio values; check the env or the data for NaN prices',
        details: { index: i, value: v },
      });
    }
  }
  const first = equity[0];
  if (first !== undefined && first <= 0) {
    throw new TradelabError('INVALID_ARGUMENT', `${what}[0] is ${first}; it must be positive`, {
      hint: 'the first value of an equity curve is the initial cash, e.g. 1 or 1_000_000',
    });
  }
}

/** Per-bar simple returns `v[t] / v[t-1] - 1` of an equity curve (length `equity.length - 1`). */
export function simpleReturns(equity: Float64Array): Float64Array {
  const out = new Float64Array(Math.max(0, equity.length - 1));
  for (let t = 1; t < equity.length; t++)
    out[t - 1] = (equity[t] ?? Number.NaN) / (equity[t - 1] ?? Number.NaN) - 1;
  return out;
}

/** The equity curve `initial · Π (1 + r)` of per-bar simple returns (length `returns.length + 1`). */
export function equityFromReturns(returns: ArrayLike<number>, initial = 1): Float64Array {
  const out = new Float64Array(returns.length + 1);
  out[0] = initial;
  for (let t = 0; t < returns.length; t++)
    out[t + 1] = (out[t] ?? Number.NaN) * (1 + (returns[t] ?? Number.NaN));
  return out;
}
