/**
 * The probability of backtest overfitting (PBO) of a finished study, by combinatorially symmetric
 * cross-validation (CSCV; Bailey, Borwein, López de Prado and Zhu, "The Probability of Backtest
 * Overfitting", 2015).
 *
 * The bars are cut into S contiguous blocks. For each choice J of S/2 blocks as in-sample (the rest
 * J̄ out-of-sample) the trial that is best in-sample is selected, and its out-of-sample rank among all
 * trials is turned into a logit λ. PBO is the share of choices whose selected trial lands at or below
 * the out-of-sample median (λ ≤ 0): how often picking the best backtest picks a below-median strategy.
 */
import { Rng } from '../core/random.js';
import { TradelabError } from '../core/index.js';

/** A performance metric on one trial's per-bar returns over a set of blocks, in time order. */
export type PboMetric = (returns: Float64Array) => number;

/** Options of {@link probabilityOfBacktestOverfitting}. */
export interface PboOptions {
  /** Number S of contiguous blocks the bars are split into; even, 2 to 52. Default 16. */
  readonly blocks?: number;
  /**
   * Performance of a trial on a set of blocks. Default: the per-bar Sharpe ratio, computed from
   * per-block sums (see {@link perBarSharpe}); a custom metric is called on the returns themselves,
   * twice per trial and combination, so it costs O(T·N) per combination instead of O(S·N).
   */
  readonly metric?: PboMetric;
  /**
   * Evaluate at most this many combinations (at least 2); when C(S, S/2) is larger, a seeded random
   * subset of complementary pairs (J and J̄ both) is drawn instead, maxCombinations rounded down to
   * an even count. Default 100 000: every combination up to S = 18 (48 620 of them), a sample above.
   */
  readonly maxCombinations?: number;
  /** Seed of the random subset, so a sampled result is reproducible. Default 0. */
  readonly seed?: number;
}

/** The in-sample best trial's in-sample and out-of-sample performance, one pair per combination. */
export interface PerformanceDegradation {
  /** Performance of the selected trial on the in-sample blocks J. */
  readonly inSample: Float64Array;
  /** Performance of the same trial on the out-of-sample blocks J̄. */
  readonly outOfSample: Float64Array;
  /** Least-squares slope of out-of-sample on in-sample; null when the in-sample values do not vary. */
  readonly slope: number | null;
  /** Least-squares intercept of that line; null when the slope is. */
  readonly intercept: number | null;
}

/** Result of {@link probabilityOfBacktestOverfitting}. */
export interface PboResult {
  /** Share of combinations with λ ≤ 0: the in-sample best trial is at or below the OOS median. */
  readonly pbo: number;
  /** λ = ln(ω / (1 − ω)) per combination, ω = OOS rank of the selected trial / (N + 1). */
  readonly logits: Float64Array;
  /** The in-sample blocks J of each combination, ascending; the others are out-of-sample. */
  readonly inSampleBlocks: readonly Uint8Array[];
  /** Index of the in-sample best trial per combination (the lowest index on ties). */
  readonly selectedTrials: Int32Array;
  /** In-sample vs out-of-sample performance of the selected trials. */
  readonly degradation: PerformanceDegradation;
  /** Share of combinations whose selected trial has an out-of-sample performance below 0. */
  readonly probabilityOfLoss: number;
  /** S, the number of blocks. */
  readonly blocks: number;
  /** N, the number of trials. */
  readonly trials: number;
  /** Bars per block. */
  readonly blockBars: number;
  /** Bars used: S × blockBars. */
  readonly barsUsed: number;
  /** Bars left out at the end because T is not a multiple of S. */
  readonly barsDropped: number;
  /** Combinations evaluated (the length of `logits`). */
  readonly combinations: number;
  /** C(S, S/2), the number of combinations there are. */
  readonly totalCombinations: number;
  /** Whether `combinations` is a random subset of all of them (see `maxCombinations`). */
  readonly sampled: boolean;
}

const DEFAULT_BLOCKS = 16;
const DEFAULT_MAX_COMBINATIONS = 100_000;
/** Block sets are keyed by their bit mask in a double, exact up to 2^53. */
const MAX_BLOCKS = 52;
/** Below this ratio of std to |mean| the std is treated as rounding noise, as in metrics.ts. */
const RELATIVE_ZERO_STD = 1e-10;

/**
 * Fewest trials whose PBO is worth reading. The selected trial's out-of-sample rank takes only N
 * values, so PBO moves in steps of 1/N of the rank scale, and with an odd N the median trial itself
 * counts as "at or below the median", so pure noise gives (N + 1) / 2N instead of 1/2 (67 % at
 * N = 3, 60 % at 5). From 10 trials the steps are 10 points and the bias at most 5 (N = 11); the
 * paper's own examples use hundreds of trials.
 */
export const PBO_MIN_TRIALS = 10;
/**
 * Fewest CSCV combinations worth reading: C(S, S/2) is 6 at S = 4 blocks (3 distinct halves, each
 * with its complement), 20 at S = 6.
 */
export const PBO_MIN_COMBINATIONS = 20;

/**
 * Why a PBO result cannot be read as a probability, one sentence per reason; empty when it can
 * (at least {@link PBO_MIN_TRIALS} trials and {@link PBO_MIN_COMBINATIONS} combinations).
 */
export function pboCaveats(
  result: Pick<PboResult, 'trials' | 'combinations' | 'blocks'>,
): string[] {
  const caveats: string[] = [];
  const n = result.trials;
  if (n < PBO_MIN_TRIALS) {
    const noise = Math.floor((n + 1) / 2) / n;
    caveats.push(
      `only ${n} trials: the in-sample best's out-of-sample rank takes just ${n} values, so PBO moves in steps of ${Math.round(100 / n)} points${noise > 0.5 ? `, and pure noise gives ${Math.round(noise * 100)} % rather than 50 %` : ''}; read PBO from ${PBO_MIN_TRIALS} trials on`,
    );
  }
  if (result.combinations < PBO_MIN_COMBINATIONS)
    caveats.push(
      `only ${result.combinations} combinations (${result.blocks} blocks): too few in-sample/out-of-sample splits to estimate a share; use at least 6 blocks (20 combinations), which needs more out-of-sample bars`,
    );
  return caveats;
}

/**
 * Mean / sample std (n − 1) of per-bar returns, not annualized (ranks do not depend on scale);
 * 0 when there are fewer than 2 returns or they do not vary.
 */
export function perBarSharpe(returns: ArrayLike<number>): number {
  const n = returns.length;
  if (n < 2) return 0;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += returns[i] ?? 0;
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += ((returns[i] ?? 0) - mean) ** 2;
  return sharpeOf(mean, Math.sqrt(squares / (n - 1)));
}

/**
 * The probability of backtest overfitting of N trials by CSCV. `trials[n]` holds trial n's per-bar
 * out-of-sample returns, all over the same T bars in time order (the columns of the paper's T × N
 * matrix). Throws TradelabError INVALID_ARGUMENT on fewer than 2 trials, unequal lengths, T < 2·S,
 * an S that is odd or out of range, and on non-finite returns.
 */
export function probabilityOfBacktestOverfitting(
  trials: readonly ArrayLike<number>[],
  options: PboOptions = {},
): PboResult {
  const blocks = options.blocks ?? DEFAULT_BLOCKS;
  const maxCombinations = options.maxCombinations ?? DEFAULT_MAX_COMBINATIONS;
  const seed = options.seed ?? 0;
  checkBlocks(blocks);
  checkMaxCombinations(maxCombinations);
  const bars = checkTrials(trials, blocks);
  const n = trials.length;
  const blockBars = Math.floor(bars / blocks);

  const totalCombinations = binomial(blocks, blocks / 2);
  const sampled = totalCombinations > maxCombinations;
  const inSampleSets = sampled
    ? sampleComplementaryPairs(blocks, Math.floor(maxCombinations / 2), seed)
    : allHalves(blocks);

  const columns = packColumns(trials, blocks * blockBars);
  const perform =
    options.metric === undefined
      ? blockSumSharpe(columns, n, blocks, blockBars)
      : customMetric(columns, n, blocks, blockBars, options.metric);

  const count = inSampleSets.length;
  const logits = new Float64Array(count);
  const selectedTrials = new Int32Array(count);
  const inSample = new Float64Array(count);
  const outOfSample = new Float64Array(count);
  const isPerformance = new Float64Array(n);
  const oosPerformance = new Float64Array(n);
  const isMember = new Uint8Array(blocks);
  let overfit = 0;
  let losses = 0;
  for (let c = 0; c < count; c++) {
    isMember.fill(0);
    for (const b of inSampleSets[c] ?? []) isMember[b] = 1;
    perform(isMember, 1, isPerformance);
    perform(isMember, 0, oosPerformance);

    let best = 0;
    for (let t = 1; t < n; t++) {
      if ((isPerformance[t] ?? 0) > (isPerformance[best] ?? 0)) best = t;
    }
    const bestOos = oosPerformance[best] ?? 0;
    const rank = averageRank(oosPerformance, bestOos);
    const omega = rank / (n + 1);
    logits[c] = Math.log(omega / (1 - omega));
    selectedTrials[c] = best;
    inSample[c] = isPerformance[best] ?? 0;
    outOfSample[c] = bestOos;
    // λ ≤ 0 ⇔ ω ≤ 1/2, decided on the rank itself so no rounding in the log can flip it.
    if (2 * rank <= n + 1) overfit++;
    if (bestOos < 0) losses++;
  }

  return {
    pbo: overfit / count,
    logits,
    inSampleBlocks: inSampleSets,
    selectedTrials,
    degradation: { inSample, outOfSample, ...leastSquaresLine(inSample, outOfSample) },
    probabilityOfLoss: losses / count,
    blocks,
    trials: n,
    blockBars,
    barsUsed: blockBars * blocks,
    barsDropped: bars - blockBars * blocks,
    combinations: count,
    totalCombinations,
    sampled,
  };
}

/**
 * Writes each trial's performance on the blocks b with `membership[b] === side` into `out`.
 * Called with side 1 for the in-sample set J and side 0 for its complement J̄.
 */
type Performance = (membership: Uint8Array, side: 0 | 1, out: Float64Array) => void;

/**
 * The default Sharpe from per-block sums of (r − c) and (r − c)², c the trial's mean over the used
 * bars: a combination then costs O(S·N). Centring keeps Σx² − (Σx)²/n from cancelling catastrophically
 * when |mean| ≫ std, and makes a constant trial's std exactly 0.
 */
function blockSumSharpe(
  columns: Float64Array,
  n: number,
  blocks: number,
  blockBars: number,
): Performance {
  const used = blocks * blockBars;
  const centre = new Float64Array(n);
  const sums = new Float64Array(blocks * n);
  const squares = new Float64Array(blocks * n);
  for (let t = 0; t < n; t++) {
    const start = t * used;
    let total = 0;
    for (let i = start; i < start + used; i++) total += columns[i] ?? 0;
    const c = total / used;
    centre[t] = c;
    for (let b = 0; b < blocks; b++) {
      let sum = 0;
      let square = 0;
      for (let i = start + b * blockBars; i < start + (b + 1) * blockBars; i++) {
        const x = (columns[i] ?? 0) - c;
        sum += x;
        square += x * x;
      }
      sums[b * n + t] = sum;
      squares[b * n + t] = square;
    }
  }
  const setSums = new Float64Array(n);
  const setSquares = new Float64Array(n);
  return (membership, side, out) => {
    setSums.fill(0);
    setSquares.fill(0);
    let members = 0;
    for (let b = 0; b < blocks; b++) {
      if (membership[b] !== side) continue;
      members++;
      for (let t = 0; t < n; t++) {
        setSums[t] = (setSums[t] ?? 0) + (sums[b * n + t] ?? 0);
        setSquares[t] = (setSquares[t] ?? 0) + (squares[b * n + t] ?? 0);
      }
    }
    const count = members * blockBars;
    for (let t = 0; t < n; t++) {
      const sum = setSums[t] ?? 0;
      const variance = Math.max(0, ((setSquares[t] ?? 0) - (sum * sum) / count) / (count - 1));
      out[t] = sharpeOf((centre[t] ?? 0) + sum / count, Math.sqrt(variance));
    }
  };
}

/** A custom metric, called on each trial's returns over the chosen blocks, concatenated in order. */
function customMetric(
  columns: Float64Array,
  n: number,
  blocks: number,
  blockBars: number,
  metric: PboMetric,
): Performance {
  const used = blocks * blockBars;
  const buffer = new Float64Array(used);
  return (membership, side, out) => {
    for (let t = 0; t < n; t++) {
      let length = 0;
      for (let b = 0; b < blocks; b++) {
        if (membership[b] !== side) continue;
        const start = t * used + b * blockBars;
        buffer.set(columns.subarray(start, start + blockBars), length);
        length += blockBars;
      }
      // A view, not a copy: the metric must not keep it past the call.
      const value = metric(buffer.subarray(0, length));
      if (!Number.isFinite(value)) {
        const chosen = [...membership.keys()].filter((b) => membership[b] === side);
        throw new TradelabError(
          'INVALID_ARGUMENT',
          `the PBO metric returned ${value} for trial ${t} on blocks [${chosen.join(', ')}]`,
          {
            hint: 'make the metric return a finite number, e.g. 0 where it is undefined',
            details: { trial: t, blocks: chosen, value },
          },
        );
      }
      out[t] = value;
    }
  };
}

/** The first `used` returns of every trial, trial after trial in one array: monomorphic and fast to slice. */
function packColumns(trials: readonly ArrayLike<number>[], used: number): Float64Array {
  const columns = new Float64Array(trials.length * used);
  for (let t = 0; t < trials.length; t++) {
    const returns = trials[t] ?? [];
    for (let i = 0; i < used; i++) columns[t * used + i] = returns[i] ?? 0;
  }
  return columns;
}

function sharpeOf(mean: number, std: number): number {
  return std === 0 || std <= RELATIVE_ZERO_STD * Math.abs(mean) ? 0 : mean / std;
}

/** Rank of `value` among `values`, 1..N ascending; tied values share the average of their ranks. */
function averageRank(values: Float64Array, value: number): number {
  let below = 0;
  let equal = 0;
  for (const v of values) {
    if (v < value) below++;
    else if (v === value) equal++;
  }
  return below + (equal + 1) / 2;
}

function leastSquaresLine(
  x: Float64Array,
  y: Float64Array,
): { slope: number | null; intercept: number | null } {
  const n = x.length;
  let meanX = 0;
  let meanY = 0;
  for (let i = 0; i < n; i++) {
    meanX += (x[i] ?? 0) / n;
    meanY += (y[i] ?? 0) / n;
  }
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (x[i] ?? 0) - meanX;
    sxx += dx * dx;
    sxy += dx * ((y[i] ?? 0) - meanY);
  }
  if (!(sxx > 0)) return { slope: null, intercept: null };
  const slope = sxy / sxx;
  return { slope, intercept: meanY - slope * meanX };
}

/** C(n, k), exact: BigInt keeps the intermediate products exact beyond 2^53. */
function binomial(n: number, k: number): number {
  let c = 1n;
  for (let i = 1; i <= k; i++) c = (c * BigInt(n - k + i)) / BigInt(i);
  return Number(c);
}

/** Every S/2-subset of the S blocks, in lexicographic order. */
function allHalves(blocks: number): Uint8Array[] {
  const k = blocks / 2;
  const current = Uint8Array.from({ length: k }, (_, i) => i);
  const sets: Uint8Array[] = [];
  for (;;) {
    sets.push(current.slice());
    // Advance the rightmost index that still has room, then reset the ones after it.
    let i = k - 1;
    while (i >= 0 && (current[i] ?? 0) === blocks - k + i) i--;
    if (i < 0) return sets;
    current[i] = (current[i] ?? 0) + 1;
    for (let j = i + 1; j < k; j++) current[j] = (current[j - 1] ?? 0) + 1;
  }
}

/**
 * `pairs` distinct random in-sample sets together with their complements, so the subset stays
 * symmetric like the full CSCV: every sampled in-sample set is also an out-of-sample set. Each pair
 * is drawn as the half that holds block 0; a partial Fisher–Yates picks its other S/2 − 1 blocks.
 */
function sampleComplementaryPairs(blocks: number, pairs: number, seed: number): Uint8Array[] {
  const rng = new Rng(seed);
  const k = blocks / 2;
  const pool = new Uint8Array(blocks - 1);
  const seen = new Set<number>();
  const sets: Uint8Array[] = [];
  while (seen.size < pairs) {
    for (let i = 0; i < pool.length; i++) pool[i] = i + 1;
    for (let i = 0; i < k - 1; i++) {
      const j = i + Math.floor(rng.uniform() * (pool.length - i));
      const picked = pool[j] ?? 0;
      pool[j] = pool[i] ?? 0;
      pool[i] = picked;
    }
    const half = Uint8Array.from([0, ...pool.subarray(0, k - 1)]).sort();
    let mask = 0;
    for (const b of half) mask += 2 ** b;
    if (seen.has(mask)) continue;
    seen.add(mask);
    const complement = new Uint8Array(k);
    let length = 0;
    for (let b = 0; b < blocks; b++) if (!half.includes(b)) complement[length++] = b;
    sets.push(half, complement);
  }
  return sets;
}

function checkBlocks(blocks: number): void {
  if (!Number.isInteger(blocks) || blocks < 2 || blocks > MAX_BLOCKS || blocks % 2 !== 0) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `PBO blocks ${blocks} is not allowed: expected an even integer from 2 to ${MAX_BLOCKS}`,
      {
        hint: 'CSCV splits the bars into halves of blocks; use an even number such as 16 (the default)',
        details: { blocks },
      },
    );
  }
}

function checkMaxCombinations(maxCombinations: number): void {
  if (!Number.isInteger(maxCombinations) || maxCombinations < 2) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `PBO maxCombinations ${maxCombinations} is not allowed: expected an integer of at least 2`,
      {
        hint: 'combinations are sampled in complementary pairs; leave it out for the default 100000',
        details: { maxCombinations },
      },
    );
  }
}

/** Checks the trials' shape and values; returns T, the number of bars. */
function checkTrials(trials: readonly ArrayLike<number>[], blocks: number): number {
  if (trials.length < 2) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `PBO needs at least 2 trials to rank, got ${trials.length}`,
      {
        hint: 'pass the out-of-sample returns of every completed trial of the study',
        details: { trials: trials.length },
      },
    );
  }
  const bars = trials[0]?.length ?? 0;
  for (let t = 0; t < trials.length; t++) {
    const returns = trials[t] ?? [];
    if (returns.length !== bars) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `trial ${t} has ${returns.length} returns but trial 0 has ${bars}`,
        {
          hint: 'every trial needs one return per bar over the same bars (the same T rows)',
          details: { trial: t, bars: returns.length, expected: bars },
        },
      );
    }
    for (let i = 0; i < bars; i++) {
      const x = returns[i];
      if (x === undefined || !Number.isFinite(x)) {
        throw new TradelabError(
          'INVALID_ARGUMENT',
          `trial ${t} (column ${t}) has return ${x} at bar ${i} (row ${i}), not a finite number`,
          {
            hint: 'fix or drop that bar in every trial; use 0 for a bar without a position',
            details: { trial: t, bar: i, value: x },
          },
        );
      }
    }
  }
  if (bars < 2 * blocks) {
    throw new TradelabError(
      'DATA_TOO_SHORT',
      `PBO needs at least 2 bars per block: ${bars} bars for ${blocks} blocks (at least ${2 * blocks})`,
      {
        hint:
          bars < 4
            ? 'CSCV needs at least 4 bars (2 blocks of 2); pass longer out-of-sample returns'
            : `use fewer blocks (at most ${2 * Math.floor(bars / 4)}) or longer out-of-sample returns`,
        details: { bars, blocks },
      },
    );
  }
  return bars;
}
