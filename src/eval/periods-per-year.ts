import { TradelabError } from '../core/index.js';
import { calendarFor, type Calendar, type CalendarName } from '../data/calendar.js';
import { DAY_MS, timeframeMs, type Timeframe } from '../data/timeframe.js';

const HOUR = 3_600_000;
/**
 * The US equities regular session opens 09:30 New York time, 13:30 UTC in daylight time (about two
 * thirds of the year); resampled intraday bars are aligned to UTC multiples of their length.
 */
const US_OPEN_UTC_MS = 13.5 * HOUR;

/**
 * How many bars of length `barMs` one regular session of `calendar` holds, as resampled data has them.
 *
 * Markets that trade around the clock (24/7, FX) hold `sessionMs / barMs` bars. A session shorter
 * than a day (US equities, 09:30-16:00) holds every UTC-aligned bar that overlaps it, because the
 * resampler keeps a bar starting before the open that holds trades after it: 1h bars are 09:00 (holding
 * 09:30-10:00) through 15:00, so 7 per session, not 6.5; 30m and shorter divide the session exactly
 * (13, 26, 78, 390); 4h gives 2 (12:00 and 16:00 UTC in daylight time); a daily bar is 1.
 */
export function barsPerSession(barMs: number, calendar: Calendar): number {
  if (!(barMs > 0) || !Number.isFinite(barMs)) {
    throw new TradelabError('INVALID_ARGUMENT', `bar length ${barMs} ms is not a positive number`, {
      hint: 'pass a timeframe such as 1m, 1h or 1d',
    });
  }
  if (barMs >= DAY_MS) return 1;
  if (calendar.sessionMs >= DAY_MS) return calendar.sessionMs / barMs;
  const open = US_OPEN_UTC_MS;
  const close = open + calendar.sessionMs;
  return Math.max(1, Math.ceil(close / barMs) - Math.floor(open / barMs));
}

/**
 * Bars per year for annualizing: the calendar's sessions per year (365 for 24/7, 252 for US
 * equities, 260 for FX) times {@link barsPerSession}. 1m on 24/7 is 525,600; 1h on US equities is
 * 252 × 7 = 1,764; daily bars give the sessions per year.
 */
export function periodsPerYear(timeframe: Timeframe, calendar: Calendar | CalendarName): number {
  const cal = typeof calendar === 'string' ? calendarFor(calendar) : calendar;
  return cal.sessionsPerYear * barsPerSession(timeframeMs(timeframe), cal);
}
