import { trueRangeAt } from './atr.js';
import { checkSameLength, nanArray, periodOption } from './parameters.js';

/** Options for {@link directionalMovement}. */
export interface AdxOptions {
  /** Bars in Wilder's smoothing of the directional movement, of DX into ADX too. Default 14. */
  period?: number;
}

/** ADX options with every default filled in and checked. */
export function resolveAdxOptions(options: AdxOptions = {}): Required<AdxOptions> {
  return { period: periodOption(options.period, 14, 'adx.period') };
}

/** Wilder's directional movement system, each 0–100. */
export interface DirectionalMovement {
  /** +DI: smoothed up-movement as a percentage of the smoothed true range. First at bar `period`. */
  plusDi: Float64Array;
  /** −DI: the same for down-movement. First at bar `period`. */
  minusDi: Float64Array;
  /** DX: `100 · |+DI − −DI| / (+DI + −DI)`, trend strength without direction. First at bar `period`. */
  dx: Float64Array;
  /** ADX: Wilder-smoothed DX, seeded with the mean of the first `period` DX values. First at `2 · period − 1`. */
  adx: Float64Array;
}

/**
 * Wilder's DMI: +DM is `high − prevHigh` when that exceeds `prevLow − low` and is positive (−DM the
 * mirror image); +DM, −DM and the true range are Wilder-smoothed from bar 1 (bar 0 has no previous
 * bar). Bars with no range at all read +DI = −DI = 0 and DX = 0, not NaN.
 */
export function directionalMovement(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  options: AdxOptions = {},
): DirectionalMovement {
  const { period } = resolveAdxOptions(options);
  checkSameLength('adx', { high, low, close });
  const n = close.length;
  const plusDi = nanArray(n, period);
  const minusDi = nanArray(n, period);
  const dx = nanArray(n, period);
  const adx = nanArray(n, 2 * period - 1);
  // One pass: the true range and ±DM from bar 1, Wilder-smoothed (plain means of bars 1 … period,
  // then s += (value − s) / period), DI and DX from bar `period`, and ADX smoothed the same way
  // from DX (mean of DX over bars period … 2·period − 1, then the recursion).
  const alpha = 1 / period;
  let range = 0;
  let plus = 0;
  let minus = 0;
  let average = 0;
  for (let t = 1; t < n; t++) {
    const up = (high[t] ?? 0) - (high[t - 1] ?? 0);
    const down = (low[t - 1] ?? 0) - (low[t] ?? 0);
    const plusMove = up > down && up > 0 ? up : 0;
    const minusMove = down > up && down > 0 ? down : 0;
    const trueRange = trueRangeAt(high, low, close, t);
    if (t < period) {
      range += trueRange;
      plus += plusMove;
      minus += minusMove;
      continue;
    }
    if (t === period) {
      range = (range + trueRange) / period;
      plus = (plus + plusMove) / period;
      minus = (minus + minusMove) / period;
    } else {
      range += alpha * (trueRange - range);
      plus += alpha * (plusMove - plus);
      minus += alpha * (minusMove - minus);
    }
    const p = range === 0 ? 0 : (100 * plus) / range;
    const m = range === 0 ? 0 : (100 * minus) / range;
    const d = p + m === 0 ? 0 : (100 * Math.abs(p - m)) / (p + m);
    plusDi[t] = p;
    minusDi[t] = m;
    dx[t] = d;
    if (t < 2 * period - 1) {
      average += d;
      continue;
    }
    if (t === 2 * period - 1) average = (average + d) / period;
    else average += alpha * (d - average);
    adx[t] = average;
  }
  return { plusDi, minusDi, dx, adx };
}
