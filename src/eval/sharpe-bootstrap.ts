import { Rng, TradelabError } from '../core/index.js';

/*
 * Whether a strategy beats a benchmark on the same bars, with a confidence interval: the circular
 * block bootstrap (Politis and Romano) of the difference of their annualized Sharpe ratios. Both
 * series are resampled with the same blocks, so what they share (the market both hold) stays
 * paired, and blocks of about n^(1/3) bars keep the returns' short-range dependence. The interval
 * is the percentile interval of the resampled differences; the share of resamples in which the
 * strategy is ahead says the same in one number. Seeded: the same inputs give the same interval.
 */

/** Options of {@link bootstrapSharpeDifference}. */
export interface SharpeBootstrapOptions {
  periodsPerYear: number;
  /** Bars a block. Default ⌈n^(1/3)⌉. */
  blockLength?: number;
  /** Default 1,000. */
  resamples?: number;
  /** Two-sided interval. Default 0.95. */
  confidence?: number;
  /** Default 0. */
  seed?: number;
}

/** The difference of annualized Sharpe ratios (strategy − benchmark) and its interval. */
export interface SharpeDifference {
  /** On the bars as they are. */
  difference: number;
  lower: number;
  upper: number;
  confidence: number;
  /** Share of resamples with the strategy's Sharpe above the benchmark's. */
  shareAhead: number;
  blockLength: number;
  resamples: number;
  bars: number;
}

/** Annualized Sharpe of log returns `r` at the indices `at` (mean / sample std × √periods). */
function sharpeAt(r: Float64Array, at: Int32Array, periodsPerYear: number): number {
  const n = at.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += r[at[i] as number] as number;
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) {
    const d = (r[at[i] as number] as number) - mean;
    squares += d * d;
  }
  const sd = Math.sqrt(squares / (n - 1));
  return sd > 1e-12 ? (mean / sd) * Math.sqrt(periodsPerYear) : 0;
}

/** Per-bar log returns of an equity curve. */
function logReturns(equity: ArrayLike<number>, what: string): Float64Array {
  const out = new Float64Array(Math.max(0, equity.length - 1));
  for (let i = 0; i < out.length; i++) {
    const from = equity[i] as number;
    const to = equity[i + 1] as number;
    if (!(from > 0 && to > 0))
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `${what} equity must stay above 0 for a Sharpe bootstrap; value ${i + (from > 0 ? 1 : 0)} is ${from > 0 ? to : from}`,
        { hint: 'a curve that reaches 0 (ruin) has no Sharpe ratio to compare' },
      );
    out[i] = Math.log(to / from);
  }
  return out;
}

/**
 * The block bootstrap of Sharpe(strategy) − Sharpe(benchmark) over two equity curves on the same
 * bars (equal lengths, at least 3 values each).
 */
export function bootstrapSharpeDifference(
  strategy: ArrayLike<number>,
  benchmark: ArrayLike<number>,
  options: SharpeBootstrapOptions,
): SharpeDifference {
  if (strategy.length !== benchmark.length || strategy.length < 3)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `a Sharpe bootstrap needs two equity curves on the same bars, at least 3 values each; got ${strategy.length} and ${benchmark.length}`,
      { hint: 'evaluate the benchmark on the strategy’s own bars' },
    );
  const a = logReturns(strategy, 'the strategy’s');
  const b = logReturns(benchmark, 'the benchmark’s');
  const n = a.length;
  const blockLength = Math.min(n, options.blockLength ?? Math.ceil(Math.cbrt(n)));
  const resamples = options.resamples ?? 1000;
  const confidence = options.confidence ?? 0.95;
  const ppy = options.periodsPerYear;
  const identity = Int32Array.from({ length: n }, (_, i) => i);
  const difference = sharpeAt(a, identity, ppy) - sharpeAt(b, identity, ppy);
  const rng = new Rng(options.seed ?? 0, 0x5b007);
  const at = new Int32Array(n);
  const differences = new Float64Array(resamples);
  let ahead = 0;
  for (let s = 0; s < resamples; s++) {
    for (let i = 0; i < n;) {
      const start = Math.floor(rng.uniform() * n);
      for (let j = 0; j < blockLength && i < n; j++, i++) at[i] = (start + j) % n;
    }
    const d = sharpeAt(a, at, ppy) - sharpeAt(b, at, ppy);
    differences[s] = d;
    if (d > 0) ahead++;
  }
  differences.sort();
  const tail = (1 - confidence) / 2;
  const quantile = (q: number): number =>
    differences[Math.min(resamples - 1, Math.max(0, Math.floor(q * resamples)))] as number;
  return {
    difference,
    lower: quantile(tail),
    upper: quantile(1 - tail),
    confidence,
    shareAhead: ahead / resamples,
    blockLength,
    resamples,
    bars: n,
  };
}
