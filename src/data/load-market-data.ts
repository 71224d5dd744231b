import { TradelabError } from '../errors/index.js';
import type { Bars } from './bars.js';
import type { CalendarName } from './calendar.js';
import { computeFeaturesForAssets, type FeatureOptions } from './features/index.js';
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
  /** Leading bars dropped because some feature was still warming up. */
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
}

/**
 * Loads datasets of one timeframe, keeps the timestamps every symbol has (inner join, reporting
 * what each lost), computes features on the aligned bars, and trims the warm-up from every array.
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
  const loaded = await Promise.all(keys.map((k) => store.read(k)));
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
  const series = loaded.map((l) => inRange(l.bars, options.range));
  const rowsPerSymbol = innerJoin(series.map((b) => b.timestamps));
  const aligned = series.map((bars, a) => pick(bars, rowsPerSymbol[a] ?? new Int32Array()));
  const shared = rowsPerSymbol[0]?.length ?? 0;
  const features = computeFeaturesForAssets(aligned, options.features);
  const warm = features.warmup;
  const t = shared - warm;
  if (t <= 0) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `only ${shared} aligned bars, fewer than the ${warm} the features need to warm up`,
      {
        hint: 'load a longer range, or more overlapping history',
      },
    );
  }
  const assets = keys.length;
  const interleave = (field: 'close' | 'open' | 'high' | 'low' | 'volume'): Float64Array => {
    const out = new Float64Array(t * assets);
    for (let a = 0; a < assets; a++) {
      const column = aligned[a]?.[field];
      if (column === undefined) continue;
      for (let i = 0; i < t; i++) out[i * assets + a] = column[i + warm] ?? 0;
    }
    return out;
  };
  const width = features.names.length;
  const data: MarketData = {
    symbols: keys.map((k) => k.symbol),
    timeframe: first.timeframe,
    calendar,
    timestamps: (aligned[0]?.timestamps ?? new Float64Array()).slice(warm),
    priceArray: interleave('close'),
    techArray: features.values.slice(warm * assets * width),
    featureNames: features.names,
    warmupDropped: warm,
    alignment: {
      bars: series.map((b) => b.timestamps.length),
      dropped: series.map((b) => b.timestamps.length - shared),
    },
  };
  if (options.ohlcv !== false) {
    data.open = interleave('open');
    data.high = interleave('high');
    data.low = interleave('low');
    data.volume = interleave('volume');
  }
  return data;
}

function inRange(bars: Bars, range: LoadMarketDataOptions['range']): Bars {
  if (range === undefined) return bars;
  const ts = bars.timestamps;
  const lo = range.fromMs === undefined ? 0 : lowerBound(ts, range.fromMs);
  const hi = range.toMs === undefined ? ts.length : lowerBound(ts, range.toMs);
  const view = (a: Float64Array): Float64Array => a.subarray(lo, hi);
  const out: Bars = {
    timestamps: view(ts),
    open: view(bars.open),
    high: view(bars.high),
    low: view(bars.low),
    close: view(bars.close),
    volume: view(bars.volume),
  };
  if (bars.adjClose !== undefined) out.adjClose = view(bars.adjClose);
  return out;
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

function pick(bars: Bars, rows: Int32Array): Bars {
  const take = (a: Float64Array): Float64Array => {
    const out = new Float64Array(rows.length);
    for (let j = 0; j < rows.length; j++) out[j] = a[rows[j] ?? 0] ?? 0;
    return out;
  };
  return {
    timestamps: take(bars.timestamps),
    open: take(bars.open),
    high: take(bars.high),
    low: take(bars.low),
    close: take(bars.close),
    volume: take(bars.volume),
  };
}
