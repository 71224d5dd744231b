import { TradelabError } from '../core/index.js';
import { allocateBars, sliceBars, type Bars } from './bars.js';
import type { Calendar } from './calendar.js';
import { DAY_MS, timeframeMs, type Timeframe } from './timeframe.js';

/** Where daily bars end: at midnight UTC, or at the calendar's session close. */
export type DailyBoundary = 'utc' | 'session';

/** Options for {@link resampleBars}. */
export interface ResampleOptions {
  from: Timeframe;
  to: Timeframe;
  calendar: Calendar;
  /** Daily bars: `session` groups by the calendar's trading session (default for equities and FX), `utc` by UTC day (default for 24/7). */
  daily?: DailyBoundary;
  /** Keep an incomplete last bar. Default false: it is dropped. */
  keepIncomplete?: boolean;
}

/** Bars at a coarser timeframe, and what happened at the end. */
export interface Resampled {
  bars: Bars;
  /** The last bucket had bars still to come and was dropped. */
  droppedIncomplete: boolean;
}

/**
 * Aggregates bars to a coarser timeframe: open = first, high = max, low = min, close = last,
 * volume = sum (adjusted close = last). Intraday buckets are aligned to UTC multiples of the target;
 * daily buckets to UTC days or trading sessions (stamped at the session date's midnight UTC).
 * Empty buckets are skipped, never invented; an incomplete last bucket is dropped.
 */
export function resampleBars(bars: Bars, options: ResampleOptions): Resampled {
  const fromMs = timeframeMs(options.from);
  const toMs = timeframeMs(options.to);
  if (toMs <= fromMs || toMs % fromMs !== 0) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `cannot resample ${options.from} to ${options.to}: the target must be a larger multiple of the source`,
      {
        hint: `resample ${options.from} data to one of the coarser timeframes, e.g. --to ${options.from === '1m' ? '5m' : '1d'}`,
      },
    );
  }
  const { calendar } = options;
  const bySession =
    toMs === DAY_MS &&
    (options.daily ?? (calendar.name === '24/7' ? 'utc' : 'session')) === 'session';
  const bucketOf = bySession
    ? (t: number): number => calendar.sessionOf(t, fromMs) * DAY_MS
    : (t: number): number => Math.floor(t / toMs) * toMs;
  const n = bars.timestamps.length;
  const out = allocateBars(
    n === 0
      ? 0
      : Math.min(
          n,
          Math.ceil(((bars.timestamps[n - 1] ?? 0) - (bars.timestamps[0] ?? 0)) / toMs) + 2,
        ),
    bars.adjClose !== undefined,
  );
  const ts = bars.timestamps;
  let m = -1;
  let bucket = Number.NaN;
  for (let i = 0; i < n; i++) {
    const t = ts[i] ?? 0;
    const b = bucketOf(t);
    if (b !== bucket) {
      m++;
      if (m >= out.timestamps.length) grow(out);
      bucket = b;
      out.timestamps[m] = b;
      out.open[m] = bars.open[i] ?? 0;
      out.high[m] = bars.high[i] ?? 0;
      out.low[m] = bars.low[i] ?? 0;
      out.close[m] = bars.close[i] ?? 0;
      out.volume[m] = bars.volume[i] ?? 0;
      if (out.adjClose !== undefined) out.adjClose[m] = bars.adjClose?.[i] ?? 0;
      continue;
    }
    const h = bars.high[i] ?? 0;
    const l = bars.low[i] ?? 0;
    if (h > (out.high[m] ?? 0)) out.high[m] = h;
    if (l < (out.low[m] ?? 0)) out.low[m] = l;
    out.close[m] = bars.close[i] ?? 0;
    out.volume[m] = (out.volume[m] ?? 0) + (bars.volume[i] ?? 0);
    if (out.adjClose !== undefined) out.adjClose[m] = bars.adjClose?.[i] ?? 0;
  }
  let count = m + 1;
  let droppedIncomplete = false;
  if (count > 0 && options.keepIncomplete !== true) {
    // Incomplete: a slot after the last bar still falls in its bucket while the market is open.
    const last = ts[n - 1] ?? 0;
    for (let s = last + fromMs; bucketOf(s) === bucket; s += fromMs) {
      if (calendar.isOpen(s) || calendar.isOpen(s + fromMs - 1)) {
        droppedIncomplete = true;
        count--;
        break;
      }
    }
  }
  return { bars: sliceBars(out, count), droppedIncomplete };
}

function grow(bars: Bars): void {
  const size = bars.timestamps.length * 2 + 16;
  for (const key of ['timestamps', 'open', 'high', 'low', 'close', 'volume', 'adjClose'] as const) {
    const old = bars[key];
    if (old === undefined) continue;
    const next = new Float64Array(size);
    next.set(old);
    bars[key] = next;
  }
}
