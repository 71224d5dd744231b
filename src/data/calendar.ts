import { TradelabError } from '../core/index.js';
import { DAY_MS } from './timeframe.js';

/** Market calendars: when a market trades, and which trading session a bar belongs to. */
export const CALENDARS = ['24/7', 'us-equities', 'fx'] as const;
/** A calendar's name. */
export type CalendarName = (typeof CALENDARS)[number];

/** When a market trades. Times are milliseconds UTC; a "day" is a day number (days since 1970-01-01). */
export interface Calendar {
  readonly name: CalendarName;
  /** Trading sessions per year, for annualizing (365 for 24/7, 252 for US equities, 260 for FX). */
  readonly sessionsPerYear: number;
  /** Trading time in a regular session, in ms (bars per session = sessionMs / bar length). */
  readonly sessionMs: number;
  /** Whether the market trades at instant `t`. */
  isOpen(t: number): boolean;
  /**
   * The session (day number) that a bar starting at `t` belongs to. `barMs` (default one day) tells
   * a daily bar stamped at 00:00 UTC, which names its date, from an intraday bar starting then.
   */
  sessionOf(t: number, barMs?: number): number;
  /** Whether day `day` (a day number) holds a trading session. */
  isSessionDay(day: number): boolean;
}

const HOUR = 3_600_000;

/** Parses a calendar name, or throws a usage error listing the allowed ones. */
export function parseCalendar(text: string): CalendarName {
  const name = text.trim().toLowerCase() === '24x7' ? '24/7' : text.trim().toLowerCase();
  if ((CALENDARS as readonly string[]).includes(name)) return name as CalendarName;
  throw new TradelabError(
    'INVALID_ARGUMENT',
    `calendar "${text}" is not allowed: expected one of ${CALENDARS.join(', ')}`,
    {
      hint: '24/7 for crypto, us-equities for US stocks and ETFs, fx for currencies',
    },
  );
}

/** The calendar of a given name. */
export function calendarFor(name: CalendarName): Calendar {
  switch (name) {
    case '24/7':
      return ALWAYS_OPEN;
    case 'us-equities':
      return US_EQUITIES;
    case 'fx':
      return FX;
  }
}

const dayOf = (t: number): number => Math.floor(t / DAY_MS);
/** 0 = Sunday … 6 = Saturday, for a day number (1970-01-01 was a Thursday). */
const weekday = (day: number): number => (((day + 4) % 7) + 7) % 7;

const ALWAYS_OPEN: Calendar = {
  name: '24/7',
  sessionsPerYear: 365,
  sessionMs: DAY_MS,
  isOpen: () => true,
  sessionOf: dayOf,
  isSessionDay: () => true,
};

/** New York's offset from UTC at instant `t`, in ms (-4 h in daylight saving time, else -5 h). */
export function newYorkOffsetMs(t: number): number {
  const year = new Date(t).getUTCFullYear();
  const [start, end] = usDstBounds(year);
  return t >= start && t < end ? -4 * HOUR : -5 * HOUR;
}

const dstCache = new Map<number, readonly [number, number]>();
/** The UTC instants DST starts and ends in New York in `year` (rules of 2007 on, and 1987–2006 before). */
function usDstBounds(year: number): readonly [number, number] {
  let bounds = dstCache.get(year);
  if (bounds === undefined) {
    const nthSunday = (month: number, n: number): number => {
      const first = dayOf(Date.UTC(year, month, 1));
      return first + ((7 - weekday(first)) % 7) + 7 * (n - 1);
    };
    const lastSunday = (month: number): number => {
      const last = dayOf(Date.UTC(year, month + 1, 1)) - 1;
      return last - weekday(last);
    };
    // 02:00 local: 07:00 UTC while on standard time, 06:00 UTC while on daylight time.
    const startDay = year >= 2007 ? nthSunday(2, 2) : nthSunday(3, 1);
    const endDay = year >= 2007 ? nthSunday(10, 1) : lastSunday(9);
    bounds = [startDay * DAY_MS + 7 * HOUR, endDay * DAY_MS + 6 * HOUR];
    dstCache.set(year, bounds);
  }
  return bounds;
}

/** New York wall-clock time of `t` as [day number, ms since local midnight]. */
function newYorkLocal(t: number): [number, number] {
  const local = t + newYorkOffsetMs(t);
  const day = dayOf(local);
  return [day, local - day * DAY_MS];
}

const holidayCache = new Map<number, ReadonlyMap<number, 'closed' | 'early'>>();
/**
 * NYSE full closures and 13:00 early closes of a year: the rule-based holidays with their
 * weekend observance, and the unscheduled closures since 2001.
 */
export function nyseSpecialDays(year: number): ReadonlyMap<number, 'closed' | 'early'> {
  let days = holidayCache.get(year);
  if (days !== undefined) return days;
  const map = new Map<number, 'closed' | 'early'>();
  const date = (month: number, d: number): number => dayOf(Date.UTC(year, month, d));
  const nth = (month: number, dow: number, n: number): number => {
    const first = date(month, 1);
    return first + ((dow - weekday(first) + 7) % 7) + 7 * (n - 1);
  };
  const last = (month: number, dow: number): number => {
    const end = date(month + 1, 1) - 1;
    return end - ((weekday(end) - dow + 7) % 7);
  };
  const observed = (day: number): number =>
    weekday(day) === 6 ? day - 1 : weekday(day) === 0 ? day + 1 : day;
  // New Year's Day on a Saturday is not observed on the Friday before (NYSE rule).
  const newYear = date(0, 1);
  if (weekday(newYear) !== 6) map.set(observed(newYear), 'closed');
  if (year >= 1998) map.set(nth(0, 1, 3), 'closed'); // Martin Luther King Jr. Day
  map.set(nth(1, 1, 3), 'closed'); // Washington's Birthday
  map.set(easterSunday(year) - 2, 'closed'); // Good Friday
  map.set(last(4, 1), 'closed'); // Memorial Day
  if (year >= 2022) map.set(observed(date(5, 19)), 'closed'); // Juneteenth
  const july4 = observed(date(6, 4));
  map.set(july4, 'closed');
  map.set(nth(8, 1, 1), 'closed'); // Labor Day
  const thanksgiving = nth(10, 4, 4);
  map.set(thanksgiving, 'closed');
  map.set(observed(date(11, 25)), 'closed'); // Christmas
  const early = (day: number): void => {
    if (weekday(day) >= 1 && weekday(day) <= 5 && !map.has(day)) map.set(day, 'early');
  };
  early(date(6, 3));
  early(thanksgiving + 1);
  early(date(11, 24));
  for (const special of UNSCHEDULED_CLOSURES) {
    const d = new Date(special);
    if (d.getUTCFullYear() === year) map.set(dayOf(d.getTime()), 'closed');
  }
  days = map;
  holidayCache.set(year, days);
  return days;
}

/** NYSE closures outside the holiday rules (September 11, Hurricane Sandy, national days of mourning). */
const UNSCHEDULED_CLOSURES = [
  '2001-09-11',
  '2001-09-12',
  '2001-09-13',
  '2001-09-14',
  '2004-06-11',
  '2007-01-02',
  '2012-10-29',
  '2012-10-30',
  '2018-12-05',
  '2025-01-09',
].map((d) => Date.parse(`${d}T00:00:00Z`));

/** Easter Sunday's day number (anonymous Gregorian algorithm). */
function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return dayOf(Date.UTC(year, month - 1, day));
}

const OPEN_MS = 9.5 * HOUR;
const CLOSE_MS = 16 * HOUR;
const EARLY_CLOSE_MS = 13 * HOUR;

function isNyseDay(day: number): boolean {
  const wd = weekday(day);
  if (wd === 0 || wd === 6) return false;
  return nyseSpecialDays(new Date(day * DAY_MS).getUTCFullYear()).get(day) !== 'closed';
}

const US_EQUITIES: Calendar = {
  name: 'us-equities',
  sessionsPerYear: 252,
  sessionMs: CLOSE_MS - OPEN_MS,
  isOpen(t) {
    const [day, ms] = newYorkLocal(t);
    if (!isNyseDay(day)) return false;
    const close =
      nyseSpecialDays(new Date(day * DAY_MS).getUTCFullYear()).get(day) === 'early'
        ? EARLY_CLOSE_MS
        : CLOSE_MS;
    return ms >= OPEN_MS && ms < close;
  },
  // A daily bar stamped at midnight UTC (Yahoo's dates) names its session's date directly.
  sessionOf: (t, barMs = DAY_MS) =>
    barMs >= DAY_MS && t % DAY_MS === 0 ? dayOf(t) : newYorkLocal(t)[0],
  isSessionDay: isNyseDay,
};

/** The FX week runs from Sunday 17:00 to Friday 17:00 New York time; a session rolls at 17:00. */
const FX: Calendar = {
  name: 'fx',
  sessionsPerYear: 260,
  sessionMs: DAY_MS,
  isOpen(t) {
    const [day, ms] = newYorkLocal(t);
    const wd = weekday(day);
    if (wd === 6) return false;
    if (wd === 5) return ms < 17 * HOUR;
    if (wd === 0) return ms >= 17 * HOUR;
    return true;
  },
  sessionOf(t, barMs = DAY_MS) {
    if (barMs >= DAY_MS && t % DAY_MS === 0) return dayOf(t);
    const [day, ms] = newYorkLocal(t);
    return ms >= 17 * HOUR ? day + 1 : day;
  },
  isSessionDay: (day) => weekday(day) >= 1 && weekday(day) <= 5,
};

/**
 * How many bars a market open all the time between two bar starts `a` < `b` would have had and
 * this calendar says were missing: bar slots strictly between them during which the market was open
 * (at the slot's start or just before its end, so an hourly 09:00 bar holding 09:30-10:00 counts;
 * daily and longer bars count session days). Zero means the gap is the market being closed.
 */
export function missingBarsBetween(
  calendar: Calendar,
  a: number,
  b: number,
  barMs: number,
): number {
  if (calendar.name === '24/7') return Math.max(0, Math.round((b - a) / barMs) - 1);
  let missing = 0;
  if (barMs >= DAY_MS) {
    const from = calendar.sessionOf(a, barMs);
    const to = calendar.sessionOf(b, barMs);
    for (let day = from + 1; day < to; day++) if (calendar.isSessionDay(day)) missing++;
    return missing;
  }
  for (let t = a + barMs; t < b; t += barMs) {
    if (calendar.isOpen(t) || calendar.isOpen(t + barMs - 1)) missing++;
  }
  return missing;
}
