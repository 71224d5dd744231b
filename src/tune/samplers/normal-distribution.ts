/*
 * Normal-distribution special functions for the Parzen estimator: erf, erfc, Φ, log Φ, the mass
 * of an interval, Φ⁻¹ and truncated-normal draws. Their tails decide TPE's acquisition values once
 * the kernels get narrow, so each is accurate far out (no 1 − Φ cancellation, no log of 0).
 */

export const LOG_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);
export const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
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
