import { TradelabError } from '../core/index.js';
import { maxDrawdown } from './drawdown.js';
import { checkEquity } from './returns.js';

/**
 * Why a metric holds its fallback value instead of a computed one. Metrics never come back NaN or
 * infinite: where one is undefined it is 0 (or null, see {@link TradingMetrics}) and a flag says why.
 * - `empty`: the equity curve has no values; every metric is 0.
 * - `too-few-bars`: fewer than 2 returns (3 values), so no sample std: volatility, Sharpe and Sortino
 *   are 0; with 0 returns the annualized return is 0 as well.
 * - `zero-variance`: the log returns do not vary (std 0, or below 1e-10 of |mean|, which is rounding
 *   noise); volatility, Sharpe and Sortino are 0.
 * - `no-downside`: no log return is below 0, so the downside deviation is 0; Sortino is 0.
 * - `no-drawdown`: the curve never falls below a previous peak; max drawdown and Calmar are 0.
 * - `no-nonzero-returns`: every return is exactly 0; hit rate is 0.
 * - `ruin`: the equity reaches 0 or below; bars after the first such value are ignored by volatility,
 *   Sharpe, Sortino and hit rate (its log return would be −∞); the total return is `last / first − 1`
 *   and the annualized return −1 when the curve ends at or below 0.
 * - `overflow`: the annualized return is too large for a double (a short, steep curve); it is
 *   `Number.MAX_VALUE`, and Calmar is computed from that.
 */
export type MetricFlag =
  | 'empty'
  | 'too-few-bars'
  | 'zero-variance'
  | 'no-downside'
  | 'no-drawdown'
  | 'no-nonzero-returns'
  | 'ruin'
  | 'overflow';

/** Everything tradelab judges an equity curve by. Ratios are plain fractions (0.1 = 10 %). */
export interface TradingMetrics {
  /** Number of per-bar returns (equity values − 1). */
  readonly bars: number;
  /** Periods per year used to annualize. */
  readonly periodsPerYear: number;
  /** `last / first − 1`. */
  readonly totalReturn: number;
  /** Geometric: `(last / first)^(periodsPerYear / bars) − 1`. */
  readonly annualizedReturn: number;
  /** Sample std (n − 1) of per-bar log returns × √periodsPerYear. */
  readonly annualizedVolatility: number;
  /** Mean / sample std of per-bar log returns × √periodsPerYear (risk-free rate 0). */
  readonly sharpe: number;
  /** Mean log return / downside deviation × √periodsPerYear; downside deviation = √(Σ min(r, 0)² / (n − 1)). */
  readonly sortino: number;
  /** Deepest fall from a running peak, a positive fraction. */
  readonly maxDrawdown: number;
  /** Index in the equity curve of the peak before the deepest fall; null without a drawdown. */
  readonly drawdownPeakIndex: number | null;
  /** Index in the equity curve of the bottom of the deepest fall; null without a drawdown. */
  readonly drawdownTroughIndex: number | null;
  /** `annualizedReturn / maxDrawdown`. */
  readonly calmar: number;
  /** Share of bars with a positive return among bars whose return is not exactly 0. */
  readonly hitRate: number;
  /** Σ per-bar turnover (traded value / portfolio value); null when no turnover was given. */
  readonly totalTurnover: number | null;
  /** Mean per-bar turnover × periodsPerYear (times the book is traded per year); null when not given. */
  readonly annualizedTurnover: number | null;
  /** Share of bars whose gross exposure is not 0 (|x| > 1e-12); null when no exposure was given. */
  readonly exposure: number | null;
  /** Why some metrics hold fallback values; empty when every metric was computed. */
  readonly flags: readonly MetricFlag[];
}

/** Input of {@link computeMetrics}. */
export interface MetricsInput {
  /** Portfolio values per bar; the first is the initial cash and must be positive. */
  readonly equity: Float64Array;
  /** Bars per year, from `periodsPerYear(timeframe, calendar)`. */
  readonly periodsPerYear: number;
  /** Per-bar traded value / portfolio value (one value per bar or step). Default: not reported. */
  readonly turnover?: ArrayLike<number>;
  /** Per-bar gross exposure, Σ|position value| / portfolio value. Default: not reported. */
  readonly exposure?: ArrayLike<number>;
}

/** Below this ratio of std to |mean| the std of log returns is treated as rounding noise. */
const RELATIVE_ZERO_STD = 1e-10;
const EXPOSURE_EPSILON = 1e-12;

/** Computes every {@link TradingMetrics} of an equity curve; throws on non-finite input. */
export function computeMetrics(input: MetricsInput): TradingMetrics {
  const { equity, periodsPerYear: ppy } = input;
  if (!(ppy > 0) || !Number.isFinite(ppy)) {
    throw new TradelabError('INVALID_ARGUMENT', `periodsPerYear ${ppy} is not a positive number`, {
      hint: 'use periodsPerYear(timeframe, calendar), e.g. 525600 for 1m bars on a 24/7 market',
    });
  }
  checkEquity(equity);
  const flags = new Set<MetricFlag>();
  const bars = Math.max(0, equity.length - 1);
  const first = equity[0];
  const last = equity[equity.length - 1];

  let totalReturn = 0;
  let annualizedReturn = 0;
  if (first === undefined || last === undefined) {
    flags.add('empty');
  } else {
    totalReturn = last / first - 1;
    if (bars === 0) {
      flags.add('too-few-bars');
    } else if (last <= 0) {
      annualizedReturn = -1;
    } else {
      annualizedReturn = Math.expm1((ppy / bars) * Math.log(last / first));
      if (!Number.isFinite(annualizedReturn)) {
        flags.add('overflow');
        annualizedReturn = Number.MAX_VALUE;
      }
    }
  }

  // Log returns up to the first non-positive value (ruin), summed in one pass each.
  let n = 0;
  let sum = 0;
  let positive = 0;
  let nonzero = 0;
  for (let t = 1; t < equity.length; t++) {
    const prev = equity[t - 1] ?? Number.NaN;
    const cur = equity[t] ?? Number.NaN;
    if (cur !== prev) nonzero++;
    if (cur > prev) positive++;
    if (cur <= 0) {
      flags.add('ruin');
      break;
    }
    sum += Math.log(cur / prev);
    n++;
  }
  const mean = n > 0 ? sum / n : 0;
  let squares = 0;
  let downSquares = 0;
  for (let t = 1; t <= n; t++) {
    const r = Math.log((equity[t] ?? Number.NaN) / (equity[t - 1] ?? Number.NaN));
    squares += (r - mean) ** 2;
    if (r < 0) downSquares += r * r;
  }

  let annualizedVolatility = 0;
  let sharpe = 0;
  let sortino = 0;
  const rootPpy = Math.sqrt(ppy);
  if (n < 2) {
    if (equity.length > 0) flags.add('too-few-bars');
  } else {
    const std = Math.sqrt(squares / (n - 1));
    if (std === 0 || std <= RELATIVE_ZERO_STD * Math.abs(mean)) {
      flags.add('zero-variance');
    } else {
      annualizedVolatility = std * rootPpy;
      sharpe = (mean / std) * rootPpy;
      const downside = Math.sqrt(downSquares / (n - 1));
      if (downside === 0) flags.add('no-downside');
      else sortino = (mean / downside) * rootPpy;
    }
  }

  const dd = maxDrawdown(equity);
  let calmar = 0;
  if (dd.depth === 0) {
    if (equity.length > 0) flags.add('no-drawdown');
  } else {
    calmar = annualizedReturn / dd.depth;
  }

  let hitRate = 0;
  if (nonzero > 0) hitRate = positive / nonzero;
  else if (bars > 0) flags.add('no-nonzero-returns');

  let totalTurnover: number | null = null;
  let annualizedTurnover: number | null = null;
  if (input.turnover !== undefined) {
    totalTurnover = sumChecked(input.turnover, 'turnover');
    annualizedTurnover =
      input.turnover.length > 0 ? (totalTurnover / input.turnover.length) * ppy : 0;
  }

  let exposure: number | null = null;
  if (input.exposure !== undefined) {
    const xs = input.exposure;
    let held = 0;
    for (let i = 0; i < xs.length; i++) {
      const x = finiteAt(xs, i, 'exposure');
      if (Math.abs(x) > EXPOSURE_EPSILON) held++;
    }
    exposure = xs.length > 0 ? held / xs.length : 0;
  }

  return {
    bars,
    periodsPerYear: ppy,
    totalReturn,
    annualizedReturn,
    annualizedVolatility,
    sharpe,
    sortino,
    maxDrawdown: dd.depth,
    drawdownPeakIndex: dd.peakIndex,
    drawdownTroughIndex: dd.troughIndex,
    calmar,
    hitRate,
    totalTurnover,
    annualizedTurnover,
    exposure,
    flags: [...flags],
  };
}

function finiteAt(xs: ArrayLike<number>, i: number, what: string): number {
  const x = xs[i] ?? Number.NaN;
  if (!Number.isFinite(x)) {
    throw new TradelabError('INVALID_ARGUMENT', `${what}[${i}] is ${x}, not a finite number`, {
      hint: `pass one finite ${what} value per bar`,
      details: { index: i, value: x },
    });
  }
  return x;
}

function sumChecked(xs: ArrayLike<number>, what: string): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += finiteAt(xs, i, what);
  return s;
}
