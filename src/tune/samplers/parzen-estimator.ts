/*
 * The Parzen estimator of TPE: a weighted mixture of kernels, one per observed trial plus a wide
 * prior kernel, over a product of dimensions (truncated normals for numeric ones, a "peaked"
 * distribution over the choices for categorical ones). Everything lives on the internal scale
 * (log for log ranges, choice index for categoricals), in Float64Arrays, so that evaluating
 * 24 candidates against 1,000 kernels is a tight loop without allocation.
 *
 * The normal-distribution special functions it needs are in normal-distribution.ts.
 */
import type { Rng } from '../../core/random.js';
import type { Distribution } from '../../storage/records.js';
import { internalBounds } from '../distributions.js';
import {
  gaussMass,
  INV_SQRT_2PI,
  LOG_SQRT_2PI,
  logGaussMass,
  sampleTruncatedStandardNormal,
} from './normal-distribution.js';
import { float64, int32 } from './scratch.js';

// ---------------------------------------------------------------------------------------------
// The estimator
// ---------------------------------------------------------------------------------------------

/** One dimension of a Parzen estimator, on the internal scale. */
export type ParzenDimension =
  | {
      kind: 'numeric';
      /** Bounds on the internal scale (log for log ranges). */
      low: number;
      high: number;
      /** Grid step (values are low + k·step); null for a continuous range. */
      step: number | null;
    }
  | { kind: 'categorical'; nChoices: number };

/**
 * The estimator's dimension for a distribution, as Optuna models it: log ranges on the log scale,
 * a log-int range as a continuous one widened by half a step on each side (rounded afterwards).
 */
export function parzenDimension(distribution: Distribution): ParzenDimension {
  if (distribution.type === 'categorical')
    return { kind: 'categorical', nChoices: distribution.choices.length };
  if (distribution.log) {
    if (distribution.type === 'int') {
      const half = distribution.step / 2;
      return {
        kind: 'numeric',
        low: Math.log(distribution.low - half),
        high: Math.log(distribution.high + half),
        step: null,
      };
    }
    const [low, high] = internalBounds(distribution);
    return { kind: 'numeric', low, high, step: null };
  }
  return {
    kind: 'numeric',
    low: distribution.low,
    high: distribution.high,
    step: distribution.step,
  };
}

/** How a {@link ParzenEstimator} builds its kernels. */
export interface ParzenEstimatorOptions {
  /** Weight of the prior kernel relative to the observations' weights (they sum to 1). */
  priorWeight: number;
  /** Clip bandwidths below at range / min(100, 1 + kernels) (Optuna's "magic clip"). */
  considerMagicClip: boolean;
  /** Let the bounds count as neighbours of the outermost observations (univariate bandwidths). */
  considerEndpoints: boolean;
  /** One bandwidth per dimension from Scott's rule (joint model) instead of neighbour distances. */
  multivariate: boolean;
}

const EPS_SIGMA = 1e-12;
/** Below this a mixture density computed directly is too close to underflow to trust. */
const LINEAR_UNDERFLOW = 1e-280;
/** log of the relative size below which a kernel's term is left out of a 1-D density (1e-20). */
const NEGLIGIBLE_LOG = Math.log(1e-20);
/** |z| beyond which Φ(z) rounds to 1 (and Φ(−z) is below 1e-17). */
const Z_SATURATED = 8.5;

/** Per-dimension kernel tables. */
interface NumericKernels {
  kind: 'numeric';
  low: number;
  high: number;
  step: number;
  discrete: boolean;
  mu: Float64Array;
  invSigma: Float64Array;
  /**
   * Continuous: −log σ − log √(2π) − log Z; discrete: −log Z. With one dimension the kernel's
   * log weight is included (the mixture's weights are then not added again).
   */
  logNorm: Float64Array;
  /** exp(logNorm). */
  linNorm: Float64Array;
  /** 2 logNorm: a kernel's largest possible term (one dimension), to skip negligible ones. */
  twoLogPeak: Float64Array;
  /** Whether the observation kernels (all but the last, the prior) are sorted by mean. */
  sorted: boolean;
  /** The largest σ and the largest twoLogPeak among the observation kernels. */
  maxSigma: number;
  maxTwoLogPeak: number;
}

interface CategoricalKernels {
  kind: 'categorical';
  nChoices: number;
  /** The observed choice of each kernel; −1 for the prior. */
  observed: Int32Array;
  /** log probability of a kernel's own observation and of any other choice. */
  logPeak: number;
  logBase: number;
  /** Mixture log probability of each choice (used when this is the only dimension). */
  logMixture: Float64Array;
}

type Kernels = NumericKernels | CategoricalKernels;

/**
 * A mixture of product kernels fitted to observations. `observations[d][i]` is observation i in
 * dimension d (internal scale); `weights[i]` its weight (non-negative, not all zero unless there
 * are no observations). The prior kernel is added with weight `priorWeight`.
 */
export class ParzenEstimator {
  /** Number of kernels: observations + the prior. */
  readonly nKernels: number;
  private readonly dims: readonly Kernels[];
  /** log of each kernel's weight (joint densities only). */
  private readonly logWeights: Float64Array;
  private readonly cumWeights: Float64Array;
  private readonly scratch: Float64Array;

  constructor(
    dimensions: readonly ParzenDimension[],
    observations: readonly Float64Array[],
    weights: ArrayLike<number>,
    options: ParzenEstimatorOptions,
  ) {
    const nObs = observations[0]?.length ?? 0;
    const nK = nObs + 1;
    this.nKernels = nK;
    // A lone numeric dimension keeps its kernels sorted by mean (the mixture does not care about
    // order), so that a density evaluation can skip straight past the far ones.
    const sortKernels =
      dimensions.length === 1 && dimensions[0]?.kind === 'numeric' && !options.multivariate;
    let order: Int32Array | null = null;
    if (sortKernels) {
      const obs = observations[0] ?? new Float64Array(0);
      order = argsort(obs);
      const sorted = float64(nObs);
      for (let r = 0; r < nObs; r++) sorted[r] = obs[order[r] ?? 0] ?? 0;
      observations = [sorted];
    }
    const w = float64(nK);
    let total = 0;
    for (let i = 0; i < nObs; i++) {
      const wi = weights[order === null ? i : (order[i] ?? 0)] ?? 0;
      w[i] = wi;
      total += wi;
    }
    w[nObs] = nObs === 0 ? 1 : options.priorWeight;
    total += w[nObs] ?? 0;
    this.logWeights = float64(nK);
    this.cumWeights = float64(nK);
    let cum = 0;
    for (let k = 0; k < nK; k++) {
      const wk = (w[k] ?? 0) / total;
      w[k] = wk;
      if (dimensions.length > 1) this.logWeights[k] = Math.log(wk); // 1-D folds them into logNorm
      cum += wk;
      this.cumWeights[k] = cum;
    }
    this.scratch = float64(nK);
    const single = dimensions.length === 1;
    this.dims = dimensions.map((dim, d) => {
      const obs = observations[d] ?? new Float64Array(0);
      return dim.kind === 'categorical'
        ? categoricalKernels(dim.nChoices, obs, w, options.priorWeight)
        : numericKernels(dim, obs, single ? w : null, dimensions.length, options, sortKernels);
    });
  }

  /**
   * `count` draws from the mixture, one Float64Array per dimension (internal scale; discrete
   * dimensions on their grid, categorical ones as choice indices).
   */
  sample(rng: Rng, count: number): Float64Array[] {
    const out = this.dims.map(() => float64(count));
    const cw = this.cumWeights;
    const last = this.nKernels - 1;
    for (let j = 0; j < count; j++) {
      // Pick a kernel by binary search on the cumulative weights.
      const u = rng.uniform() * (cw[last] ?? 1);
      let lo = 0;
      let hi = last;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((cw[mid] ?? 0) > u) hi = mid;
        else lo = mid + 1;
      }
      for (let d = 0; d < this.dims.length; d++) {
        const dim = this.dims[d];
        const col = out[d];
        if (dim === undefined || col === undefined) continue;
        col[j] = sampleKernel(dim, lo, rng);
      }
    }
    return out;
  }

  /** Writes the mixture's log density at each sample (one array per dimension) into `out`. */
  logPdf(samples: readonly Float64Array[], out: Float64Array): void {
    const count = samples[0]?.length ?? 0;
    const first = this.dims[0];
    if (this.dims.length === 1 && first !== undefined) {
      const xs = samples[0] ?? new Float64Array(0);
      for (let j = 0; j < count; j++) out[j] = this.logPdf1(first, xs[j] ?? 0);
      return;
    }
    for (let j = 0; j < count; j++) out[j] = this.logPdfJoint(samples, j);
  }

  /**
   * One-dimensional density, summed directly. A kernel is skipped when even its peak value at the
   * candidate's distance is below 1e-20 of the prior kernel's term there (the prior covers the
   * whole range, so it bounds the sum from below): with 1,000 kernels most are that far from any
   * one candidate. Falls back to log space if the sum nears underflow.
   */
  private logPdf1(dim: Kernels, x: number): number {
    if (dim.kind === 'categorical') return dim.logMixture[x] ?? -Infinity;
    const { mu, invSigma, linNorm, twoLogPeak } = dim;
    const n = this.nKernels;
    const p = n - 1;
    const mp = mu[p] ?? 0;
    const isp = invSigma[p] ?? 0;
    let sum: number;
    if (!dim.discrete) {
      const zp = (x - mp) * isp;
      sum = (linNorm[p] ?? 0) * Math.exp(-0.5 * zp * zp);
      const cut = 2 * Math.log(sum) + 2 * NEGLIGIBLE_LOG;
      const [from, to] = kernelWindow(dim, x, 0, cut, p);
      for (let k = from; k < to; k++) {
        const z = (x - (mu[k] ?? 0)) * (invSigma[k] ?? 0);
        const z2 = z * z;
        if (z2 > (twoLogPeak[k] ?? 0) - cut) continue;
        sum += (linNorm[k] ?? 0) * Math.exp(-0.5 * z2);
      }
    } else {
      const half = 0.5 * dim.step;
      const lower = Math.max(x - half, dim.low - half);
      const upper = Math.min(x + half, dim.high + half);
      sum = (linNorm[p] ?? 0) * gaussMass((lower - mp) * isp, (upper - mp) * isp);
      const cut = 2 * Math.log(sum) + 2 * NEGLIGIBLE_LOG;
      const [from, to] = kernelWindow(dim, x, half, cut, p);
      for (let k = from; k < to; k++) {
        const m = mu[k] ?? 0;
        const is = invSigma[k] ?? 0;
        // The mass of [lower, upper] is at most e^(−d²/2) for an interval d σ away from μ.
        const d = (x > m ? lower - m : m - upper) * is;
        if (d > 0 && d * d > (twoLogPeak[k] ?? 0) - cut) continue;
        sum += (linNorm[k] ?? 0) * gaussMass((lower - m) * is, (upper - m) * is);
      }
    }
    if (sum > LINEAR_UNDERFLOW) return Math.log(sum);
    const acc = this.scratch;
    acc.fill(0); // the weights are in logNorm already
    addNumericLogPdf(dim, x, acc);
    return logSumExp(acc);
  }

  private logPdfJoint(samples: readonly Float64Array[], j: number): number {
    const acc = this.scratch;
    acc.set(this.logWeights);
    for (let d = 0; d < this.dims.length; d++) {
      const dim = this.dims[d];
      const x = samples[d]?.[j] ?? 0;
      if (dim === undefined) continue;
      if (dim.kind === 'numeric') addNumericLogPdf(dim, x, acc);
      else {
        const { observed, logPeak, logBase } = dim;
        const prior = -Math.log(dim.nChoices);
        for (let k = 0; k < acc.length; k++) {
          const o = observed[k] ?? -1;
          acc[k] = (acc[k] ?? 0) + (o < 0 ? prior : o === x ? logPeak : logBase);
        }
      }
    }
    return logSumExp(acc);
  }
}

/**
 * The range [from, to) of observation kernels (sorted by mean) that can matter at x: outside it,
 * |x − μ| − half > σ_max √(max 2 log peak − cut), so every kernel there fails the per-kernel
 * negligibility test anyway. Unsorted kernels: all of them.
 */
function kernelWindow(
  dim: NumericKernels,
  x: number,
  half: number,
  cut: number,
  nObs: number,
): [number, number] {
  if (!dim.sorted) return [0, nObs];
  const room = dim.maxTwoLogPeak - cut;
  if (!(room > 0)) return [0, 0];
  const reach = half + dim.maxSigma * Math.sqrt(room);
  if (!Number.isFinite(reach)) return [0, nObs];
  return [lowerBound(dim.mu, nObs, x - reach), upperBound(dim.mu, nObs, x + reach)];
}

/** The first index in sorted values[0..n) whose value is ≥ v. */
function lowerBound(values: Float64Array, n: number, v: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] ?? 0) < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index in sorted values[0..n) whose value is > v. */
function upperBound(values: Float64Array, n: number, v: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((values[mid] ?? 0) <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Adds each kernel's log density at x to acc[k]. */
function addNumericLogPdf(dim: NumericKernels, x: number, acc: Float64Array): void {
  const { mu, invSigma, logNorm } = dim;
  const n = acc.length;
  if (!dim.discrete) {
    for (let k = 0; k < n; k++) {
      const z = (x - (mu[k] ?? 0)) * (invSigma[k] ?? 0);
      acc[k] = (acc[k] ?? 0) + (logNorm[k] ?? 0) - 0.5 * z * z;
    }
    return;
  }
  const half = 0.5 * dim.step;
  const lower = Math.max(x - half, dim.low - half);
  const upper = Math.min(x + half, dim.high + half);
  for (let k = 0; k < n; k++) {
    const m = mu[k] ?? 0;
    const is = invSigma[k] ?? 0;
    acc[k] = (acc[k] ?? 0) + (logNorm[k] ?? 0) + logGaussMass((lower - m) * is, (upper - m) * is);
  }
}

/** log Σ e^v, stable for any magnitudes. */
export function logSumExp(values: Float64Array): number {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  if (max === -Infinity || !Number.isFinite(max)) return max;
  let sum = 0;
  for (const v of values) sum += Math.exp(v - max);
  return max + Math.log(sum);
}

function sampleKernel(dim: Kernels, k: number, rng: Rng): number {
  const u = rng.uniform();
  if (dim.kind === 'categorical') {
    const o = dim.observed[k] ?? -1;
    const n = dim.nChoices;
    if (o < 0) return Math.min(n - 1, Math.floor(u * n));
    // The kernel puts e^logPeak on its own choice and e^logBase on each other one.
    const peak = Math.exp(dim.logPeak);
    if (u < peak) return o;
    const other = Math.min(n - 2, Math.floor(((u - peak) / (1 - peak)) * (n - 1)));
    return other >= o ? other + 1 : other;
  }
  const m = dim.mu[k] ?? 0;
  const is = dim.invSigma[k] ?? 1;
  const half = 0.5 * dim.step;
  const lo = dim.low - half;
  const hi = dim.high + half;
  const z = sampleTruncatedStandardNormal((lo - m) * is, (hi - m) * is, u);
  const x = m + z / is;
  if (!dim.discrete) return Math.min(dim.high, Math.max(dim.low, x));
  const snapped = dim.low + Math.round((x - dim.low) / dim.step) * dim.step;
  return Math.min(dim.high, Math.max(dim.low, snapped));
}

function categoricalKernels(
  nChoices: number,
  obs: Float64Array,
  weights: Float64Array,
  priorWeight: number,
): CategoricalKernels {
  const nObs = obs.length;
  const nK = nObs + 1;
  const observed = int32(nK);
  for (let i = 0; i < nObs; i++) observed[i] = Math.round(obs[i] ?? 0);
  observed[nObs] = -1;
  // Each observation's row: priorWeight/nK on every choice plus 1 on its own, normalised.
  const base = priorWeight / nK;
  const rowSum = nChoices * base + 1;
  const logPeak = Math.log((base + 1) / rowSum);
  const logBase = Math.log(base / rowSum);
  const mixture = float64(nChoices);
  const priorWeightNormalised = weights[nObs] ?? 0;
  for (let c = 0; c < nChoices; c++) mixture[c] = priorWeightNormalised / nChoices;
  let obsTotal = 0;
  for (let i = 0; i < nObs; i++) {
    const wi = weights[i] ?? 0;
    obsTotal += wi;
    const o = observed[i] ?? 0;
    mixture[o] = (mixture[o] ?? 0) + wi / rowSum;
  }
  const spread = (obsTotal * base) / rowSum;
  const logMixture = float64(nChoices);
  for (let c = 0; c < nChoices; c++) logMixture[c] = Math.log((mixture[c] ?? 0) + spread);
  return { kind: 'categorical', nChoices, observed, logPeak, logBase, logMixture };
}

function numericKernels(
  dim: Extract<ParzenDimension, { kind: 'numeric' }>,
  obs: Float64Array,
  singleWeights: Float64Array | null,
  nDims: number,
  options: ParzenEstimatorOptions,
  sorted: boolean,
): NumericKernels {
  const { low, high } = dim;
  const step = dim.step ?? 0;
  const nObs = obs.length;
  const nK = nObs + 1;
  const range = high - low + step;
  const mu = float64(nK);
  mu.set(obs);
  mu[nObs] = 0.5 * (low + high);
  const sigma = float64(nK);
  if (options.multivariate) {
    sigma.fill(0.2 * Math.max(nObs, 1) ** (-1 / (nDims + 4)) * range, 0, nObs);
  } else {
    neighbourBandwidths(
      mu,
      low - step / 2,
      high + step / 2,
      options.considerEndpoints,
      sigma,
      sorted,
    );
  }
  const sigmaCap = range;
  const sigmaFloor = options.considerMagicClip ? range / Math.min(100, 1 + nK) : EPS_SIGMA;
  for (let i = 0; i < nObs; i++) sigma[i] = Math.min(sigmaCap, Math.max(sigmaFloor, sigma[i] ?? 0));
  sigma[nObs] = range;

  const discrete = dim.step !== null;
  const invSigma = float64(nK);
  const logNorm = float64(nK);
  const linNorm = float64(nK);
  const twoLogPeak = float64(nK);
  const lo = low - step / 2;
  const hi = high + step / 2;
  for (let k = 0; k < nK; k++) {
    const s = Math.max(sigma[k] ?? 0, EPS_SIGMA);
    const m = mu[k] ?? 0;
    const is = 1 / s;
    invSigma[k] = is;
    const a = (lo - m) * is;
    const b = (hi - m) * is;
    // Most kernels sit well inside the range: their mass there is 1 to double precision.
    const z = a < -Z_SATURATED && b > Z_SATURATED ? 1 : gaussMass(a, b);
    if (singleWeights === null || !(z > 1e-300)) {
      const logZ = z > 1e-300 ? Math.log(z) : logGaussMass(a, b);
      const ln = discrete ? -logZ : -Math.log(s) - LOG_SQRT_2PI - logZ;
      const lw = ln + (singleWeights === null ? 0 : Math.log(singleWeights[k] ?? 0));
      logNorm[k] = lw;
      linNorm[k] = Math.exp(lw);
      twoLogPeak[k] = 2 * lw;
    } else {
      // One dimension (the usual case): one log per kernel, no exp.
      const lin = ((singleWeights[k] ?? 0) * (discrete ? 1 : is * INV_SQRT_2PI)) / z;
      const lw = Math.log(lin);
      logNorm[k] = lw;
      linNorm[k] = lin;
      twoLogPeak[k] = 2 * lw;
    }
  }
  let maxSigma = 0;
  let maxTwoLogPeak = -Infinity;
  for (let k = 0; k < nObs; k++) {
    maxSigma = Math.max(maxSigma, 1 / (invSigma[k] ?? 1));
    maxTwoLogPeak = Math.max(maxTwoLogPeak, twoLogPeak[k] ?? -Infinity);
  }
  return {
    kind: 'numeric',
    low,
    high,
    step,
    discrete,
    mu,
    invSigma,
    logNorm,
    linNorm,
    twoLogPeak,
    sorted,
    maxSigma,
    maxTwoLogPeak,
  };
}

/**
 * Optuna's univariate bandwidths: each kernel's σ is the larger distance to its neighbours among
 * the sorted means (the prior's mean included, the widened bounds as outer neighbours); without
 * `considerEndpoints` the outermost kernels use their inner neighbour only. Writes the first
 * mus.length − 1 entries of `out` (the observations'; the last mean is the prior's).
 */
function neighbourBandwidths(
  mus: Float64Array,
  lowEnd: number,
  highEnd: number,
  considerEndpoints: boolean,
  out: Float64Array,
  sorted: boolean,
): void {
  const n = mus.length;
  let order: Int32Array;
  if (sorted) {
    // Observations already sorted: the prior's mean (last) goes after those ≤ it, as a stable
    // argsort would put it.
    const prior = mus[n - 1] ?? 0;
    const p = upperBound(mus, n - 1, prior);
    order = int32(n);
    for (let r = 0; r < p; r++) order[r] = r;
    order[p] = n - 1;
    for (let r = p; r < n - 1; r++) order[r + 1] = r;
  } else order = argsort(mus);
  let prev = lowEnd;
  for (let r = 0; r < n; r++) {
    const i = order[r] ?? 0;
    const v = mus[i] ?? 0;
    const next = r === n - 1 ? highEnd : (mus[order[r + 1] ?? 0] ?? 0);
    let sigma = Math.max(v - prev, next - v);
    if (!considerEndpoints && n >= 2) {
      if (r === 0) sigma = next - v;
      else if (r === n - 1) sigma = v - prev;
    }
    if (i < n - 1) out[i] = sigma;
    prev = v;
  }
}

/** Below this many values a comparison sort beats the radix sort's fixed 8 × 256-bucket cost. */
const RADIX_SORT_MIN = 2048;

/**
 * A stable argsort of finite doubles (−0 ties with +0). Short arrays: a comparison sort, ties by
 * index. Long ones: LSD radix sort on the bits (8 bits a pass, passes where every key shares the
 * byte skipped), linear time.
 */
export function argsort(values: Float64Array): Int32Array {
  const n = values.length;
  if (n < RADIX_SORT_MIN) {
    const order = int32(n);
    for (let i = 0; i < n; i++) order[i] = i;
    return order.sort((a, b) => (values[a] ?? 0) - (values[b] ?? 0) || a - b);
  }
  const bits = new Uint32Array(Float64Array.from(values).buffer);
  const keyLo = new Uint32Array(n);
  const keyHi = new Uint32Array(n);
  const hist = new Int32Array(8 * 256);
  for (let i = 0; i < n; i++) {
    let lo = bits[2 * i] ?? 0;
    let hi = bits[2 * i + 1] ?? 0;
    // Order-preserving map of IEEE-754 bits to unsigned integers (little-endian words); −0 is
    // read as +0 so that the two tie, as they do in a comparison sort.
    if (hi === 0x80000000 && lo === 0) hi = 0;
    if (hi >>> 31 === 1) {
      hi = ~hi >>> 0;
      lo = ~lo >>> 0;
    } else hi = (hi | 0x80000000) >>> 0;
    keyLo[i] = lo;
    keyHi[i] = hi;
    for (let b = 0; b < 4; b++) {
      const dl = b * 256 + ((lo >>> (8 * b)) & 255);
      const dh = (b + 4) * 256 + ((hi >>> (8 * b)) & 255);
      hist[dl] = (hist[dl] ?? 0) + 1;
      hist[dh] = (hist[dh] ?? 0) + 1;
    }
  }
  let src = new Int32Array(n);
  let dst = new Int32Array(n);
  for (let i = 0; i < n; i++) src[i] = i;
  const offsets = new Int32Array(256);
  for (let pass = 0; pass < 8; pass++) {
    const base = pass * 256;
    let total = 0;
    let skip = false;
    for (let d = 0; d < 256; d++) {
      const c = hist[base + d] ?? 0;
      if (c === n) skip = true;
      offsets[d] = total;
      total += c;
    }
    if (skip) continue;
    const keys = pass < 4 ? keyLo : keyHi;
    const shift = 8 * (pass & 3);
    for (let r = 0; r < n; r++) {
      const i = src[r] ?? 0;
      const d = ((keys[i] ?? 0) >>> shift) & 255;
      const at = offsets[d] ?? 0;
      dst[at] = i;
      offsets[d] = at + 1;
    }
    const t = src;
    src = dst;
    dst = t;
  }
  return src;
}
