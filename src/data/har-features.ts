/**
 * HAR-RV (Corsi, 2009) in logs: daily, weekly and monthly realized-variance features, the aligned
 * regression rows against the forward target, and an ordinary-least-squares fit — the baseline the
 * volatility models must beat.
 */
import { TradelabError } from '../core/index.js';
import { DEFAULT_FORWARD_HORIZON, forwardRealizedVariance } from './realized-vol.js';

/** Sessions in the weekly window (d-4 … d). */
export const HAR_WEEK = 5;
/** Sessions in the monthly window (d-21 … d). */
export const HAR_MONTH = 22;
/** Leading days without features: the monthly window needs 22 days, so days 0 … 20 are NaN. */
export const HAR_WARMUP = HAR_MONTH - 1;
/** Names of the HAR features, in column order of {@link HarRows.x}. */
export const HAR_FEATURE_NAMES = ['logRvDaily', 'logRvWeekly', 'logRvMonthly'] as const;

/** HAR features per day, aligned with the daily RV series they come from. */
export interface HarFeatures {
  /** log RV[d]. */
  daily: Float64Array;
  /** log of the mean RV over d-4 … d. */
  weekly: Float64Array;
  /** log of the mean RV over d-21 … d. */
  monthly: Float64Array;
}

/** The HAR-RV regression data: one row per day with finite features and target. */
export interface HarRows {
  /** Features, rows × 3, row-major, columns as in {@link HAR_FEATURE_NAMES}. */
  x: Float64Array;
  /** Target: log of the forward mean RV over days d+1 … d+horizon. */
  y: Float64Array;
  /** The day index (into the RV series) of each row. */
  index: Int32Array;
  /** Number of rows. */
  rows: number;
}

/** A fitted HAR-RV model: log forward RV ≈ intercept + daily·log RV_d + weekly·… + monthly·…. */
export interface HarModel {
  intercept: number;
  daily: number;
  weekly: number;
  monthly: number;
  /** [intercept, daily, weekly, monthly]. */
  coefficients: Float64Array;
  /** Rows the model was fitted on. */
  rows: number;
}

/**
 * HAR features of a daily RV series, causal (day d uses days ≤ d only). All three are NaN during
 * the warm-up (days 0 … {@link HAR_WARMUP} − 1) so that every feature starts on the same day. A
 * day with RV 0 gives −Infinity, which {@link harRows} drops.
 */
export function harFeatures(rv: ArrayLike<number>): HarFeatures {
  const n = rv.length;
  const daily = new Float64Array(n).fill(Number.NaN);
  const weekly = new Float64Array(n).fill(Number.NaN);
  const monthly = new Float64Array(n).fill(Number.NaN);
  for (let d = HAR_WARMUP; d < n; d++) {
    // Fresh window sums (22 adds) instead of running ones, so no rounding leaks in from days
    // outside the window.
    let week = 0;
    let month = 0;
    for (let j = d - HAR_MONTH + 1; j <= d; j++) {
      const v = rv[j] ?? Number.NaN;
      month += v;
      if (j > d - HAR_WEEK) week += v;
    }
    daily[d] = Math.log(rv[d] ?? Number.NaN);
    weekly[d] = Math.log(week / HAR_WEEK);
    monthly[d] = Math.log(month / HAR_MONTH);
  }
  return { daily, weekly, monthly };
}

/**
 * The HAR-RV regression rows: features at day d against y = log of the forward mean RV over days
 * d+1 … d+horizon ({@link forwardRealizedVariance}). Rows where a feature or the target is not
 * finite (warm-up, the last `horizon` days, zero RV) are dropped.
 */
export function harRows(rv: ArrayLike<number>, horizon = DEFAULT_FORWARD_HORIZON): HarRows {
  const { daily, weekly, monthly } = harFeatures(rv);
  const target = forwardRealizedVariance(rv, horizon);
  const n = rv.length;
  const x = new Float64Array(n * 3);
  const y = new Float64Array(n);
  const index = new Int32Array(n);
  let rows = 0;
  for (let d = 0; d < n; d++) {
    const a = daily[d] ?? Number.NaN;
    const b = weekly[d] ?? Number.NaN;
    const c = monthly[d] ?? Number.NaN;
    const t = Math.log(target[d] ?? Number.NaN);
    if (!(Number.isFinite(a) && Number.isFinite(b) && Number.isFinite(c) && Number.isFinite(t)))
      continue;
    x[rows * 3] = a;
    x[rows * 3 + 1] = b;
    x[rows * 3 + 2] = c;
    y[rows] = t;
    index[rows] = d;
    rows++;
  }
  return { x: x.slice(0, rows * 3), y: y.slice(0, rows), index: index.slice(0, rows), rows };
}

/** Fits HAR-RV by ordinary least squares (with intercept) on rows from {@link harRows}. */
export function fitHar(data: HarRows): HarModel {
  const coefficients = fitOls(data.x, data.y, HAR_FEATURE_NAMES.length);
  return {
    intercept: coefficients[0] ?? Number.NaN,
    daily: coefficients[1] ?? Number.NaN,
    weekly: coefficients[2] ?? Number.NaN,
    monthly: coefficients[3] ?? Number.NaN,
    coefficients,
    rows: data.rows,
  };
}

/** The model's forecast of log forward mean RV for every day (NaN where the features are). */
export function predictHar(model: HarModel, features: HarFeatures): Float64Array {
  const n = features.daily.length;
  const out = new Float64Array(n);
  for (let d = 0; d < n; d++) {
    out[d] =
      model.intercept +
      model.daily * (features.daily[d] ?? Number.NaN) +
      model.weekly * (features.weekly[d] ?? Number.NaN) +
      model.monthly * (features.monthly[d] ?? Number.NaN);
  }
  return out;
}

/**
 * Ordinary least squares with an intercept: `x` is rows × `nFeatures`, row-major. Solves the
 * normal equations (XᵀX) β = Xᵀy, a (nFeatures+1)² system, and returns β = [intercept, …slopes].
 */
export function fitOls(x: Float64Array, y: Float64Array, nFeatures: number): Float64Array {
  const rows = y.length;
  const p = nFeatures + 1;
  if (x.length !== rows * nFeatures) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `OLS design has ${x.length} values for ${rows} targets and ${nFeatures} features: expected ${rows * nFeatures}`,
    );
  }
  if (rows < p) {
    throw new TradelabError(
      'DATA_TOO_SHORT',
      `OLS with ${nFeatures} features and an intercept needs at least ${p} rows, got ${rows}`,
      {
        hint: 'use a longer RV series (HAR needs 22 warm-up days plus the forward horizon)',
      },
    );
  }
  const a = new Float64Array(p * p);
  const b = new Float64Array(p);
  const row = new Float64Array(p);
  row[0] = 1;
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < nFeatures; j++) row[j + 1] = x[r * nFeatures + j] ?? Number.NaN;
    const yr = y[r] ?? Number.NaN;
    for (let i = 0; i < p; i++) {
      const ri = row[i] ?? Number.NaN;
      b[i] = (b[i] ?? 0) + ri * yr;
      for (let j = i; j < p; j++) a[i * p + j] = (a[i * p + j] ?? 0) + ri * (row[j] ?? Number.NaN);
    }
  }
  for (let i = 0; i < p; i++) for (let j = 0; j < i; j++) a[i * p + j] = a[j * p + i] ?? Number.NaN;
  return solveLinearSystem(a, b, p);
}

/**
 * Solves A x = b for a square `n × n` matrix `a` (row-major) by Gaussian elimination with partial
 * pivoting. The inputs are left unchanged. Throws when A is singular (to working precision).
 */
export function solveLinearSystem(a: Float64Array, b: Float64Array, n: number): Float64Array {
  if (a.length !== n * n || b.length !== n) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `linear system of size ${n} got a matrix of ${a.length} and a vector of ${b.length} values`,
    );
  }
  const m = Float64Array.from(a);
  const v = Float64Array.from(b);
  let scale = 0;
  for (const value of m) scale = Math.max(scale, Math.abs(value));
  const tiny = scale * n * Number.EPSILON * 16;
  const at = (i: number, j: number): number => m[i * n + j] ?? Number.NaN;
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++)
      if (Math.abs(at(r, col)) > Math.abs(at(pivot, col))) pivot = r;
    if (!(Math.abs(at(pivot, col)) > tiny)) {
      throw new TradelabError(
        'DATA_INVALID',
        `the linear system is singular: column ${col} has no usable pivot`,
        {
          hint: 'the regression features are collinear or constant; use more, and more varied, rows',
        },
      );
    }
    if (pivot !== col) {
      for (let j = 0; j < n; j++) {
        const tmp = at(col, j);
        m[col * n + j] = at(pivot, j);
        m[pivot * n + j] = tmp;
      }
      const tmp = v[col] ?? Number.NaN;
      v[col] = v[pivot] ?? Number.NaN;
      v[pivot] = tmp;
    }
    for (let r = col + 1; r < n; r++) {
      const f = at(r, col) / at(col, col);
      if (f === 0) continue;
      for (let j = col; j < n; j++) m[r * n + j] = at(r, j) - f * at(col, j);
      v[r] = (v[r] ?? Number.NaN) - f * (v[col] ?? Number.NaN);
    }
  }
  const out = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = v[i] ?? Number.NaN;
    for (let j = i + 1; j < n; j++) s -= at(i, j) * (out[j] ?? Number.NaN);
    out[i] = s / at(i, i);
  }
  return out;
}
