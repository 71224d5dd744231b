/*
 * How a forecast of log realized variance scores against the truth: the figures the TCN and the
 * HAR-RV baseline are compared by, on the same rows.
 */

/** Scores of one forecast. */
export interface RegressionMetrics {
  /** Mean squared error. */
  mse: number;
  /** Its square root, in the target's units (log RV). */
  rmse: number;
  /** Pearson correlation of forecast and truth. */
  correlation: number;
  /** 1 − SSE / SST, SST around the truth's own mean on these rows (0: as good as that mean). */
  r2: number;
  rows: number;
}

/** Scores `forecast` against `truth` (same length). */
export function regressionMetrics(
  forecast: ArrayLike<number>,
  truth: ArrayLike<number>,
): RegressionMetrics {
  const n = truth.length;
  let sf = 0;
  let st = 0;
  for (let i = 0; i < n; i++) {
    sf += forecast[i] ?? Number.NaN;
    st += truth[i] ?? Number.NaN;
  }
  const mf = sf / n;
  const mt = st / n;
  let sse = 0;
  let sst = 0;
  let sff = 0;
  let sft = 0;
  for (let i = 0; i < n; i++) {
    const f = forecast[i] ?? Number.NaN;
    const t = truth[i] ?? Number.NaN;
    sse += (f - t) ** 2;
    sst += (t - mt) ** 2;
    sff += (f - mf) ** 2;
    sft += (f - mf) * (t - mt);
  }
  const mse = sse / n;
  return {
    mse,
    rmse: Math.sqrt(mse),
    correlation: sff > 0 && sst > 0 ? sft / Math.sqrt(sff * sst) : 0,
    r2: sst > 0 ? 1 - sse / sst : 0,
    rows: n,
  };
}
