import { describe, expect, it } from 'vitest';
import { errorOf } from '../../test/support/assertions.js';
import {
  calendarFor,
  missingBarsBetween,
  newYorkOffsetMs,
  nyseSpecialDays,
  parseCalendar,
} from './calendar.js';
import { DAY_MS } from './timeframe.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
/** Day number of a calendar date. */
const day = (y: number, m: number, d: number): number => Date.UTC(y, m - 1, d) / DAY_MS;
/** An instant given in UTC. */
const utc = (y: number, m: number, d: number, h = 0, min = 0): number =>
  Date.UTC(y, m - 1, d, h, min);
/** An instant given as New York wall-clock time, with its offset (-4 EDT, -5 EST) stated. */
const ny = (offsetHours: -4 | -5, y: number, m: number, d: number, h: number, min = 0): number =>
  Date.UTC(y, m - 1, d, h - offsetHours, min);

const equities = calendarFor('us-equities');
const fx = calendarFor('fx');
const crypto = calendarFor('24/7');

/** A year's NYSE special days as sorted [month, day, kind] triples, for readable comparisons. */
function specialDays(year: number): [number, number, string][] {
  return [...nyseSpecialDays(year)]
    .sort(([a], [b]) => a - b)
    .map(([d, kind]) => {
      const date = new Date(d * DAY_MS);
      return [date.getUTCMonth() + 1, date.getUTCDate(), kind];
    });
}

describe('parseCalendar and calendarFor', () => {
  it('accepts the names (and 24x7), and rejects others with the list', () => {
    expect(parseCalendar('US-Equities')).toBe('us-equities');
    expect(parseCalendar('24x7')).toBe('24/7');
    expect(errorOf(() => parseCalendar('nyse')).message).toMatch(
      /expected one of 24\/7, us-equities, fx/,
    );
  });

  it('annualizes with 365, 252 and 260 sessions a year', () => {
    expect([crypto.sessionsPerYear, equities.sessionsPerYear, fx.sessionsPerYear]).toEqual([
      365, 252, 260,
    ]);
    expect(equities.sessionMs).toBe(6.5 * HOUR);
  });
});

describe('NYSE holidays and early closes', () => {
  it('lists 2024 exactly (NYSE published schedule)', () => {
    expect(specialDays(2024)).toEqual([
      [1, 1, 'closed'],
      [1, 15, 'closed'], // Martin Luther King Jr. Day
      [2, 19, 'closed'], // Washington's Birthday
      [3, 29, 'closed'], // Good Friday
      [5, 27, 'closed'], // Memorial Day
      [6, 19, 'closed'], // Juneteenth
      [7, 3, 'early'],
      [7, 4, 'closed'],
      [9, 2, 'closed'], // Labor Day
      [11, 28, 'closed'], // Thanksgiving
      [11, 29, 'early'],
      [12, 24, 'early'],
      [12, 25, 'closed'],
    ]);
  });

  it('applies weekend observance: Saturday → Friday, Sunday → Monday, but not New Year on a Saturday', () => {
    // 2021: July 4 on a Sunday → Mon July 5; Christmas on a Saturday → Fri Dec 24.
    expect(equities.isSessionDay(day(2021, 7, 5))).toBe(false);
    expect(equities.isSessionDay(day(2021, 12, 24))).toBe(false);
    // Jan 1 2022 was a Saturday: NYSE stayed open on Fri Dec 31 2021.
    expect(equities.isSessionDay(day(2021, 12, 31))).toBe(true);
    // 2022: Juneteenth on a Sunday → Mon June 20; Christmas on a Sunday → Mon Dec 26.
    expect(equities.isSessionDay(day(2022, 6, 20))).toBe(false);
    expect(equities.isSessionDay(day(2022, 12, 26))).toBe(false);
    // 2023: New Year on a Sunday → Mon Jan 2.
    expect(equities.isSessionDay(day(2023, 1, 2))).toBe(false);
    // 2015 and 2026: July 4 on a Saturday → Fri July 3 closed, no early close on the Thursday.
    expect(equities.isSessionDay(day(2015, 7, 3))).toBe(false);
    expect(nyseSpecialDays(2026).get(day(2026, 7, 2))).toBeUndefined();
    // Juneteenth is a holiday from 2022 on only.
    expect(equities.isSessionDay(day(2021, 6, 18))).toBe(true);
  });

  it('closes on Good Friday of every year (Easter computed)', () => {
    const goodFridays: [number, number, number][] = [
      [2000, 4, 21],
      [2019, 4, 19],
      [2020, 4, 10],
      [2021, 4, 2],
      [2022, 4, 15],
      [2023, 4, 7],
      [2025, 4, 18],
      [2038, 4, 23],
    ];
    for (const [y, m, d] of goodFridays) {
      expect(nyseSpecialDays(y).get(day(y, m, d)), `${y}-${m}-${d}`).toBe('closed');
    }
  });

  it('knows the unscheduled closures', () => {
    for (const [y, m, d] of [
      [2001, 9, 11],
      [2012, 10, 29],
      [2012, 10, 30],
      [2018, 12, 5],
      [2025, 1, 9],
    ] as const) {
      expect(equities.isSessionDay(day(y, m, d)), `${y}-${m}-${d}`).toBe(false);
    }
    expect(equities.isSessionDay(day(2012, 10, 31))).toBe(true);
  });
});

describe('New York daylight saving time', () => {
  it('switches at 07:00 UTC on the second Sunday of March and 06:00 UTC on the first Sunday of November (2007 rules)', () => {
    expect(newYorkOffsetMs(utc(2024, 3, 10, 7) - 1)).toBe(-5 * HOUR);
    expect(newYorkOffsetMs(utc(2024, 3, 10, 7))).toBe(-4 * HOUR);
    expect(newYorkOffsetMs(utc(2024, 11, 3, 6) - 1)).toBe(-4 * HOUR);
    expect(newYorkOffsetMs(utc(2024, 11, 3, 6))).toBe(-5 * HOUR);
  });

  it('switches on the first Sunday of April and the last Sunday of October before 2007', () => {
    expect(newYorkOffsetMs(utc(2006, 3, 12, 12))).toBe(-5 * HOUR); // 2007 rules would say DST
    expect(newYorkOffsetMs(utc(2006, 4, 2, 7) - 1)).toBe(-5 * HOUR);
    expect(newYorkOffsetMs(utc(2006, 4, 2, 7))).toBe(-4 * HOUR);
    expect(newYorkOffsetMs(utc(2006, 10, 29, 6) - 1)).toBe(-4 * HOUR);
    expect(newYorkOffsetMs(utc(2006, 10, 29, 6))).toBe(-5 * HOUR);
    expect(newYorkOffsetMs(utc(2006, 11, 3, 12))).toBe(-5 * HOUR); // 2007 rules would say DST
  });
});

describe('us-equities isOpen', () => {
  it('opens at 09:30 and closes at 16:00 New York time, in summer and winter', () => {
    for (const [offset, y, m, d] of [
      [-4, 2024, 7, 1],
      [-5, 2024, 1, 16],
      [-4, 2024, 3, 11], // the Monday after the March switch
      [-5, 2024, 11, 4], // the Monday after the November switch
    ] as const) {
      expect(equities.isOpen(ny(offset, y, m, d, 9, 29))).toBe(false);
      expect(equities.isOpen(ny(offset, y, m, d, 9, 30))).toBe(true);
      expect(equities.isOpen(ny(offset, y, m, d, 15, 59))).toBe(true);
      expect(equities.isOpen(ny(offset, y, m, d, 16, 0))).toBe(false);
    }
  });

  it('closes at 13:00 on early-close days and all day on holidays and weekends', () => {
    expect(equities.isOpen(ny(-4, 2024, 7, 3, 12, 59))).toBe(true);
    expect(equities.isOpen(ny(-4, 2024, 7, 3, 13, 0))).toBe(false);
    expect(equities.isOpen(ny(-5, 2024, 11, 29, 13, 0))).toBe(false);
    expect(equities.isOpen(ny(-5, 2024, 12, 24, 12, 59))).toBe(true);
    expect(equities.isOpen(ny(-5, 2024, 12, 24, 13, 0))).toBe(false);
    expect(equities.isOpen(ny(-4, 2024, 7, 4, 11, 0))).toBe(false);
    expect(equities.isOpen(ny(-5, 2024, 11, 28, 11, 0))).toBe(false);
    expect(equities.isOpen(ny(-4, 2024, 7, 6, 11, 0))).toBe(false); // Saturday
  });
});

describe('fx', () => {
  it('trades from Sunday 17:00 to Friday 17:00 New York time', () => {
    expect(fx.isOpen(ny(-4, 2024, 7, 5, 16, 59))).toBe(true); // Friday
    expect(fx.isOpen(ny(-4, 2024, 7, 5, 17, 0))).toBe(false);
    expect(fx.isOpen(ny(-4, 2024, 7, 6, 12, 0))).toBe(false); // Saturday
    expect(fx.isOpen(ny(-4, 2024, 7, 7, 16, 59))).toBe(false); // Sunday
    expect(fx.isOpen(ny(-4, 2024, 7, 7, 17, 0))).toBe(true);
    expect(fx.isOpen(ny(-5, 2024, 1, 17, 3, 0))).toBe(true); // a Wednesday night
  });

  it('rolls the session at 17:00 New York time', () => {
    expect(fx.sessionOf(ny(-4, 2024, 7, 7, 17, 0))).toBe(day(2024, 7, 8)); // Sunday evening → Monday
    expect(fx.sessionOf(ny(-4, 2024, 7, 9, 16, 59))).toBe(day(2024, 7, 9));
    expect(fx.sessionOf(ny(-4, 2024, 7, 9, 17, 0))).toBe(day(2024, 7, 10));
    expect([7, 8, 12, 13].map((d) => fx.isSessionDay(day(2024, 7, d)))).toEqual([
      false,
      true,
      true,
      false,
    ]);
  });
});

describe('sessionOf', () => {
  it('reads a daily bar stamped at 00:00 UTC as that date', () => {
    for (const cal of [equities, fx, crypto]) {
      expect(cal.sessionOf(utc(2024, 7, 3)), cal.name).toBe(day(2024, 7, 3));
    }
  });

  it('puts intraday us-equities bars in their New York date', () => {
    expect(equities.sessionOf(ny(-4, 2024, 7, 3, 9, 30))).toBe(day(2024, 7, 3));
    expect(equities.sessionOf(ny(-4, 2024, 7, 3, 15, 59))).toBe(day(2024, 7, 3));
    expect(equities.sessionOf(utc(2024, 1, 17, 3))).toBe(day(2024, 1, 16)); // 22:00 EST the day before
  });

  it('makes 24/7 sessions UTC days', () => {
    expect(crypto.sessionOf(utc(2024, 7, 3, 23, 59))).toBe(day(2024, 7, 3));
    expect(crypto.sessionOf(utc(2024, 7, 4, 0, 1))).toBe(day(2024, 7, 4));
    expect(crypto.isOpen(utc(2024, 12, 25, 12))).toBe(true);
  });

  // An intraday bar at exactly 00:00 UTC must not be read as a daily bar: otherwise after-hours
  // 1m bars at 18:59, 19:00, 19:01 EST fall in sessions D, D+1, D; the bar length tells them apart.
  it('is monotone over consecutive after-hours 1m bars across 00:00 UTC', () => {
    const sessions = [-1, 0, 1].map((i) => equities.sessionOf(utc(2024, 1, 17) + i * MIN, MIN));
    expect(sessions).toEqual([day(2024, 1, 16), day(2024, 1, 16), day(2024, 1, 16)]);
  });
});

describe('missingBarsBetween', () => {
  it('counts no missing bars over a weekend', () => {
    // us-equities 1m: Fri 15:59 → Mon 09:30 (New York, EDT)
    expect(
      missingBarsBetween(equities, ny(-4, 2024, 7, 12, 15, 59), ny(-4, 2024, 7, 15, 9, 30), MIN),
    ).toBe(0);
    // fx 1m: Fri 16:59 → Sun 17:00
    expect(
      missingBarsBetween(fx, ny(-4, 2024, 7, 12, 16, 59), ny(-4, 2024, 7, 14, 17, 0), MIN),
    ).toBe(0);
    // us-equities daily bars: Fri → Mon, and Wed → Fri over Thanksgiving
    expect(missingBarsBetween(equities, utc(2024, 7, 12), utc(2024, 7, 15), DAY_MS)).toBe(0);
    expect(missingBarsBetween(equities, utc(2024, 11, 27), utc(2024, 11, 29), DAY_MS)).toBe(0);
  });

  it('counts no missing bars overnight in us-equities 1m data, including across an early close', () => {
    expect(
      missingBarsBetween(equities, ny(-4, 2024, 7, 9, 15, 59), ny(-4, 2024, 7, 10, 9, 30), MIN),
    ).toBe(0);
    expect(
      missingBarsBetween(equities, ny(-4, 2024, 7, 3, 12, 59), ny(-4, 2024, 7, 5, 9, 30), MIN),
    ).toBe(0);
  });

  it('counts the bars of a real hole', () => {
    expect(
      missingBarsBetween(equities, ny(-4, 2024, 7, 9, 10, 0), ny(-4, 2024, 7, 9, 10, 5), MIN),
    ).toBe(4);
    // 15:58, 15:59, then 09:30, 09:31 the next day
    expect(
      missingBarsBetween(equities, ny(-4, 2024, 7, 9, 15, 57), ny(-4, 2024, 7, 10, 9, 32), MIN),
    ).toBe(4);
    expect(missingBarsBetween(crypto, utc(2024, 7, 9), utc(2024, 7, 9, 1), MIN)).toBe(59);
    // daily bars: Wed → Mon misses Fri (Thanksgiving Thursday is a holiday)
    expect(missingBarsBetween(equities, utc(2024, 11, 27), utc(2024, 12, 2), DAY_MS)).toBe(1);
  });

  // Hourly bars on UTC hours (as resampling makes them) start at 09:00 New York: the 09:00 bar
  // holds 09:30-10:00 and counts as missing although the market opens after its start.
  it('counts a missing hourly bar that opens before 09:30 but holds trading', () => {
    // Bars at 15:00 (Jul 8) and 10:00 (Jul 9) New York: the 09:00 bar between them is missing.
    expect(missingBarsBetween(equities, ny(-4, 2024, 7, 8, 15), ny(-4, 2024, 7, 9, 10), HOUR)).toBe(
      1,
    );
  });
});
