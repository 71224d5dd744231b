import type { EnvRange } from '../env/env-config.js';
import type { MarketData } from '../data/load-market-data.js';
import { computeMetrics, type TradingMetrics } from './metrics.js';
import { periodsPerYear } from './periods-per-year.js';

/*
 * The deterministic episodes of an evaluation, one env per range, turned into equity curves and
 * metrics: what the CPU evaluator records step by step and what an evaluation on the GPU reads
 * back at its end, kept in one place so both give the same curves from the same steps.
 */

/** One evaluated range: the strategy's and the benchmark's equity curves and metrics. */
export interface RangeEvaluation {
  range: EnvRange;
  /** Bar index of each equity point: the start bar, then each bar an action filled at. */
  bars: Int32Array;
  equity: Float64Array;
  benchmark: Float64Array;
  metrics: TradingMetrics;
  benchmarkMetrics: TradingMetrics;
  /** Fees paid over the episode. */
  fees: number;
  /** How the episode ended. */
  ended: 'truncated' | 'terminated';
}

/** What the curves need of the env after a reset or a step (the env's `info`). */
export interface CurveInfo {
  bar: ArrayLike<number>;
  value: ArrayLike<number>;
  benchmarkValue: ArrayLike<number>;
  turnover: ArrayLike<number>;
  cash: ArrayLike<number>;
  feesPaid: ArrayLike<number>;
}

interface Curve {
  bars: number[];
  equity: number[];
  benchmark: number[];
  turnover: number[];
  exposure: number[];
}

/** Every range's curve, from the reset to each episode's end. */
export class EvaluationCurves {
  private readonly curves: Curve[];
  private readonly done: Uint8Array;
  private readonly fees: Float64Array;
  private readonly ended: ('truncated' | 'terminated')[];

  /** The curves of `ranges` (env e runs range e), starting from the reset's `info`. */
  constructor(
    private readonly ranges: readonly EnvRange[],
    info: CurveInfo,
  ) {
    const n = ranges.length;
    this.curves = ranges.map((range, e) => ({
      bars: [info.bar[e] ?? range[0]],
      equity: [info.value[e] ?? 0],
      benchmark: [info.benchmarkValue[e] ?? 0],
      turnover: [],
      exposure: [],
    }));
    this.done = new Uint8Array(n);
    this.fees = new Float64Array(n);
    this.ended = new Array<'truncated' | 'terminated'>(n).fill('truncated');
  }

  /** Whether some episode has not ended yet. */
  get running(): boolean {
    return this.done.some((d) => d === 0);
  }

  /** Whether env `e`'s episode has ended (its later steps are autoresets, not recorded). */
  isDone(e: number): boolean {
    return this.done[e] === 1;
  }

  /** Records a step of every env still in its episode. */
  step(info: CurveInfo, terminations: ArrayLike<number>, truncations: ArrayLike<number>): void {
    this.curves.forEach((curve, e) => {
      if (this.done[e] === 1) return;
      curve.bars.push(info.bar[e] ?? 0);
      curve.equity.push(info.value[e] ?? 0);
      curve.benchmark.push(info.benchmarkValue[e] ?? 0);
      // Turnover against the value before the step; exposure after it (holdings are long-only).
      const before = curve.equity.at(-2) ?? 1;
      const value = info.value[e] ?? 0;
      curve.turnover.push(before > 0 ? (info.turnover[e] ?? 0) / before : 0);
      curve.exposure.push(value > 0 ? 1 - (info.cash[e] ?? 0) / value : 0);
      if (terminations[e] === 1 || truncations[e] === 1) {
        this.done[e] = 1;
        this.fees[e] = info.feesPaid[e] ?? 0;
        this.ended[e] = terminations[e] === 1 ? 'terminated' : 'truncated';
      }
    });
  }

  /** Each range's evaluation: curves, the strategy's and buy-and-hold's metrics, fees. */
  finish(data: Pick<MarketData, 'timeframe' | 'calendar'>): RangeEvaluation[] {
    const perYear = periodsPerYear(data.timeframe, data.calendar);
    return this.ranges.map((range, e) => {
      const curve = this.curves[e] as Curve;
      const equity = Float64Array.from(curve.equity);
      const benchmark = Float64Array.from(curve.benchmark);
      return {
        range,
        bars: Int32Array.from(curve.bars),
        equity,
        benchmark,
        metrics: computeMetrics({
          equity,
          periodsPerYear: perYear,
          turnover: curve.turnover,
          exposure: curve.exposure,
        }),
        benchmarkMetrics: computeMetrics({ equity: benchmark, periodsPerYear: perYear }),
        fees: this.fees[e] ?? 0,
        ended: this.ended[e] ?? 'truncated',
      };
    });
  }
}
