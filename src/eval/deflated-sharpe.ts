import { TradelabError } from '../core/index.js';
import { inverseNormalCdf, normalCdf } from './normal-distribution.js';

/*
 * The deflated Sharpe ratio (Bailey and López de Prado, 2014): the probability that a strategy's
 * true Sharpe ratio is above what the best of N trials would show by luck alone. The selected
 * trial's Sharpe is compared with the expected maximum of N Sharpe estimates whose spread across
 * the trials is V — SR₀ = √V · ((1 − γ) Φ⁻¹(1 − 1/N) + γ Φ⁻¹(1 − 1/(N e))), γ Euler–Mascheroni —
 * and the gap is scaled by the estimate's standard error, which grows with negative skew and fat
 * tails: DSR = Φ((SR − SR₀) √(T − 1) / √(1 − γ₃ SR + (γ₄ − 1)/4 · SR²)). Everything is per bar,
 * not annualized. With one trial SR₀ is 0 and this is the probabilistic Sharpe ratio against 0.
 */

const EULER_GAMMA = 0.5772156649015329;

/** What the deflation is computed from. */
export interface DeflatedSharpeInput {
  /** The selected trial's per-bar Sharpe ratio (mean / sample std of its per-bar returns). */
  sharpe: number;
  /** Returns the Sharpe ratio was estimated from. */
  bars: number;
  /** Skewness of those returns (0 for a normal). */
  skewness: number;
  /** Kurtosis of those returns, not excess (3 for a normal). */
  kurtosis: number;
  /** Trials tried before choosing this one. */
  trials: number;
  /** Variance of the trials' per-bar Sharpe ratios. */
  trialSharpeVariance: number;
}

/** The deflated Sharpe ratio and what went into it. */
export interface DeflatedSharpe {
  /** P(true Sharpe > SR₀), in [0, 1]; above 0.95 the selection is unlikely to be luck alone. */
  probability: number;
  /** SR₀: the per-bar Sharpe the best of `trials` would reach by luck. */
  expectedMaxSharpe: number;
  sharpe: number;
  trials: number;
  bars: number;
}

/** The expected maximum of `trials` Sharpe estimates of variance `variance` whose true value is 0. */
export function expectedMaxSharpe(trials: number, variance: number): number {
  if (trials <= 1 || variance <= 0) return 0;
  return (
    Math.sqrt(variance) *
    ((1 - EULER_GAMMA) * inverseNormalCdf(1 - 1 / trials) +
      EULER_GAMMA * inverseNormalCdf(1 - 1 / (trials * Math.E)))
  );
}

/** The deflated Sharpe ratio of a trial selected among `trials`. */
export function deflatedSharpe(input: DeflatedSharpeInput): DeflatedSharpe {
  const { sharpe, bars, skewness, kurtosis, trials, trialSharpeVariance } = input;
  for (const [name, value] of Object.entries(input))
    if (!Number.isFinite(value))
      throw new TradelabError('INVALID_ARGUMENT', `deflated Sharpe: ${name} is ${value}`, {
        hint: 'pass finite moments of at least 2 returns',
      });
  if (bars < 2 || trials < 1)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `deflated Sharpe needs at least 2 returns and 1 trial, got ${bars} and ${trials}`,
      { hint: 'evaluate the trial on a range of at least 3 bars' },
    );
  const threshold = expectedMaxSharpe(trials, trialSharpeVariance);
  // The estimate's variance term; never below 0 for real moments, guarded against rounding.
  const spread = Math.max(1e-12, 1 - skewness * sharpe + ((kurtosis - 1) / 4) * sharpe * sharpe);
  const probability = normalCdf(((sharpe - threshold) * Math.sqrt(bars - 1)) / Math.sqrt(spread));
  return { probability, expectedMaxSharpe: threshold, sharpe, trials, bars };
}

/** Per-bar Sharpe (mean / sample std), skewness and non-excess kurtosis of per-bar returns. */
export function returnMoments(returns: ArrayLike<number>): {
  sharpe: number;
  skewness: number;
  kurtosis: number;
  bars: number;
} {
  const n = returns.length;
  let mean = 0;
  for (let i = 0; i < n; i++) mean += returns[i] ?? 0;
  mean /= Math.max(1, n);
  let m2 = 0;
  let m3 = 0;
  let m4 = 0;
  for (let i = 0; i < n; i++) {
    const d = (returns[i] ?? 0) - mean;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  if (n < 2 || m2 === 0) return { sharpe: 0, skewness: 0, kurtosis: 3, bars: n };
  const population = m2 / n;
  return {
    sharpe: mean / Math.sqrt(m2 / (n - 1)),
    skewness: m3 / n / population ** 1.5,
    kurtosis: m4 / n / (population * population),
    bars: n,
  };
}
