import { TradelabError } from '../core/index.js';
import { computeMetrics, type TradingMetrics } from './metrics.js';
import { checkEquity } from './returns.js';

/** Options for {@link buyAndHoldEquity}. */
export interface BuyAndHoldOptions {
  /** First bar of the range; the benchmark buys at its close. */
  readonly start: number;
  /** One past the last bar of the range. */
  readonly end: number;
  /** Cash invested at the start. Default 1. */
  readonly initialCash?: number;
  /** Fee on the one purchase, in basis points of the traded value. Default 0. */
  readonly feeBps?: number;
}

/**
 * The equal-weight buy-and-hold benchmark over bars [start, end) of `priceArray` (T × nAssets,
 * row-major close prices): at the close of `start` it spends the cash, less the fee, equally on every
 * asset and holds the quantities. Element 0 is `initialCash`; element k ≥ 1 is the holdings' value at
 * bar `start + k`. Weights drift with prices, so the per-bar return is Σ w_i,t−1 · p_i,t / p_i,t−1 − 1
 * (the value of the holdings, not an average of returns, and not inverted); the fee shows up in the
 * first bar's return.
 */
export function buyAndHoldEquity(
  priceArray: Float64Array,
  nAssets: number,
  options: BuyAndHoldOptions,
): Float64Array {
  const { start, end, initialCash = 1, feeBps = 0 } = options;
  if (!Number.isInteger(nAssets) || nAssets < 1 || priceArray.length % nAssets !== 0) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `nAssets ${nAssets} does not divide priceArray of length ${priceArray.length}`,
      { hint: 'priceArray is T × nAssets, row-major' },
    );
  }
  const rows = priceArray.length / nAssets;
  if (
    !Number.isInteger(start) ||
    !Number.isInteger(end) ||
    start < 0 ||
    end > rows ||
    end <= start
  ) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `range [${start}, ${end}) is not a non-empty range of bars in [0, ${rows})`,
      { hint: 'pass integer bar indexes with 0 ≤ start < end ≤ number of bars' },
    );
  }
  if (!(initialCash > 0) || !Number.isFinite(initialCash)) {
    throw new TradelabError('INVALID_ARGUMENT', `initialCash ${initialCash} is not positive`, {
      hint: 'e.g. initialCash: 1_000_000',
    });
  }
  if (!(feeBps >= 0) || feeBps >= 10_000) {
    throw new TradelabError('INVALID_ARGUMENT', `feeBps ${feeBps} is not in [0, 10000)`, {
      hint: '10 bps = 0.1 % of the traded value',
    });
  }
  const quantities = new Float64Array(nAssets);
  const perAsset = (initialCash * (1 - feeBps / 10_000)) / nAssets;
  for (let i = 0; i < nAssets; i++) {
    const p = priceArray[start * nAssets + i] ?? Number.NaN;
    if (!(p > 0) || !Number.isFinite(p)) {
      throw new TradelabError(
        'DATA_INVALID',
        `price of asset ${i} at bar ${start} is ${p}; buying needs a positive price`,
        { hint: 'clean the data (tradelab data import) or start the range later' },
      );
    }
    quantities[i] = perAsset / p;
  }
  const equity = new Float64Array(end - start);
  equity[0] = initialCash;
  for (let k = 1; k < equity.length; k++) {
    const row = (start + k) * nAssets;
    let value = 0;
    for (let i = 0; i < nAssets; i++) {
      value += (quantities[i] ?? Number.NaN) * (priceArray[row + i] ?? Number.NaN);
    }
    equity[k] = value;
  }
  return equity;
}

/**
 * Metrics of a strategy's excess over a benchmark on the same bars. The per-bar excess log return is
 * `ln(S_t / S_t−1) − ln(B_t / B_t−1)`; its running sum is the log of the relative wealth
 * `(S_t / S_0) / (B_t / B_0)`, and the metrics are those of that relative-wealth curve: `sharpe` is
 * the information ratio, `annualizedVolatility` the tracking error, `totalReturn` the strategy's
 * growth over the benchmark's minus 1, `maxDrawdown` the deepest underperformance from a relative peak.
 * Turnover and exposure are null.
 */
export function excessMetrics(
  strategyEquity: Float64Array,
  benchmarkEquity: Float64Array,
  periodsPerYear: number,
): TradingMetrics {
  if (strategyEquity.length !== benchmarkEquity.length) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `strategy equity has ${strategyEquity.length} values and benchmark equity ${benchmarkEquity.length}`,
      { hint: 'compute the benchmark on the same range of bars as the strategy' },
    );
  }
  checkEquity(strategyEquity, 'strategyEquity');
  checkEquity(benchmarkEquity, 'benchmarkEquity');
  const s0 = strategyEquity[0] ?? Number.NaN;
  const b0 = benchmarkEquity[0] ?? Number.NaN;
  const relative = new Float64Array(strategyEquity.length);
  for (let t = 0; t < relative.length; t++) {
    const b = benchmarkEquity[t] ?? Number.NaN;
    if (!(b > 0)) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `benchmarkEquity[${t}] is ${b}; it must be positive`,
        {
          hint: 'a buy-and-hold benchmark on positive prices stays positive; check the prices',
        },
      );
    }
    relative[t] = (strategyEquity[t] ?? Number.NaN) / s0 / (b / b0);
  }
  return computeMetrics({ equity: relative, periodsPerYear });
}
