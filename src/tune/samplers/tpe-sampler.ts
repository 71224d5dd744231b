/*
 * Tree-structured Parzen Estimator (Bergstra et al. 2011), with Optuna's defaults and conventions:
 * the finished trials are split into the best γ(n) ("below") and the rest ("above"), a Parzen
 * estimator l(x) is fitted to the first and g(x) to the second, and of `nEiCandidates` draws from
 * l the one with the largest l(x)/g(x) is suggested.
 *
 * Per suggestion the work is O(n) to split and gather, one sort of the "above" values (for the
 * bandwidths) and O(n · candidates) to evaluate g; nothing is sorted by value (the best γ(n) are
 * picked by insertion into a buffer of at most 25).
 */
import { Rng } from '../../core/random.js';
import { TradelabError } from '../../core/index.js';
import type {
  Distribution,
  ParamValue,
  StudyDirection,
  TrialRecord,
} from '../../storage/records.js';
import { contains, fromInternal, sameDistribution, toInternal } from '../distributions.js';
import type { Sampler, SamplerContext } from '../sampler.js';
import {
  ParzenEstimator,
  parzenDimension,
  type ParzenEstimatorOptions,
} from './parzen-estimator.js';
import { RandomSampler, checkSeed, nameStream } from './random-sampler.js';
import { float64, int32, uint8, withScratch } from './scratch.js';

/** Options of {@link TpeSampler}. */
export interface TpeSamplerOptions {
  /** Seed of every draw (a safe integer). Default 0. */
  seed?: number;
  /** Finished (complete or pruned) trials sampled at random before TPE takes over. Default 10. */
  nStartupTrials?: number;
  /** Candidates drawn from l(x); the one with the best l(x)/g(x) wins. Default 24. */
  nEiCandidates?: number;
  /** Weight of the prior kernel (a wide normal over the whole range). Default 1. */
  priorWeight?: number;
  /** Clip bandwidths below at range / min(100, kernels + 1). Default true. */
  considerMagicClip?: boolean;
  /** Let the range's ends bound the outermost kernels' bandwidths. Default false. */
  considerEndpoints?: boolean;
  /**
   * Model the parameters every finished trial has jointly ({@link TpeSampler.sampleRelative});
   * others are still sampled one by one. Default false.
   */
  multivariate?: boolean;
  /**
   * Count running trials, with the params they have so far, among the bad ("above") ones, so that
   * workers asking at the same time spread out. Default true.
   */
  constantLiar?: boolean;
  /** How many of n finished trials are "below" (good). Default min(ceil(0.1 n), 25). */
  gamma?: (n: number) => number;
  /** Weights of n observations, oldest first. Default {@link defaultWeights}. */
  weights?: (n: number) => ArrayLike<number>;
}

/** Optuna's default γ: the best 10 %, at most 25. */
export function defaultGamma(n: number): number {
  return Math.min(Math.ceil(0.1 * n), 25);
}

/** Optuna's default weights: 1 for the latest 25 observations, a ramp from 1/n up for older ones. */
export function defaultWeights(n: number): Float64Array {
  const w = float64(n).fill(1);
  const ramp = n - 25;
  if (ramp <= 0) return w;
  if (ramp === 1) w[0] = 1 / n;
  else for (let i = 0; i < ramp; i++) w[i] = 1 / n + ((1 - 1 / n) * i) / (ramp - 1);
  return w;
}

function invalid(message: string, hint: string): TradelabError {
  return new TradelabError('INVALID_ARGUMENT', `tpe sampler: ${message}`, { hint });
}

function checkInt(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min)
    throw invalid(`${name} ${value} is not allowed`, `use a whole number ≥ ${min}`);
  return value;
}

/** Which group a trial falls in for a split. */
const IGNORED = 0;
const BELOW = 1;
const ABOVE = 2;

/** The trials of a context in number order, and the group of each. */
interface Split {
  trials: readonly TrialRecord[];
  group: Uint8Array;
}

/** Tree-structured Parzen Estimator sampler. */
export class TpeSampler implements Sampler {
  readonly description: string;
  private readonly seed: number;
  private readonly nStartupTrials: number;
  private readonly nEiCandidates: number;
  private readonly multivariate: boolean;
  private readonly constantLiar: boolean;
  private readonly gamma: (n: number) => number;
  private readonly weights: (n: number) => ArrayLike<number>;
  private readonly estimatorOptions: ParzenEstimatorOptions;
  private readonly random: RandomSampler;

  constructor(options: TpeSamplerOptions = {}) {
    this.seed = checkSeed('tpe', options.seed);
    this.nStartupTrials = checkInt('nStartupTrials', options.nStartupTrials ?? 10, 0);
    this.nEiCandidates = checkInt('nEiCandidates', options.nEiCandidates ?? 24, 1);
    const priorWeight = options.priorWeight ?? 1;
    if (!(priorWeight > 0) || !Number.isFinite(priorWeight))
      throw invalid(`priorWeight ${priorWeight} is not allowed`, 'use a finite number > 0, e.g. 1');
    this.multivariate = options.multivariate ?? false;
    this.constantLiar = options.constantLiar ?? true;
    this.gamma = options.gamma ?? defaultGamma;
    this.weights = options.weights ?? defaultWeights;
    this.estimatorOptions = {
      priorWeight,
      considerMagicClip: options.considerMagicClip ?? true,
      considerEndpoints: options.considerEndpoints ?? false,
      multivariate: false,
    };
    this.random = new RandomSampler({ seed: this.seed });
    const traits = [this.multivariate ? 'multivariate' : 'univariate'];
    if (this.constantLiar) traits.push('constant liar');
    traits.push(`seed ${this.seed}`);
    this.description = `tpe (${traits.join(', ')})`;
  }

  /**
   * Joint values (multivariate mode only) for the parameters that every finished trial has with
   * the same distribution; {} during the startup trials.
   */
  sampleRelative(context: SamplerContext): Record<string, ParamValue> {
    if (!this.multivariate) return {};
    return withScratch(() => this.sampleRelativeInScratch(context));
  }

  private sampleRelativeInScratch(context: SamplerContext): Record<string, ParamValue> {
    const finished = finishedTrials(context.trials);
    if (finished.length < this.nStartupTrials || finished.length === 0) return {};
    const space = intersectionSpace(finished);
    const names = Object.keys(space).sort();
    if (names.length === 0) return {};
    const distributions = names.map((n) => space[n] as Distribution);
    const split = this.split(context.trials, context.direction);
    const rng = new Rng(this.seed, context.trial.number);
    const internal = this.sampleInternal(split, names, distributions, rng, true);
    const out: Record<string, ParamValue> = {};
    names.forEach((name, d) => {
      const dist = distributions[d];
      if (dist !== undefined) out[name] = fromInternal(dist, internal[d] ?? 0);
    });
    return out;
  }

  /** A value for one parameter: random during the startup trials, univariate TPE after. */
  sampleIndependent(context: SamplerContext, name: string, distribution: Distribution): ParamValue {
    return withScratch(() => this.sampleIndependentInScratch(context, name, distribution));
  }

  private sampleIndependentInScratch(
    context: SamplerContext,
    name: string,
    distribution: Distribution,
  ): ParamValue {
    const only = singleValue(distribution);
    if (only !== undefined) return only;
    let finished = 0;
    for (const t of context.trials) if (isFinishedForTpe(t)) finished++;
    if (finished < this.nStartupTrials || finished === 0)
      return this.random.sampleIndependent(context, name, distribution);
    const split = this.split(context.trials, context.direction);
    const rng = new Rng(this.seed, context.trial.number, nameStream(name), 1);
    const [x] = this.sampleInternal(split, [name], [distribution], rng, false);
    return fromInternal(distribution, x ?? 0);
  }

  /**
   * Fits l and g over `names` and returns the winning candidate (internal scale, one entry per
   * name). Observations come from the trials of each group that have every name with a value
   * inside its distribution.
   */
  private sampleInternal(
    split: Split,
    names: readonly string[],
    distributions: readonly Distribution[],
    rng: Rng,
    joint: boolean,
  ): number[] {
    const dims = distributions.map(parzenDimension);
    const options = joint
      ? { ...this.estimatorOptions, multivariate: true }
      : this.estimatorOptions;
    const below = this.estimator(split, BELOW, names, distributions, dims, options);
    const above = this.estimator(split, ABOVE, names, distributions, dims, options);
    const count = this.nEiCandidates;
    const candidates = below.sample(rng, count);
    const logL = float64(count);
    const logG = float64(count);
    below.logPdf(candidates, logL);
    above.logPdf(candidates, logG);
    let best = 0;
    let bestScore = -Infinity;
    for (let j = 0; j < count; j++) {
      const score = (logL[j] ?? 0) - (logG[j] ?? 0);
      if (score > bestScore) {
        bestScore = score;
        best = j;
      }
    }
    return candidates.map((col) => col[best] ?? 0);
  }

  private estimator(
    split: Split,
    which: number,
    names: readonly string[],
    distributions: readonly Distribution[],
    dims: ReturnType<typeof parzenDimension>[],
    options: ParzenEstimatorOptions,
  ): ParzenEstimator {
    const { trials, group } = split;
    const nDims = names.length;
    let capacity = 0;
    for (const g of group) if (g === which) capacity++;
    const columns = names.map(() => float64(capacity));
    let n = 0;
    for (let i = 0; i < trials.length; i++) {
      if (group[i] !== which) continue;
      const params = (trials[i] as TrialRecord).params;
      let ok = true;
      for (let d = 0; d < nDims; d++) {
        const name = names[d] ?? '';
        const dist = distributions[d] as Distribution;
        const v = params[name];
        if (v === undefined || !contains(dist, v)) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      for (let d = 0; d < nDims; d++) {
        const col = columns[d] as Float64Array;
        col[n] = toInternal(distributions[d] as Distribution, params[names[d] ?? ''] ?? null);
      }
      n++;
    }
    const observations = columns.map((c) => c.subarray(0, n));
    const weights = checkedWeights(this.weights, n);
    return new ParzenEstimator(dims, observations, weights, options);
  }

  /**
   * Splits the trials: the best γ(n) of the n complete and pruned ones are "below" (complete ones
   * by value, then pruned ones by the deepest step reached and their value there); the others,
   * and the running ones under the constant liar, are "above"; failed and waiting ones are ignored.
   */
  private split(input: readonly TrialRecord[], direction: StudyDirection): Split {
    const trials = sortedByNumber(input);
    const group = uint8(trials.length);
    const sign = direction === 'maximize' ? -1 : 1;
    let nFinished = 0;
    for (let i = 0; i < trials.length; i++) {
      const t = trials[i] as TrialRecord;
      if (isFinishedForTpe(t)) {
        group[i] = ABOVE;
        nFinished++;
      } else if (t.state === 'running' && this.constantLiar) group[i] = ABOVE;
      else group[i] = IGNORED;
    }
    const raw = this.gamma(nFinished);
    let nBelow = Math.max(0, Math.min(nFinished, Number.isFinite(raw) ? Math.floor(raw) : 0));
    // Rank keys: complete trials by signed value; pruned ones by (−deepest step, signed value
    // there), so deeper pruned trials beat shallower ones. Complete trials fill "below" first.
    const keyA = float64(trials.length);
    const keyB = float64(trials.length);
    const complete = uint8(trials.length);
    const pruned = uint8(trials.length);
    for (let i = 0; i < trials.length; i++) {
      if (group[i] !== ABOVE) continue;
      const t = trials[i] as TrialRecord;
      if (t.state === 'complete') {
        complete[i] = 1;
        keyB[i] = sign * (t.value as number);
      } else if (t.state === 'pruned') {
        pruned[i] = 1;
        prunedKey(t, sign, keyA, keyB, i);
      }
    }
    nBelow -= markBest(complete, keyA, keyB, group, nBelow);
    markBest(pruned, keyA, keyB, group, nBelow);
    return { trials, group };
  }
}

/** Complete trials with a numeric value, and pruned trials: the ones TPE learns from. */
function isFinishedForTpe(t: TrialRecord): boolean {
  if (t.state === 'pruned') return true;
  return t.state === 'complete' && typeof t.value === 'number' && !Number.isNaN(t.value);
}

function finishedTrials(trials: readonly TrialRecord[]): TrialRecord[] {
  return trials.filter(isFinishedForTpe);
}

function sortedByNumber(trials: readonly TrialRecord[]): readonly TrialRecord[] {
  for (let i = 1; i < trials.length; i++) {
    if ((trials[i] as TrialRecord).number < (trials[i - 1] as TrialRecord).number)
      return [...trials].sort((a, b) => a.number - b.number);
  }
  return trials;
}

/** Writes a pruned trial's rank key (−last step, signed value there); no reports ranks last. */
function prunedKey(
  t: TrialRecord,
  sign: number,
  keyA: Float64Array,
  keyB: Float64Array,
  i: number,
): void {
  let step = -Infinity;
  for (const key of Object.keys(t.intermediate)) {
    const s = Number(key);
    if (s > step) step = s;
  }
  if (step === -Infinity) {
    keyA[i] = 1;
    keyB[i] = 0;
    return;
  }
  const v = t.intermediate[step];
  keyA[i] = -step;
  keyB[i] = v === undefined || Number.isNaN(v) ? Infinity : sign * v;
}

/**
 * Moves the `k` eligible trials with the smallest keys (lexicographic, ties by position) to
 * BELOW; returns how many moved. Insertion into a sorted buffer of k: O(n) when k is small.
 */
function markBest(
  eligible: Uint8Array,
  keyA: Float64Array,
  keyB: Float64Array,
  group: Uint8Array,
  k: number,
): number {
  if (k <= 0) return 0;
  if (k > 64) {
    // A large custom γ: one sort beats insertion.
    const order: number[] = [];
    for (let i = 0; i < eligible.length; i++) if (eligible[i] === 1) order.push(i);
    order.sort(
      (x, y) => (keyA[x] ?? 0) - (keyA[y] ?? 0) || (keyB[x] ?? 0) - (keyB[y] ?? 0) || x - y,
    );
    const moved = Math.min(k, order.length);
    for (let j = 0; j < moved; j++) group[order[j] ?? 0] = BELOW;
    return moved;
  }
  const idx = int32(k);
  const k0 = float64(k);
  const k1 = float64(k);
  let size = 0;
  for (let i = 0; i < eligible.length; i++) {
    if (eligible[i] !== 1) continue;
    const a = keyA[i] ?? 0;
    const b = keyB[i] ?? 0;
    if (size === k) {
      const la = k0[k - 1] ?? 0;
      if (a > la || (a === la && b >= (k1[k - 1] ?? 0))) continue;
    } else size++;
    let p = size - 1;
    while (p > 0) {
      const pa = k0[p - 1] ?? 0;
      if (pa < a || (pa === a && (k1[p - 1] ?? 0) <= b)) break;
      idx[p] = idx[p - 1] ?? 0;
      k0[p] = pa;
      k1[p] = k1[p - 1] ?? 0;
      p--;
    }
    idx[p] = i;
    k0[p] = a;
    k1[p] = b;
  }
  for (let j = 0; j < size; j++) group[idx[j] ?? 0] = BELOW;
  return size;
}

function checkedWeights(fn: (n: number) => ArrayLike<number>, n: number): Float64Array {
  const raw = fn(n);
  const w = float64(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const v = raw[i] ?? 1;
    if (!(v >= 0) || !Number.isFinite(v))
      throw invalid(
        `weights(${n}) returned ${v} at ${i}`,
        'weights must be finite and non-negative',
      );
    w[i] = v;
    total += v;
  }
  if (n > 0 && total <= 0)
    throw invalid(`weights(${n}) are all zero`, 'give at least one observation a weight > 0');
  return w;
}

/** The only value of a one-point distribution, else undefined. */
function singleValue(distribution: Distribution): ParamValue | undefined {
  if (distribution.type === 'categorical')
    return distribution.choices.length === 1 ? (distribution.choices[0] ?? null) : undefined;
  return distribution.low === distribution.high ? distribution.low : undefined;
}

/**
 * The parameters every finished trial has, with the same distribution in each (one-point
 * distributions left out: there is nothing to model).
 */
function intersectionSpace(finished: readonly TrialRecord[]): Record<string, Distribution> {
  const first = finished[0];
  if (first === undefined) return {};
  const space: Record<string, Distribution> = {};
  for (const [name, dist] of Object.entries(first.distributions)) {
    if (singleValue(dist) === undefined) space[name] = dist;
  }
  for (let i = 1; i < finished.length; i++) {
    const dists = (finished[i] as TrialRecord).distributions;
    for (const name of Object.keys(space)) {
      const d = dists[name];
      if (d === undefined || !sameDistribution(d, space[name] as Distribution))
        Reflect.deleteProperty(space, name);
    }
  }
  return space;
}
