/**
 * OHLCV bars of one symbol, columnar: one Float64Array per field, all the same length, timestamps
 * in milliseconds UTC (bar open time), strictly ascending once validated.
 */
export interface Bars {
  timestamps: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
  /** Dividend/split-adjusted close, when the source has one (Yahoo). */
  adjClose?: Float64Array;
}

/** The price/volume fields of {@link Bars}, in file order. */
export const BAR_FIELDS = ['open', 'high', 'low', 'close', 'volume'] as const;
/** A price/volume field. */
export type BarField = (typeof BAR_FIELDS)[number];

/** Number of bars. */
export function barCount(bars: Bars): number {
  return bars.timestamps.length;
}

/** Empty bars with room for `n` rows. */
export function allocateBars(n: number, withAdjClose = false): Bars {
  const bars: Bars = {
    timestamps: new Float64Array(n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    volume: new Float64Array(n),
  };
  if (withAdjClose) bars.adjClose = new Float64Array(n);
  return bars;
}

/** The bars at the given row indexes, in that order (a new copy). */
export function selectBars(bars: Bars, rows: ArrayLike<number>): Bars {
  const out = allocateBars(rows.length, bars.adjClose !== undefined);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] ?? 0;
    out.timestamps[i] = bars.timestamps[r] ?? 0;
    out.open[i] = bars.open[r] ?? 0;
    out.high[i] = bars.high[r] ?? 0;
    out.low[i] = bars.low[r] ?? 0;
    out.close[i] = bars.close[r] ?? 0;
    out.volume[i] = bars.volume[r] ?? 0;
    if (out.adjClose !== undefined) out.adjClose[i] = bars.adjClose?.[r] ?? 0;
  }
  return out;
}

/** Applies `fn` to every column (adjusted close included when present). */
export function mapBarColumns(bars: Bars, fn: (column: Float64Array) => Float64Array): Bars {
  const out: Bars = {
    timestamps: fn(bars.timestamps),
    open: fn(bars.open),
    high: fn(bars.high),
    low: fn(bars.low),
    close: fn(bars.close),
    volume: fn(bars.volume),
  };
  if (bars.adjClose !== undefined) out.adjClose = fn(bars.adjClose);
  return out;
}

/** A copy of the first `n` bars. */
export function sliceBars(bars: Bars, n: number): Bars {
  return mapBarColumns(bars, (column) => column.slice(0, n));
}

/** The first `n` bars (views, not copies). */
export function truncateBars(bars: Bars, n: number): Bars {
  return mapBarColumns(bars, (column) => column.subarray(0, n));
}

/**
 * The bars with the adjusted close as close and open/high/low scaled by the same factor (volume
 * kept): the series a model should see for dividend- and split-adjusted returns. Bars without an
 * adjusted close are returned as they are.
 */
export function adjustedBars(bars: Bars): Bars {
  const adj = bars.adjClose;
  if (adj === undefined) return bars;
  const n = adj.length;
  const out = allocateBars(n, true);
  out.timestamps.set(bars.timestamps);
  out.volume.set(bars.volume);
  out.adjClose?.set(adj);
  for (let i = 0; i < n; i++) {
    const close = bars.close[i] ?? 0;
    const factor = close === 0 ? 1 : (adj[i] ?? 0) / close;
    out.open[i] = (bars.open[i] ?? 0) * factor;
    out.high[i] = (bars.high[i] ?? 0) * factor;
    out.low[i] = (bars.low[i] ?? 0) * factor;
    out.close[i] = adj[i] ?? 0;
  }
  return out;
}
