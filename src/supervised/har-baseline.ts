import { fitOls } from '../data/index.js';
import type { RvDataset, RvSamples } from './rv-dataset.js';

/*
 * HAR-RV (Corsi 2009) in logs, the baseline beside the TCN: log forward RV ≈ β₀ + β_d·log RV_d +
 * β_w·log RV_w + β_m·log RV_m, fitted by least squares on the training split's session closes and
 * forecast on exactly the rows the TCN is scored on (validation and test closes: the same symbol,
 * day and target).
 */

/** A fitted HAR-RV model. */
export interface HarBaseline {
  /** [intercept, daily, weekly, monthly]. */
  coefficients: number[];
  /** Training rows it was fitted on. */
  rows: number;
}

/** The HAR features of each sample's day, rows × 3; rows whose features are not finite are skipped. */
function harDesign(
  dataset: RvDataset,
  samples: RvSamples,
): { x: Float64Array; y: Float64Array; rows: Int32Array } {
  const x: number[] = [];
  const y: number[] = [];
  const rows: number[] = [];
  for (let i = 0; i < samples.count; i++) {
    const har = dataset.har[samples.symbol[i] ?? 0];
    const d = samples.day[i] ?? 0;
    const a = har?.daily[d] ?? Number.NaN;
    const b = har?.weekly[d] ?? Number.NaN;
    const c = har?.monthly[d] ?? Number.NaN;
    if (!(Number.isFinite(a) && Number.isFinite(b) && Number.isFinite(c))) continue;
    x.push(a, b, c);
    y.push(samples.target[i] ?? Number.NaN);
    rows.push(i);
  }
  return { x: Float64Array.from(x), y: Float64Array.from(y), rows: Int32Array.from(rows) };
}

/** Fits HAR-RV on the training split's session closes. */
export function fitHarBaseline(dataset: RvDataset): HarBaseline {
  const { x, y } = harDesign(dataset, dataset.trainCloses);
  return { coefficients: Array.from(fitOls(x, y, 3)), rows: y.length };
}

/**
 * The baseline's forecast for every sample (NaN where the day has no HAR features: the first 21
 * sessions of a symbol), aligned with `samples`.
 */
export function harForecast(
  model: HarBaseline,
  dataset: RvDataset,
  samples: RvSamples,
): Float64Array {
  const out = new Float64Array(samples.count).fill(Number.NaN);
  const { x, rows } = harDesign(dataset, samples);
  const [b0 = 0, bd = 0, bw = 0, bm = 0] = model.coefficients;
  rows.forEach((i, r) => {
    out[i] = b0 + bd * (x[r * 3] ?? 0) + bw * (x[r * 3 + 1] ?? 0) + bm * (x[r * 3 + 2] ?? 0);
  });
  return out;
}
