/**
 * Realized volatility from intraday bars: daily realized variance per trading session, its
 * annualization, and the forward-looking target series the volatility models learn.
 */
import { TradelabError } from '../core/index.js';
import type { Bars } from './bars.js';
import type { Calendar } from './calendar.js';
import { DAY_MS, timeframeOfMs } from './timeframe.js';

/** The default sampling interval of realized variance: 5 minutes, a common trade-off between
 * microstructure noise (finer) and too few returns (coarser). */
export const DEFAULT_SAMPLING_MS = 5 * 60_000;
/** The default forward horizon, in sessions: 22 trading days ≈ one calendar month. */
export const DEFAULT_FORWARD_HORIZON = 22;

/** Options for {@link dailyRealizedVariance}. */
export interface RealizedVarianceOptions {
  /**
   * Sampling interval of the returns, in ms. Bars this long or longer are used as they are (and
   * the result's `note` says so when they are longer). Default {@link DEFAULT_SAMPLING_MS} (5 min).
   */
  samplingMs?: number;
  /**
   * The fewest returns a session needs to be kept; sessions with fewer are dropped and listed in
   * `dropped`. Default: half the returns of a full regular session at the sampling used, at least 1
   * (39 for US equities at 5 minutes, so 13:00 early closes with 42 are kept; 144 for 24/7).
   */
  minReturns?: number;
}

/** Daily realized variance: one entry per kept session, in session order. */
export interface DailyRealizedVariance {
  /** Session day numbers (days since 1970-01-01), ascending; only observed sessions appear. */
  days: Int32Array;
  /** Realized variance of each session: the sum of its squared log returns (not annualized). */
  rv: Float64Array;
  /** How many returns each session's RV sums. */
  returnsPerDay: Int32Array;
  /** The sampling interval actually used, in ms (the bar length when bars are that coarse). */
  samplingMs: number;
  /** The minimum returns per session that was applied. */
  minReturns: number;
  /** Sessions that had bars but fewer than `minReturns` returns, left out of the arrays above. */
  dropped: { days: Int32Array; returnsPerDay: Int32Array };
  /** Set when the bars are coarser than the requested sampling, saying how they were used. */
  note?: string;
}

/**
 * Daily realized variance: for each trading session, the sum of squared log returns of the close
 * sampled every `samplingMs`.
 *
 * - Only bars in which the calendar is open count (a bar counts when the market is open at its
 *   start or just before its end; daily bars count on session days), so pre- and after-market
 *   bars of US equities never enter a session's RV.
 * - Sampling: the grid starts at the session's open (the first instant the calendar is open in that
 *   session) and steps by `samplingMs`. The price at a grid point is the last close at or before it
 *   (previous-tick). The open of the session's first bar stands for the price at the grid point at
 *   or before that bar's start (the 09:30 open for 09:30; the 09:31 open when the 09:30 bar is
 *   missing), as the open of a resampled bar would. A return is counted for each grid interval
 *   holding at least one observation, so a hole in the data adds one return that spans it, not a
 *   run of zero returns. A session's last, partial grid interval is kept.
 * - Bars at least as long as the sampling are used as they are: the first bar of a session gives
 *   open→close, every further bar close→close.
 * - Returns never span two sessions: there is no overnight (close→next open) return, in any
 *   calendar; for 24/7 markets the UTC midnight boundary cuts nothing, since the day's first open
 *   is (nearly) the previous day's last close.
 * - Sessions with fewer than `minReturns` returns are dropped (their RV sums fewer squared returns
 *   and is biased low) and listed in `dropped`.
 *
 * Timestamps must be strictly ascending and prices positive (as import validation guarantees).
 * Assumes a session's open hours are one interval and none is shorter than a quarter of a regular
 * session, as in every calendar tradelab has: that lets most bars skip the calendar (the 13:00
 * early close is 3.5 h against a 1.6 h quarter).
 */
export function dailyRealizedVariance(
  bars: Bars,
  calendar: Calendar,
  barMs: number,
  options: RealizedVarianceOptions = {},
): DailyRealizedVariance {
  requirePositive(barMs, 'barMs', 'the bar length in ms, e.g. 60000 for 1m bars');
  const requested = options.samplingMs ?? DEFAULT_SAMPLING_MS;
  requirePositive(requested, 'samplingMs', 'e.g. 300000 for 5-minute sampling');
  const asIs = barMs >= requested;
  const samplingMs = asIs ? barMs : requested;
  const minReturns = options.minReturns ?? defaultMinReturns(calendar, samplingMs);
  if (!Number.isInteger(minReturns) || minReturns < 1) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `minReturns ${minReturns} is not allowed: expected an integer ≥ 1`,
      {
        hint: 'leave it out for the default (half a full session)',
      },
    );
  }
  const daily = barMs >= DAY_MS;
  const { timestamps, open, close } = bars;
  const n = timestamps.length;

  const keptDays: number[] = [];
  const keptRv: number[] = [];
  const keptCounts: number[] = [];
  const droppedDays: number[] = [];
  const droppedCounts: number[] = [];

  let session = Number.NaN; // current session's day number; NaN before the first
  // [fastFrom, fastTo): instants known to be open and in `session`, so most bars skip the calendar.
  let fastFrom = Number.NaN;
  let fastTo = Number.NaN;
  // Bars starting before `closedUntil` are known to lie wholly in closed hours.
  let closedUntil = -Infinity;
  const probeCap = Math.max(1, calendar.sessionMs / 4);
  let gridStart = 0;
  let sum = 0;
  let count = 0;
  // Grid sampling state: the grid index of the interval holding the latest observation, that
  // observation's price, and the price at the grid point before that interval (NaN: none yet).
  let curK = 0;
  let curPrice = Number.NaN;
  let anchor = Number.NaN;
  let prevT = -Infinity;

  const flush = (): void => {
    if (!asIs && !Number.isNaN(anchor)) {
      const r = Math.log(curPrice / anchor);
      sum += r * r;
      count++;
    }
    if (count >= minReturns) {
      keptDays.push(session);
      keptRv.push(sum);
      keptCounts.push(count);
    } else {
      droppedDays.push(session);
      droppedCounts.push(count);
    }
  };

  for (let i = 0; i < n; i++) {
    const t = timestamps[i] ?? Number.NaN;
    if (!(t > prevT)) throw unsorted(i, t, prevT);
    prevT = t;

    let newSession = false;
    if (!(t >= fastFrom && t < fastTo)) {
      if (t < closedUntil) continue;
      let at = t; // an instant of this bar at which the market is open
      let s: number;
      if (daily) {
        s = calendar.sessionOf(t);
        if (!calendar.isSessionDay(s)) continue;
      } else {
        if (!calendar.isOpen(t)) {
          at = t + barMs - 1;
          if (!calendar.isOpen(at)) {
            closedUntil = nextOpenInstant(calendar, at, barMs, probeCap) - barMs + 1;
            continue;
          }
        }
        s = calendar.sessionOf(at, barMs);
      }
      if (s !== session) {
        if (s < session) {
          throw new TradelabError(
            'INTERNAL',
            `calendar ${calendar.name} put the bar at ${iso(t)} in session ${iso(s * DAY_MS)}, before the previous bar's session ${iso(session * DAY_MS)}`,
          );
        }
        if (!Number.isNaN(session)) flush();
        session = s;
        newSession = true;
        if (!asIs) {
          [fastFrom, fastTo] = sessionBounds(calendar, at, s);
          gridStart = fastFrom;
        }
      }
    }

    const c = close[i] ?? Number.NaN;
    if (!(c > 0 && c < Infinity)) throw badPrice(i, t, 'close', c);
    if (newSession) {
      sum = 0;
      count = 0;
      const o = open[i] ?? Number.NaN;
      if (!(o > 0 && o < Infinity)) throw badPrice(i, t, 'open', o);
      if (asIs) {
        const r = Math.log(c / o);
        sum = r * r;
        count = 1;
      } else {
        // The session's first open stands for the price at the grid point at or before the bar's
        // start, as a resampled bar's open would; the close follows below as a new observation.
        curK = Math.floor((t - gridStart) / samplingMs);
        curPrice = o;
        anchor = Number.NaN;
      }
    } else if (asIs) {
      const r = Math.log(c / curPrice);
      sum += r * r;
      count++;
    }
    if (asIs) {
      curPrice = c;
      continue;
    }
    // The close is observed at the bar's end; it belongs to the grid interval (g[k-1], g[k]].
    const k = Math.ceil((t + barMs - gridStart) / samplingMs);
    if (k !== curK) {
      if (!Number.isNaN(anchor)) {
        const r = Math.log(curPrice / anchor);
        sum += r * r;
        count++;
      }
      anchor = curPrice;
      curK = k;
    }
    curPrice = c;
  }
  if (!Number.isNaN(session)) flush();

  const result: DailyRealizedVariance = {
    days: Int32Array.from(keptDays),
    rv: Float64Array.from(keptRv),
    returnsPerDay: Int32Array.from(keptCounts),
    samplingMs,
    minReturns,
    dropped: { days: Int32Array.from(droppedDays), returnsPerDay: Int32Array.from(droppedCounts) },
  };
  if (barMs > requested) {
    result.note =
      `bars of ${durationText(barMs)} are coarser than the requested ${durationText(requested)} sampling: ` +
      `used as they are (one return per bar, open→close for a session's first bar), so each RV sums fewer, ` +
      `longer returns and is noisier`;
  }
  return result;
}

/**
 * Annualized volatility from daily realized variance: `sqrt(periodsPerYear · rv)` elementwise.
 * Pass the dataset's calendar to use its sessions per year (252 US equities, 365 for 24/7, 260 FX).
 */
export function annualizedVolatility(
  rv: ArrayLike<number>,
  periodsPerYear: number | Calendar,
): Float64Array {
  const periods =
    typeof periodsPerYear === 'number' ? periodsPerYear : periodsPerYear.sessionsPerYear;
  requirePositive(periods, 'periodsPerYear', '252 for US equities, 365 for crypto');
  const out = new Float64Array(rv.length);
  for (let i = 0; i < rv.length; i++) out[i] = Math.sqrt(periods * (rv[i] ?? Number.NaN));
  return out;
}

/**
 * The forward realized-variance target: `target[d]` is the mean daily RV over the next `horizon`
 * sessions, days d+1 … d+horizon (day d itself is excluded: it is known when the forecast is
 * made). The last `horizon` entries are NaN. Consecutive targets overlap by horizon − 1 days, so
 * splits for training must leave a gap of `horizon` days between train and test.
 */
export function forwardRealizedVariance(
  rv: ArrayLike<number>,
  horizon = DEFAULT_FORWARD_HORIZON,
): Float64Array {
  if (!Number.isInteger(horizon) || horizon < 1) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `horizon ${horizon} is not allowed: expected an integer ≥ 1 (sessions)`,
      {
        hint: `e.g. ${DEFAULT_FORWARD_HORIZON} for about one calendar month`,
      },
    );
  }
  const n = rv.length;
  const out = new Float64Array(n).fill(Number.NaN);
  // A fresh sum per day rather than a running one: a running sum would carry rounding from rv[d]
  // and earlier into target[d], and the target must not depend on them at all.
  for (let d = 0; d + horizon < n; d++) {
    let s = 0;
    for (let j = d + 1; j <= d + horizon; j++) s += rv[j] ?? Number.NaN;
    out[d] = s / horizon;
  }
  return out;
}

/** Half the returns of a full regular session at `samplingMs`, at least 1. */
function defaultMinReturns(calendar: Calendar, samplingMs: number): number {
  return Math.max(1, Math.floor(Math.ceil(calendar.sessionMs / samplingMs) / 2));
}

/**
 * The open hours [start, end) of session `s`, around `at`, an open instant of it; the start aligns
 * the sampling grid. Checks the common cases first (the data's first bar at the open, a session of
 * regular length) and bisects otherwise. Relies on a session's open hours being one interval.
 */
function sessionBounds(calendar: Calendar, at: number, s: number): [number, number] {
  // x is an instant, never a daily bar's stamp: a bar length of 1 ms says so.
  const inSession = (x: number): boolean => calendar.isOpen(x) && calendar.sessionOf(x, 1) === s;
  const outside = (x: number): boolean => !inSession(x);
  let start = at;
  if (inSession(at - 1)) {
    if (inSession(at - 2 * DAY_MS)) throw longSession(calendar, at);
    start = firstTrue(inSession, at - 2 * DAY_MS, at - 1);
  }
  const regularEnd = start + calendar.sessionMs;
  if (regularEnd > at && inSession(regularEnd - 1) && !inSession(regularEnd))
    return [start, regularEnd];
  if (inSession(at + 2 * DAY_MS)) throw longSession(calendar, at);
  return [start, firstTrue(outside, at, at + 2 * DAY_MS)];
}

/**
 * The first instant after `closed` (a closed instant) at which the calendar is open: probes forward
 * in steps growing from `barMs` to `cap`, then bisects. Assumes no open stretch is shorter than
 * `cap` (a quarter of a regular session), or the probes could step over it. Gives up after 31 days
 * (returning the last instant probed) so a long closure costs a bounded number of probes.
 */
function nextOpenInstant(calendar: Calendar, closed: number, barMs: number, cap: number): number {
  const isOpen = (x: number): boolean => calendar.isOpen(x);
  let lo = closed;
  let step = Math.min(barMs, cap);
  while (lo - closed < 31 * DAY_MS) {
    const x = lo + step;
    if (isOpen(x)) return firstTrue(isOpen, lo, x);
    lo = x;
    step = Math.min(step * 2, cap);
  }
  return lo;
}

/** The least integer x in (lo, hi] with `pred(x)`, for `pred` false at lo, true at hi, monotone. */
function firstTrue(pred: (x: number) => boolean, lo: number, hi: number): number {
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (pred(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

function longSession(calendar: Calendar, at: number): TradelabError {
  return new TradelabError(
    'INTERNAL',
    `calendar ${calendar.name} has a session around ${iso(at)} longer than two days`,
  );
}

function requirePositive(value: number, name: string, example: string): void {
  if (!(value > 0 && value < Infinity)) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `${name} ${value} is not allowed: expected a positive number`,
      {
        hint: example,
      },
    );
  }
}

function unsorted(i: number, t: number, prev: number): TradelabError {
  return new TradelabError(
    'DATA_INVALID',
    `bar ${i} at ${iso(t)} does not come after the bar before it (${iso(prev)}): realized variance needs strictly ascending timestamps`,
    { hint: 'import the data with `tradelab data import`, which sorts and de-duplicates bars' },
  );
}

function badPrice(i: number, t: number, field: string, value: number): TradelabError {
  return new TradelabError(
    'DATA_INVALID',
    `bar ${i} at ${iso(t)} has ${field} ${value}: log returns need positive, finite prices`,
    {
      hint: 'import the data with `--on-bad drop` or `--on-bad repair`',
    },
  );
}

function iso(t: number): string {
  return Number.isFinite(t) && Math.abs(t) < 8.64e15 ? new Date(t).toISOString() : String(t);
}

function durationText(ms: number): string {
  const tf = timeframeOfMs(ms);
  if (tf !== undefined) return tf;
  return ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms} ms`;
}
