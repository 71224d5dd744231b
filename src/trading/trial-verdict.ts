import { computeMetrics, rangeVerdict, type RangeVerdict } from '../eval/index.js';
import type { SplitResult } from './split-metrics.js';

/*
 * The verdict (eval's rangeVerdict, as `study show` and the reports give it) on a trial's
 * out-of-sample curve. A trial keeps its per-bar returns, not an evaluation: the curve is its
 * returns chained, the turnover its splits' (what the objective recorded in userAttrs.splits), and
 * the fees are already in the returns but not kept apart, so no finding can blame them, nor name an
 * episode cut short. A trial has no training run of its own here, so no explained variance either.
 */

/** The chained curves a verdict reads (TrialEquity's, without the times). */
export interface OosCurves {
  /** Bar index of each value, in order. */
  bars: readonly number[];
  /** Equity after each bar, the strategy's and buy-and-hold's, from 1 before the first bar. */
  strategy: readonly number[];
  benchmark: readonly number[];
}

/**
 * The trial's annualized turnover: its splits' (userAttrs.splits, written by the DRL objective),
 * weighted by their test bars, as the out-of-sample returns average every split that tested a
 * bar. Undefined when the trial recorded none.
 */
export function splitsTurnover(userAttrs: Readonly<Record<string, unknown>>): number | undefined {
  const splits = userAttrs.splits;
  if (!Array.isArray(splits)) return undefined;
  let traded = 0;
  let bars = 0;
  for (const split of splits as Partial<SplitResult>[]) {
    if (typeof split.turnover !== 'number' || !Array.isArray(split.test)) continue;
    const n = split.test.reduce((sum, [start, end]) => sum + (end - start), 0);
    traded += split.turnover * n;
    bars += n;
  }
  return bars > 0 ? traded / bars : undefined;
}

/** The verdict on a trial's out-of-sample curves (see the file header). */
export function trialVerdict(
  curves: OosCurves,
  periodsPerYear: number,
  turnover: number | undefined,
): RangeVerdict {
  const equity = Float64Array.from([1, ...curves.strategy]);
  const benchmark = Float64Array.from([1, ...curves.benchmark]);
  const first = curves.bars[0] ?? 0;
  const last = curves.bars.at(-1) ?? first;
  return rangeVerdict({
    range: [first, last + 1],
    bars: Int32Array.from([first - 1, ...curves.bars]),
    equity,
    benchmark,
    metrics: computeMetrics({
      equity,
      periodsPerYear,
      // Each bar carries the trial's mean, so the annualized turnover is that mean.
      ...(turnover === undefined
        ? {}
        : { turnover: new Float64Array(curves.strategy.length).fill(turnover / periodsPerYear) }),
    }),
    benchmarkMetrics: computeMetrics({ equity: benchmark, periodsPerYear }),
    fees: 0,
    ended: 'truncated',
  });
}
