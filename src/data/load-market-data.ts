import { TradelabError } from '../core/index.js';
import type { CalendarName } from './calendar.js';
import { openDatasetSources } from './load-cache.js';
import type { FeatureOptions } from './features/index.js';
import { formatDatasetKey, type DatasetKey } from './store/dataset-key.js';
import type { DatasetStore } from './store/dataset-store.js';
import type { Timeframe } from './timeframe.js';

/**
 * Several symbols at one timeframe, aligned bar by bar: what the env and every later layer take as
 * is. Arrays are row-major; index t means the same bar in every array.
 */
export interface MarketData {
  symbols: string[];
  timeframe: Timeframe;
  calendar: CalendarName;
  /** T bar open times, ms UTC. */
  timestamps: Float64Array;
  /** T × assets closes. */
  priceArray: Float64Array;
  /** T × assets, when loaded with `ohlcv` (the default). */
  open?: Float64Array;
  high?: Float64Array;
  low?: Float64Array;
  volume?: Float64Array;
  /** T × assets × F raw (not normalized) features. */
  techArray: Float32Array;
  featureNames: string[];
  /** Leading aligned bars dropped because some symbol's features were still warming up. */
  warmupDropped: number;
  /** Per symbol: bars in its dataset (within the range), and bars dropped for lack of a partner in every other symbol. */
  alignment: { bars: number[]; dropped: number[] };
}

/** Options for {@link loadMarketData}. */
export interface LoadMarketDataOptions {
  features?: FeatureOptions;
  /** Also return open/high/low/volume arrays. Default true. */
  ohlcv?: boolean;
  /** Only bars with from <= t < to (ms UTC). */
  range?: { fromMs?: number; toMs?: number };
  /**
   * Told once per load when the load cache could not be written (the features were computed
   * and are returned all the same). Default: nothing is said.
   */
  onWarning?: (message: string) => void;
}

/**
 * Loads datasets of one timeframe, keeps the timestamps every symbol has (inner join, reporting
 * what each lost), takes each symbol's features (computed on its own series, cached in the store),
 * and trims the rows where any symbol's features are still warming up from every array.
 */
export async function loadMarketData(
  store: DatasetStore,
  keys: readonly DatasetKey[],
  options: LoadMarketDataOptions = {},
): Promise<MarketData> {
  const first = keys[0];
  if (first === undefined)
    throw new TradelabError('INVALID_ARGUMENT', 'no symbols to load', {
      hint: 'e.g. BTCUSDT,ETHUSDT:1h',
    });
  if (keys.some((k) => k.timeframe !== first.timeframe)) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `symbols must share one timeframe: ${keys.map(formatDatasetKey).join(', ')}`,
      {
        hint: 'resample first (`tradelab data resample`) so every symbol has the timeframe',
      },
    );
  }
  // Each symbol's bars and features (computed on its own full series, cached beside it); rows are
  // aligned after: a symbol's return at t spans its own previous bar even where another symbol
  // has a hole.
  const loaded = await openDatasetSources(store, keys, options.features);
  const calendars = [...new Set(loaded.map((l) => l.entry.calendar).filter((c) => c !== '24/7'))];
  if (calendars.length > 1) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `symbols trade on different calendars (${calendars.join(', ')}); their bars would rarely align`,
      {
        hint: 'load symbols of one market together',
      },
    );
  }
  const calendar: CalendarName = calendars[0] ?? '24/7';
  const unwritable = loaded.flatMap((x) => (x.unwritable === undefined ? [] : [x.unwritable]));
  if (unwritable.length > 0)
    options.onWarning?.(
      `the load cache could not be written (${unwritable[0] ?? ''}${unwritable.length > 1 ? `; and ${unwritable.length - 1} more` : ''}): the features were computed and are used, and will be computed again next time`,
    );
  const ranged = loaded.map((l) => rangeOf(l.timestamps, options.range));
  const rowsPerSymbol = innerJoin(
    loaded.map((l, s) => l.timestamps.subarray(ranged[s]?.[0] ?? 0, ranged[s]?.[1] ?? 0)),
  );
  rowsPerSymbol.forEach((rows, s) => {
    const offset = ranged[s]?.[0] ?? 0;
    for (let j = 0; j < rows.length; j++) rows[j] = (rows[j] ?? 0) + offset;
  });
  const shared = rowsPerSymbol[0]?.length ?? 0;
  // Drop leading aligned rows until every symbol is past its own warm-up.
  let warm = 0;
  while (
    warm < shared &&
    rowsPerSymbol.some((rows, s) => (rows[warm] ?? 0) < (loaded[s]?.warmup ?? 0))
  )
    warm++;
  const t = shared - warm;
  if (t <= 0) {
    throw new TradelabError(
      'DATA_TOO_SHORT',
      `only ${shared} aligned bars, none past the ${loaded[0]?.warmup ?? 0} bars the features need to warm up`,
      {
        hint: 'load a longer range, or more overlapping history',
      },
    );
  }
  const names = loaded[0]?.names ?? [];
  const assets = keys.length;
  const width = names.length;
  const ohlcv = options.ohlcv !== false;
  const fields = ohlcv
    ? (['close', 'open', 'high', 'low', 'volume'] as const)
    : (['close'] as const);
  const prices = new Map(fields.map((field) => [field, new Float64Array(t * assets)]));
  const techArray = new Float32Array(t * assets * width);
  // One symbol at a time: its bars and features are views of a buffer the next symbol reuses.
  for (const [a, source] of loaded.entries()) {
    const rows = rowsPerSymbol[a] as Int32Array;
    source.visit((bars, features) => {
      for (const [field, out] of prices)
        scatterColumn(out, bars[field], rows, { rows: t, skip: warm, assets, asset: a });
      scatterFeatures(techArray, features.values, rows, {
        rows: t,
        skip: warm,
        assets,
        asset: a,
        width,
      });
    });
  }
  const firstRows = rowsPerSymbol[0] ?? new Int32Array();
  const firstTimestamps = loaded[0]?.timestamps ?? new Float64Array();
  const timestamps = new Float64Array(t);
  for (let i = 0; i < t; i++) timestamps[i] = firstTimestamps[firstRows[i + warm] ?? 0] ?? 0;
  const data: MarketData = {
    symbols: keys.map((k) => k.symbol),
    timeframe: first.timeframe,
    calendar,
    timestamps,
    priceArray: prices.get('close') as Float64Array,
    techArray,
    featureNames: names,
    warmupDropped: warm,
    alignment: {
      bars: ranged.map(([lo, hi]) => hi - lo),
      dropped: ranged.map(([lo, hi]) => hi - lo - shared),
    },
  };
  if (ohlcv) {
    data.open = prices.get('open') as Float64Array;
    data.high = prices.get('high') as Float64Array;
    data.low = prices.get('low') as Float64Array;
    data.volume = prices.get('volume') as Float64Array;
  }
  return data;
}

/**
 * Writes one asset's feature rows at the aligned rows into its slot of the T × assets × F
 * techArray: F contiguous values per bar, every assets × F values.
 */
function scatterFeatures(
  out: Float32Array,
  matrix: Float32Array,
  rowsOf: Int32Array,
  shape: { rows: number; skip: number; assets: number; asset: number; width: number },
): void {
  const { rows, skip, assets, asset, width } = shape;
  const stride = assets * width;
  for (let i = 0, o = asset * width; i < rows; i++, o += stride) {
    let from = (rowsOf[i + skip] as number) * width;
    for (let k = o, end = o + width; k < end; k++) out[k] = matrix[from++] as number;
  }
}

/** Writes one asset's column at the aligned rows into its place in a T × assets row-major array. */
function scatterColumn(
  out: Float64Array,
  column: Float64Array,
  rowsOf: Int32Array,
  shape: { rows: number; skip: number; assets: number; asset: number },
): void {
  const { rows, skip, assets, asset } = shape;
  for (let i = 0, o = asset; i < rows; i++, o += assets)
    out[o] = column[rowsOf[i + skip] as number] as number;
}

/** The row range [lo, hi) of the timestamps inside `range`. */
function rangeOf(ts: Float64Array, range: LoadMarketDataOptions['range']): [number, number] {
  if (range === undefined) return [0, ts.length];
  const lo = range.fromMs === undefined ? 0 : lowerBound(ts, range.fromMs);
  const hi = range.toMs === undefined ? ts.length : lowerBound(ts, range.toMs);
  return [lo, Math.max(lo, hi)];
}

function lowerBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] ?? 0) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * For each series (sorted ascending), the row indexes of the timestamps that every series has, in
 * order: `result[s][j]` is series s's row of the j-th shared timestamp.
 */
export function innerJoin(series: readonly Float64Array[]): Int32Array[] {
  const k = series.length;
  // Common case: every series has the same timestamps.
  const [head] = series;
  if (head !== undefined && series.every((x) => sameValues(x, head))) {
    const identity = Int32Array.from({ length: head.length }, (_, i) => i);
    return series.map(() => identity.slice());
  }
  const capacity = Math.min(...series.map((a) => a.length));
  const out = series.map(() => new Int32Array(capacity));
  const at = new Int32Array(k);
  let n = 0;
  for (;;) {
    let max = -Infinity;
    for (let s = 0; s < k; s++) {
      const a = series[s] ?? new Float64Array();
      const i = at[s] ?? 0;
      if (i >= a.length) return out.map((rows) => rows.slice(0, n));
      if ((a[i] ?? 0) > max) max = a[i] ?? 0;
    }
    let all = true;
    for (let s = 0; s < k; s++) {
      const a = series[s] ?? new Float64Array();
      let i = at[s] ?? 0;
      while (i < a.length && (a[i] ?? 0) < max) i++;
      at[s] = i;
      if (i >= a.length) return out.map((rows) => rows.slice(0, n));
      if (a[i] !== max) all = false;
    }
    if (all) {
      for (let s = 0; s < k; s++) {
        const rows = out[s];
        if (rows !== undefined) rows[n] = at[s] ?? 0;
        at[s] = (at[s] ?? 0) + 1;
      }
      n++;
    }
  }
}

function sameValues(a: Float64Array, b: Float64Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
