/*
 * The Parzen estimator of TPE: a weighted mixture of kernels, one per observed trial plus a wide
 * prior kernel, over a product of dimensions (truncated normals for numeric ones, a "peaked"
 * distribution over the choices for categorical ones). Everything lives on the internal scale
 * (log for log ranges, choice index for categoricals), in Float64Arrays, so that evaluating
 * 24 candidates against 1,000 kernels is a tight loop without allocation.
 *
 * The normal-distribution special functions (erf, erfc, log Φ, Φ⁻¹) are implemented here as well:
 * their tails decide TPE's acquisition values once the kernels get narrow.
 */
import type { Rng } from '../../data/synth/random.js';
import type { Distribution } from '../../storage/records.js';
import { internalBounds } from '../distributions.js';
import { float64, int32 } from './scratch.js';

// ---------------------------------------------------------------------------------------------
// Normal distribution special functions
// ---------------------------------------------------------------------------------------------

const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
const SQRT1_2 = Math.SQRT1_2;
const LN2 = Math.LN2;

// Rational approximations of erf/erfc from Sun's fdlibm (s_erf.c, error < 1 ulp), lowest degree
// first. Ranges: [0, 0.84375] (P/Q for erf(x)/x − 1), [0.84375, 1.25] (around erf(1)), and
// [1.25, 28] where erfc(x) = exp(−x² − 0.5625 + R/S(1/x²)) / x.
const ERX = 8.45062911510467529297e-1;
const EFX = 1.28379167095512586316e-1;
const PP = [
  1.28379167095512558561e-1, -3.2504210724700149937e-1, -2.84817495755985104766e-2,
  -5.77027029648944159157e-3, -2.37630166566501626084e-5,
];
const QQ = [
  1, 3.97917223959155352819e-1, 6.50222499887672944485e-2, 5.08130628187576562776e-3,
  1.32494738004321644526e-4, -3.9602282787753681232e-6,
];
const PA = [
  -2.36211856075265944077e-3, 4.14856118683748331666e-1, -3.72207876035701323847e-1,
  3.18346619901161753674e-1, -1.10894694282396677476e-1, 3.54783043256182359371e-2,
  -2.166375594868790843e-3,
];
const QA = [
  1, 1.06420880400844228286e-1, 5.40397917702171048937e-1, 7.18286544141962662868e-2,
  1.26171219808761642112e-1, 1.36370839120290507362e-2, 1.1984499846799107417e-2,
];
const RA = [
  -9.86494403484714822705e-3, -6.93858572707181764372e-1, -1.05586262253232909814e1,
  -6.23753324503260060396e1, -1.62396669462573470355e2, -1.84605092906711035994e2,
  -8.12874355063065934246e1, -9.81432934416914548592,
];
const SA = [
  1, 1.96512716674392571292e1, 1.376577541435190426e2, 4.34565877475229228821e2,
  6.45387271733267880336e2, 4.29008140027567833386e2, 1.08635005541779435134e2,
  6.57024977031928170135, -6.04244152148580987438e-2,
];
const RB = [
  -9.86494292470009928597e-3, -7.99283237680523006574e-1, -1.77579549177547519889e1,
  -1.60636384855821916062e2, -6.37566443368389627722e2, -1.02509513161107724954e3,
  -4.83519191608651397019e2,
];
const SB = [
  1, 3.03380607434824582924e1, 3.25792512996573918826e2, 1.53672958608443695994e3,
  3.19985821950859553908e3, 2.55305040643316442583e3, 4.74528541206955367215e2,
  -2.24409524465858183362e1,
];

function poly(c: readonly number[], x: number): number {
  let r = 0;
  for (let i = c.length - 1; i >= 0; i--) r = r * x + (c[i] ?? 0);
  return r;
}

/**
 * log(erfc(x)) for x ≥ 1.25, without underflow: the exponent of fdlibm's formula. Splitting x into
 * a float32 part z makes z² exact, which keeps the relative error at a few ulps even for large x.
 */
function logErfcLarge(x: number): number {
  const s = 1 / (x * x);
  const rs = x < 1 / 0.35 ? poly(RA, s) / poly(SA, s) : poly(RB, s) / poly(SB, s);
  const z = Math.fround(x);
  return -z * z - 0.5625 + ((z - x) * (z + x) + rs) - Math.log(x);
}

/** The error function erf(x) = 2/√π ∫₀ˣ e^(−t²) dt. */
export function erf(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  const ax = Math.abs(x);
  if (ax < 0.84375) {
    if (ax < 2 ** -28) return x + EFX * x;
    const z = x * x;
    return x + x * (poly(PP, z) / poly(QQ, z));
  }
  let r: number;
  if (ax < 1.25) r = ERX + poly(PA, ax - 1) / poly(QA, ax - 1);
  else if (ax < 6) r = 1 - Math.exp(logErfcLarge(ax));
  else r = 1;
  return x < 0 ? -r : r;
}

/** The complementary error function erfc(x) = 1 − erf(x), accurate in the right tail. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  const ax = Math.abs(x);
  if (ax < 0.84375) {
    const z = x * x;
    const y = x * (poly(PP, z) / poly(QQ, z));
    return x < 0.25 ? 1 - (x + y) : 0.5 - (x - 0.5 + y);
  }
  if (ax < 1.25) {
    const pq = poly(PA, ax - 1) / poly(QA, ax - 1);
    return x > 0 ? 1 - ERX - pq : 1 + (ERX + pq);
  }
  if (x >= 28) return 0;
  if (x <= -6) return 2;
  const r = Math.exp(logErfcLarge(ax));
  return x > 0 ? r : 2 - r;
}

/** The standard normal CDF Φ(x). */
export function ndtr(x: number): number {
  return 0.5 * erfc(-x * SQRT1_2);
}

/** log Φ(x), finite for every finite x (Φ(−40) underflows, its logarithm does not). */
export function logNdtr(x: number): number {
  if (x > 0) return Math.log1p(-ndtr(-x));
  if (x > -1.25 / SQRT1_2 || Number.isNaN(x)) return Math.log(ndtr(x));
  return logErfcLarge(-x * SQRT1_2) - LN2;
}

/** log(1 − e^(−d)) for d ≥ 0, accurate for small and large d (Mächler's log1mexp). */
function log1mexp(d: number): number {
  return d < LN2 ? Math.log(-Math.expm1(-d)) : Math.log1p(-Math.exp(-d));
}

/** log(e^a − e^b) for a ≥ b. */
function logDiff(a: number, b: number): number {
  if (b === -Infinity) return a;
  return a + log1mexp(a - b);
}

/** log(e^a + e^b). */
function logAdd(a: number, b: number): number {
  const m = Math.max(a, b);
  if (m === -Infinity) return -Infinity;
  return m + Math.log1p(Math.exp(Math.min(a, b) - m));
}

/**
 * log(Φ(b) − Φ(a)) for a ≤ b: the log of the standard normal's mass on [a, b]. Works in the left
 * tail (where Φ is accurate relative to itself) by symmetry, and avoids cancellation near 1.
 */
export function logGaussMass(a: number, b: number): number {
  if (b <= 0) return logDiff(logNdtr(b), logNdtr(a));
  if (a > 0) return logDiff(logNdtr(-a), logNdtr(-b));
  return Math.log1p(-ndtr(a) - ndtr(-b));
}

/** Φ(b) − Φ(a) for a ≤ b, computed in whichever tail avoids cancellation. */
export function gaussMass(a: number, b: number): number {
  if (b <= 0) return ndtr(b) - ndtr(a);
  if (a > 0) return ndtr(-a) - ndtr(-b);
  return 1 - ndtr(a) - ndtr(-b);
}

// Acklam's rational approximation of Φ⁻¹ (relative error < 1.2e-9), refined by one Newton step.
const ACK_A = [
  -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2,
  -3.066479806614716e1, 2.506628277459239,
];
const ACK_B = [
  -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1,
  -1.328068155288572e1,
];
const ACK_C = [
  -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734,
  4.374664141464968, 2.938163982698783,
];
const ACK_D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const ACK_P_LOW = 0.02425;
const LOG_ACK_P_LOW = Math.log(ACK_P_LOW);
const LOG_ACK_P_HIGH = Math.log1p(-ACK_P_LOW);

/** Horner with the coefficients highest degree first (Acklam's tables are written that way). */
function hornerHigh(c: readonly number[], x: number): number {
  let r = 0;
  for (const ci of c) r = r * x + ci;
  return r;
}

function acklamTail(q: number): number {
  return hornerHigh(ACK_C, q) / (hornerHigh(ACK_D, q) * q + 1);
}

/**
 * Φ⁻¹(e^y): the standard normal quantile of a probability given by its logarithm, so that
 * probabilities far below the smallest double (y = −5000) still have a quantile.
 */
export function ndtriExp(y: number): number {
  if (Number.isNaN(y) || y > 0) return Number.NaN;
  if (y === 0) return Infinity;
  if (y === -Infinity) return -Infinity;
  let x: number;
  if (y < LOG_ACK_P_LOW) x = acklamTail(Math.sqrt(-2 * y));
  else if (y > LOG_ACK_P_HIGH) x = -acklamTail(Math.sqrt(-2 * Math.log(-Math.expm1(y))));
  else {
    const q = Math.exp(y) - 0.5;
    const r = q * q;
    x = (hornerHigh(ACK_A, r) * q) / (hornerHigh(ACK_B, r) * r + 1);
  }
  // Newton on log Φ(x) = y: the derivative is φ(x)/Φ(x), taken in log space for the far tail.
  for (let i = 0; i < 2; i++) {
    const lp = logNdtr(x);
    const f = lp - y;
    if (f === 0 || !Number.isFinite(f)) break;
    const ratio = Math.exp(-0.5 * x * x - LOG_SQRT_2PI - lp);
    if (!(ratio > 0) || !Number.isFinite(ratio)) break;
    x -= f / ratio;
  }
  return x;
}

/** The standard normal quantile Φ⁻¹(p), for p in [0, 1]. */
export function ndtri(p: number): number {
  if (!(p >= 0 && p <= 1)) return Number.NaN;
  if (p > 0.5) return -ndtriExp(Math.log1p(-p));
  return ndtriExp(Math.log(p));
}

/**
 * A draw from N(0, 1) truncated to [a, b], by inversion from one uniform u in [0, 1): stable in
 * either tail (the inversion works in the tail nearer the interval, in log space).
 */
export function sampleTruncatedStandardNormal(a: number, b: number, u: number): number {
  const logMass = logGaussMass(a, b);
  let x: number;
  if (a < 0) {
    // Φ(x) = Φ(a) + u (Φ(b) − Φ(a))
    x = ndtriExp(logAdd(logNdtr(a), Math.log(u) + logMass));
  } else {
    // 1 − Φ(x) = Φ(−x) = Φ(−b) + (1 − u)(Φ(b) − Φ(a))
    x = -ndtriExp(logAdd(logNdtr(-b), Math.log1p(-u) + logMass));
  }
  return Math.min(b, Math.max(a, x));
}

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
