import { z } from 'zod';
import { TradelabError } from '../../core/index.js';

/*
 * Feature normalization fitted on the training split and applied everywhere else.
 *
 * Pooling: by default one center and scale per feature, pooled over all assets ('feature'), rather
 * than one per (asset, feature) column ('column'). The features are already scale-free (returns,
 * ratios to the close, bounded oscillators), so their distributions are comparable across assets;
 * pooling keeps the differences between assets that the model should see (a volatile asset keeps a
 * higher normalized `vol_20` than a quiet one, where per-column stats would map both to 0), it gives
 * every statistic `assets` times more samples (robust quantiles on a short training split are
 * noisy), and the stats then do not depend on the asset's position, so they apply to any number of
 * assets. 'column' remains for assets whose features are on really different scales.
 */

/** How values are centered and scaled. */
export type NormalizationMethod = 'zscore' | 'robust';
/** Which values share one center and scale. */
export type NormalizerPooling = 'feature' | 'column';
/** Rows `[start, end)` of a techArray (start inclusive, end exclusive). */
export type FitRange = readonly [start: number, end: number];

/** The layout of a techArray: T × assets × F, row-major (T follows from the length). */
export interface TechArrayShape {
  assets: number;
  features: number;
}

/** Options for {@link fitNormalizer}. */
export interface NormalizerOptions {
  /**
   * 'zscore': `(x − mean) / std` (population std); 'robust': `(x − median) / (IQR / 1.349)`, which
   * matches the std for normally distributed data and ignores outliers. Default 'zscore'.
   */
  method?: NormalizationMethod;
  /** 'feature': one center and scale per feature, pooled over assets; 'column': one per (asset, feature). Default 'feature'. */
  pooling?: NormalizerPooling;
  /** Normalized values are clipped to [−clip, clip]; false leaves them unclipped. Default 10. */
  clip?: number | false;
  /** The features' names, saved with the stats so they can be checked against the model's later. Default none. */
  featureNames?: readonly string[];
}

/** The IQR of a standard normal distribution: 2 · Φ⁻¹(0.75). */
const NORMAL_IQR = 1.3489795003921634;
const FORMAT = 'tradelab.normalizer/1';

/** A normalizer's stats as plain JSON, as {@link Normalizer.toJSON} writes them. */
export interface NormalizerJson {
  format: typeof FORMAT;
  method: NormalizationMethod;
  pooling: NormalizerPooling;
  /** null: no clipping. */
  clip: number | null;
  assets: number;
  features: number;
  /** null when the fit was given no names. */
  featureNames: string[] | null;
  /** One per stat column: F for 'feature' pooling, assets × F (asset-major) for 'column'. */
  center: number[];
  /** One per stat column, > 0; 1 where the column had no spread. */
  scale: number[];
  /** Stat columns whose fit values had no spread (all equal): centered, not scaled. */
  zeroSpread: number[];
  /** The rows the stats were fitted on. */
  ranges: [number, number][];
  /** Values behind each stat: fitted rows, times assets when pooled. */
  samples: number;
}

/** Fitted normalization stats; turns raw features into centered, scaled, clipped ones. */
export class Normalizer {
  /** How values are centered and scaled. */
  readonly method: NormalizationMethod;
  /** Which values share one center and scale. */
  readonly pooling: NormalizerPooling;
  /** The clip bound, or null for none. */
  readonly clip: number | null;
  /** Assets in the techArray it was fitted on. */
  readonly assets: number;
  /** Features per asset. */
  readonly features: number;
  /** Feature names, when the fit was given them. */
  readonly featureNames: readonly string[] | null;
  /** Center per stat column (mean or median). */
  readonly center: Float64Array;
  /** Scale per stat column (std or IQR / 1.349; 1 where the column had no spread). */
  readonly scale: Float64Array;
  /** Stat columns without spread in the fit range. */
  readonly zeroSpread: readonly number[];
  /** The rows the stats were fitted on. */
  readonly ranges: readonly FitRange[];
  /** Values behind each stat. */
  readonly samples: number;

  /** Stats from JSON (validated); prefer {@link fitNormalizer} or {@link Normalizer.fromJSON}. */
  constructor(json: NormalizerJson) {
    const stats = parseJson(json);
    this.method = stats.method;
    this.pooling = stats.pooling;
    this.clip = stats.clip;
    this.assets = stats.assets;
    this.features = stats.features;
    this.featureNames = stats.featureNames === null ? null : [...stats.featureNames];
    this.center = Float64Array.from(stats.center);
    this.scale = Float64Array.from(stats.scale);
    this.zeroSpread = [...stats.zeroSpread];
    this.ranges = stats.ranges.map(([start, end]) => [start, end] as const);
    this.samples = stats.samples;
  }

  /** Reads stats written by {@link Normalizer.toJSON}; an INVALID_ARGUMENT error says what is wrong. */
  static fromJSON(json: unknown): Normalizer {
    return new Normalizer(parseJson(json));
  }

  /** The stats as plain JSON (numbers round-trip exactly through JSON.stringify / parse). */
  toJSON(): NormalizerJson {
    return {
      format: FORMAT,
      method: this.method,
      pooling: this.pooling,
      clip: this.clip,
      assets: this.assets,
      features: this.features,
      featureNames: this.featureNames === null ? null : [...this.featureNames],
      center: Array.from(this.center),
      scale: Array.from(this.scale),
      zeroSpread: [...this.zeroSpread],
      ranges: this.ranges.map(([start, end]) => [start, end]),
      samples: this.samples,
    };
  }

  /**
   * Normalizes a techArray laid out like the fitted one (any number of rows; with 'feature' pooling
   * any number of assets too) into `out`, which may be `values` itself; allocates only when `out`
   * is not given. NaN stays NaN.
   */
  apply(values: Float32Array, out?: Float32Array): Float32Array {
    const block = this.center.length;
    if (values.length % block !== 0) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `normalizer: ${values.length} values are not whole rows of ${block} (${this.describeBlock()})`,
        { hint: 'apply it to a techArray with the layout it was fitted on' },
      );
    }
    const target = out ?? new Float32Array(values.length);
    if (target.length !== values.length) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `normalizer: out has ${target.length} values but the input has ${values.length}`,
        { hint: 'pass an out array of the same length, or the input itself to normalize in place' },
      );
    }
    const { center, scale } = this;
    const clip = this.clip ?? Infinity;
    for (let base = 0; base < values.length; base += block) {
      for (let j = 0; j < block; j++) {
        const y = ((values[base + j] ?? NaN) - (center[j] ?? 0)) / (scale[j] ?? 1);
        target[base + j] = y > clip ? clip : y < -clip ? -clip : y;
      }
    }
    return target;
  }

  /** Throws unless `names` are the feature names the stats were fitted with (when they were given). */
  checkFeatureNames(names: readonly string[]): void {
    if (this.featureNames === null) return;
    const expected = this.featureNames.join(', ');
    if (names.join(', ') !== expected) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `normalizer was fitted on features [${expected}] but got [${names.join(', ')}]`,
        { hint: 'compute the features with the options the normalizer was fitted with' },
      );
    }
  }

  private describeBlock(): string {
    return this.pooling === 'feature'
      ? `${this.features} features`
      : `${this.assets} assets × ${this.features} features`;
  }
}

/**
 * Fits normalization stats on rows `ranges` of a techArray (T × assets × F): only those rows are
 * read. The ranges must be non-empty, inside [0, T), and not overlap, and the values in them finite
 * (drop the warm-up first). A column whose fit values are all equal (robust: whose IQR is 0) gets
 * scale 1 and is listed in `zeroSpread`: it is centered, not scaled.
 */
export function fitNormalizer(
  values: Float32Array,
  shape: TechArrayShape,
  ranges: readonly FitRange[],
  options: NormalizerOptions = {},
): Normalizer {
  const { assets, features } = shape;
  for (const [name, value] of [
    ['assets', assets],
    ['features', features],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `normalizer: ${name} must be a positive integer, got ${value}`,
      );
    }
  }
  const rowWidth = assets * features;
  if (values.length % rowWidth !== 0) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `normalizer: ${values.length} values are not whole rows of ${assets} assets × ${features} features`,
      { hint: 'pass the techArray with the shape it was built with' },
    );
  }
  const rows = values.length / rowWidth;
  const checked = checkRanges(ranges, rows);
  const method = options.method ?? 'zscore';
  const pooling = options.pooling ?? 'feature';
  const clip = options.clip ?? 10;
  if (clip !== false && !(Number.isFinite(clip) && clip > 0)) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `normalizer: clip must be a finite number > 0 or false, got ${clip}`,
      {
        hint: 'e.g. clip 10 (the default), or false for no clipping',
      },
    );
  }
  if (options.featureNames !== undefined && options.featureNames.length !== features) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `normalizer: ${options.featureNames.length} feature names for ${features} features`,
      { hint: 'pass the FeatureTable names the techArray was computed with' },
    );
  }
  const fittedRows = checked.reduce((total, [start, end]) => total + end - start, 0);
  const columns = pooling === 'feature' ? features : rowWidth;
  const samples = pooling === 'feature' ? fittedRows * assets : fittedRows;
  const layout = { rowWidth, features, columns };
  const stats =
    method === 'zscore'
      ? meanStd(values, checked, layout)
      : medianIqr(values, checked, layout, samples);
  const center = Array.from(stats.center);
  const scale = Array.from(stats.spread, (spread) => (spread > 0 ? spread : 1));
  const zeroSpread = scale.flatMap((_, column) =>
    (stats.spread[column] ?? 0) > 0 ? [] : [column],
  );
  return new Normalizer({
    format: FORMAT,
    method,
    pooling,
    clip: clip === false ? null : clip,
    assets,
    features,
    featureNames: options.featureNames === undefined ? null : [...options.featureNames],
    center,
    scale,
    zeroSpread,
    ranges: checked.map(([start, end]) => [start, end]),
    samples,
  });
}

/** The ranges as given, checked: each non-empty, inside [0, rows), no two overlapping. */
function checkRanges(ranges: readonly FitRange[], rows: number): FitRange[] {
  if (ranges.length === 0) {
    throw new TradelabError('INVALID_ARGUMENT', 'normalizer: no fit ranges given', {
      hint: 'pass the training split as [start, end) row ranges, e.g. [[0, 8000]]',
    });
  }
  for (const range of ranges) {
    const [start, end] = range;
    const text = `[${start}, ${end})`;
    if (!Number.isInteger(start) || !Number.isInteger(end)) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `normalizer: fit range ${text} must have integer bounds`,
      );
    }
    if (start >= end) {
      throw new TradelabError('INVALID_ARGUMENT', `normalizer: fit range ${text} is empty`, {
        hint: 'a range [start, end) needs start < end',
      });
    }
    if (start < 0 || end > rows) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `normalizer: fit range ${text} is out of bounds: the techArray has rows [0, ${rows})`,
        { hint: 'ranges are row indexes of the techArray, after the warm-up was dropped' },
      );
    }
  }
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1];
    const current = sorted[i];
    if (previous !== undefined && current !== undefined && current[0] < previous[1]) {
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `normalizer: fit ranges [${previous[0]}, ${previous[1]}) and [${current[0]}, ${current[1]}) overlap`,
        { hint: 'overlapping rows would count twice; merge the ranges' },
      );
    }
  }
  return ranges.map(([start, end]) => [start, end] as const);
}

/** Where a techArray's values go: `columns` stats over rows of `rowWidth` values. */
interface StatLayout {
  rowWidth: number;
  features: number;
  /** F (pooled: value i of a row belongs to column i mod F) or assets × F (column i). */
  columns: number;
}

/** Center and spread per stat column; a spread of 0 means the column had none. */
interface ColumnStats {
  center: Float64Array;
  spread: Float64Array;
}

/** Mean and population std per column, in two row-major passes (the data is read in order). */
function meanStd(
  values: Float32Array,
  ranges: readonly FitRange[],
  layout: StatLayout,
): ColumnStats {
  const { rowWidth, columns } = layout;
  const sum = new Float64Array(columns);
  const min = new Float64Array(columns).fill(Infinity);
  const max = new Float64Array(columns).fill(-Infinity);
  let count = 0;
  for (const [start, end] of ranges) {
    for (let row = start; row < end; row++) {
      const base = row * rowWidth;
      for (
        let i = 0, column = 0;
        i < rowWidth;
        i++, column = column + 1 === columns ? 0 : column + 1
      ) {
        const value = values[base + i] ?? NaN;
        if (!Number.isFinite(value)) throw notFinite(value, row, i, layout);
        sum[column] = (sum[column] ?? 0) + value;
        if (value < (min[column] ?? 0)) min[column] = value;
        if (value > (max[column] ?? 0)) max[column] = value;
      }
    }
    count += end - start;
  }
  count *= rowWidth / columns;
  const center = sum.map((total) => total / count);
  const m2 = new Float64Array(columns);
  for (const [start, end] of ranges) {
    for (let row = start; row < end; row++) {
      const base = row * rowWidth;
      for (
        let i = 0, column = 0;
        i < rowWidth;
        i++, column = column + 1 === columns ? 0 : column + 1
      ) {
        const deviation = (values[base + i] ?? NaN) - (center[column] ?? 0);
        m2[column] = (m2[column] ?? 0) + deviation * deviation;
      }
    }
  }
  // All values equal: exactly no spread (a computed mean of equal values can be off by a bit).
  const spread = m2.map((total, column) =>
    min[column] === max[column] ? 0 : Math.sqrt(total / count),
  );
  center.forEach((_, column) => {
    if (min[column] === max[column]) center[column] = min[column] ?? 0;
  });
  return { center, spread };
}

/**
 * Median and IQR / 1.349 per column, with linearly interpolated quantiles (numpy's default): each
 * column's values are copied out and sorted.
 */
function medianIqr(
  values: Float32Array,
  ranges: readonly FitRange[],
  layout: StatLayout,
  samples: number,
): ColumnStats {
  const { rowWidth, columns } = layout;
  const center = new Float64Array(columns);
  const spread = new Float64Array(columns);
  const buffer = new Float32Array(samples); // the values are Float32: copies are exact
  const perRow = rowWidth / columns;
  for (let column = 0; column < columns; column++) {
    let k = 0;
    for (const [start, end] of ranges) {
      for (let row = start; row < end; row++) {
        for (let j = 0, i = column; j < perRow; j++, i += columns) {
          const value = values[row * rowWidth + i] ?? NaN;
          if (!Number.isFinite(value)) throw notFinite(value, row, i, layout);
          buffer[k++] = value;
        }
      }
    }
    buffer.sort();
    center[column] = quantile(buffer, 0.5);
    spread[column] = (quantile(buffer, 0.75) - quantile(buffer, 0.25)) / NORMAL_IQR;
  }
  return { center, spread };
}

function notFinite(value: number, row: number, i: number, layout: StatLayout): TradelabError {
  const asset = Math.floor(i / layout.features);
  const feature = i % layout.features;
  return new TradelabError(
    'INVALID_ARGUMENT',
    `normalizer: value ${value} at row ${row}, asset ${asset}, feature ${feature} is inside the fit range`,
    {
      hint: 'fit on rows after the features’ warm-up (the loader drops it)',
      details: { row, asset, feature },
    },
  );
}

function quantile(sorted: Float32Array, p: number): number {
  const position = p * (sorted.length - 1);
  const below = Math.floor(position);
  const low = sorted[below] ?? NaN;
  const high = sorted[Math.min(below + 1, sorted.length - 1)] ?? NaN;
  return low + (position - below) * (high - low);
}

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const count = z.number().int().min(1);
const jsonSchema = z
  .strictObject({
    format: z.literal(FORMAT),
    method: z.enum(['zscore', 'robust']),
    pooling: z.enum(['feature', 'column']),
    clip: z.number().positive().nullable(),
    assets: count,
    features: count,
    featureNames: z.array(z.string()).nullable(),
    center: z.array(finite),
    scale: z.array(finite.refine((value) => value > 0, 'must be > 0')),
    zeroSpread: z.array(z.number().int().min(0)),
    ranges: z.array(z.tuple([z.number().int().min(0), z.number().int().min(1)])).min(1),
    samples: count,
  })
  .superRefine((json, context) => {
    const columns = json.pooling === 'feature' ? json.features : json.assets * json.features;
    for (const key of ['center', 'scale'] as const) {
      if (json[key].length !== columns) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `must hold ${columns} numbers (${json.pooling} pooling), not ${json[key].length}`,
        });
      }
    }
    if (json.featureNames !== null && json.featureNames.length !== json.features) {
      context.addIssue({
        code: 'custom',
        path: ['featureNames'],
        message: `must hold ${json.features} names, not ${json.featureNames.length}`,
      });
    }
    json.zeroSpread.forEach((column, i) => {
      if (column >= columns || json.scale[column] !== 1) {
        context.addIssue({
          code: 'custom',
          path: ['zeroSpread', i],
          message: `column ${column} must be below ${columns} and have scale 1`,
        });
      }
    });
    json.ranges.forEach(([start, end], i) => {
      if (start >= end) {
        context.addIssue({
          code: 'custom',
          path: ['ranges', i],
          message: `[${start}, ${end}) is empty`,
        });
      }
    });
  });

function parseJson(json: unknown): NormalizerJson {
  const result = jsonSchema.safeParse(json);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `${issue.path.map(String).join('.') || '(top level)'}: ${issue.message}`,
  );
  throw new TradelabError(
    'INVALID_ARGUMENT',
    `normalizer stats are invalid: ${problems.join('; ')}`,
    {
      hint: 'use stats written by Normalizer.toJSON(), or fit the normalizer again',
      details: { issues: problems },
    },
  );
}
