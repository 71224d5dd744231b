import type { RangeEvaluation } from '../eval/evaluate.js';
import { computeMetrics } from '../eval/metrics.js';
import type { EnvRange } from '../env/env-config.js';
import type { AggregateSpec } from './study-spec.js';

/*
 * A split's out-of-sample result: its test ranges' per-bar returns chained into one curve (each
 * range is its own episode, starting flat), the metrics of that curve and of buy-and-hold's.
 */

/** What a trial stores of one split. */
export interface SplitResult {
  split: number;
  train: EnvRange[];
  test: EnvRange[];
  sharpe: number;
  benchmarkSharpe: number;
  totalReturn: number;
  benchmarkReturn: number;
  maxDrawdown: number;
  /** Annualized turnover (times the book is traded per year). */
  turnover: number;
  envSteps: number;
  rolloutSeconds: number;
  updateSeconds: number;
}

/** Per-bar returns of a strategy: `bars[i]` is the bar whose fill earned `returns[i]`. */
export interface BarReturns {
  bars: number[];
  returns: number[];
  benchmark: number[];
}

/** The per-bar returns of evaluated ranges, in order. */
export function barReturns(evaluations: readonly RangeEvaluation[]): BarReturns {
  const out: BarReturns = { bars: [], returns: [], benchmark: [] };
  for (const e of evaluations)
    for (let i = 1; i < e.equity.length; i++) {
      out.bars.push(e.bars[i] as number);
      out.returns.push((e.equity[i] as number) / (e.equity[i - 1] as number) - 1);
      out.benchmark.push((e.benchmark[i] as number) / (e.benchmark[i - 1] as number) - 1);
    }
  return out;
}

/** Sharpe, return, drawdown and turnover of the chained test ranges of one split. */
export function splitMetrics(
  evaluations: readonly RangeEvaluation[],
  periodsPerYear: number,
): Pick<
  SplitResult,
  'sharpe' | 'benchmarkSharpe' | 'totalReturn' | 'benchmarkReturn' | 'maxDrawdown' | 'turnover'
> {
  const { returns, benchmark } = barReturns(evaluations);
  const chain = (r: number[]): Float64Array => {
    const equity = new Float64Array(r.length + 1);
    equity[0] = 1;
    r.forEach((x, i) => (equity[i + 1] = (equity[i] as number) * (1 + x)));
    return equity;
  };
  // Annualized turnover of the ranges, weighted by their bars.
  let traded = 0;
  let bars = 0;
  for (const e of evaluations) {
    const n = e.equity.length - 1;
    traded += (e.metrics.annualizedTurnover ?? 0) * n;
    bars += n;
  }
  const strategy = computeMetrics({ equity: chain(returns), periodsPerYear });
  const held = computeMetrics({ equity: chain(benchmark), periodsPerYear });
  return {
    sharpe: strategy.sharpe,
    benchmarkSharpe: held.sharpe,
    totalReturn: strategy.totalReturn,
    benchmarkReturn: held.totalReturn,
    maxDrawdown: strategy.maxDrawdown,
    turnover: bars === 0 ? 0 : traded / bars,
  };
}

/** The trial's value from its splits' Sharpe ratios. */
export function aggregateSplits(
  splits: readonly Pick<SplitResult, 'sharpe' | 'benchmarkSharpe'>[],
  aggregate: AggregateSpec,
): number {
  const values =
    aggregate.method === 'excess'
      ? splits.map((s) => s.sharpe - s.benchmarkSharpe)
      : splits.map((s) => s.sharpe);
  if (values.length === 0) return Number.NaN;
  const mean = values.reduce((s, x) => s + x, 0) / values.length;
  switch (aggregate.method) {
    case 'mean':
    case 'excess':
      return mean;
    case 'median': {
      const sorted = [...values].sort((a, b) => a - b);
      const mid = sorted.length >> 1;
      return sorted.length % 2 === 1
        ? (sorted[mid] as number)
        : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
    }
    case 'mean-std': {
      const variance =
        values.length < 2
          ? 0
          : values.reduce((s, x) => s + (x - mean) ** 2, 0) / (values.length - 1);
      return mean - aggregate.lambda * Math.sqrt(variance);
    }
  }
}
