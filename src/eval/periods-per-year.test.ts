import { describe, expect, it } from 'vitest';
import { calendarFor, CALENDARS } from '../data/calendar.js';
import { DAY_MS, timeframeMs, type Timeframe } from '../data/timeframe.js';
import { barsPerSession, periodsPerYear } from './periods-per-year.js';

/** Distinct UTC-aligned buckets of `barMs` holding at least one open minute of day `day`. */
function resampledBarsInSession(day: number, barMs: number): number {
  const cal = calendarFor('us-equities');
  const buckets = new Set<number>();
  for (let t = day * DAY_MS; t < (day + 1) * DAY_MS; t += 60_000) {
    if (cal.isOpen(t)) buckets.add(Math.floor(t / barMs));
  }
  return buckets.size;
}

describe('periodsPerYear', () => {
  it('counts 365 days of bars on a 24/7 market', () => {
    expect(periodsPerYear('1m', '24/7')).toBe(525_600); // 365 · 1440
    expect(periodsPerYear('1h', '24/7')).toBe(8_760); // 365 · 24
    expect(periodsPerYear('4h', '24/7')).toBe(2_190); // 365 · 6
    expect(periodsPerYear('1d', calendarFor('24/7'))).toBe(365);
  });

  it('counts 252 sessions of resampled bars on US equities', () => {
    expect(periodsPerYear('1m', 'us-equities')).toBe(252 * 390); // 6.5 h = 390 min
    expect(periodsPerYear('5m', 'us-equities')).toBe(252 * 78);
    expect(periodsPerYear('30m', 'us-equities')).toBe(252 * 13);
    // 1h: 09:00 (holding 09:30-10:00), 10:00, …, 15:00 = 7 bars, not 6.5.
    expect(periodsPerYear('1h', 'us-equities')).toBe(252 * 7);
    // 4h, UTC-aligned, daylight time: 12:00 (13:30-16:00) and 16:00 (16:00-20:00) UTC.
    expect(periodsPerYear('4h', 'us-equities')).toBe(252 * 2);
    expect(periodsPerYear('1d', 'us-equities')).toBe(252);
  });

  it('counts 260 sessions of 24 h on FX', () => {
    expect(periodsPerYear('1m', 'fx')).toBe(260 * 1440);
    expect(periodsPerYear('1h', 'fx')).toBe(260 * 24);
    expect(periodsPerYear('1d', 'fx')).toBe(260);
  });

  it('matches how many resampled bars a real US session holds', () => {
    const summerDay = Date.UTC(2024, 6, 10) / DAY_MS; // a Wednesday in daylight time
    const winterDay = Date.UTC(2024, 0, 10) / DAY_MS; // a Wednesday in standard time
    const cal = calendarFor('us-equities');
    for (const tf of ['1m', '5m', '15m', '30m', '1h', '4h'] as Timeframe[]) {
      const barMs = timeframeMs(tf);
      expect(barsPerSession(barMs, cal), tf).toBe(resampledBarsInSession(summerDay, barMs));
    }
    // In standard time the open is 14:30 UTC: the same for 1h and shorter, one more 4h bar.
    for (const tf of ['1m', '5m', '15m', '30m', '1h'] as Timeframe[]) {
      const barMs = timeframeMs(tf);
      expect(barsPerSession(barMs, cal), tf).toBe(resampledBarsInSession(winterDay, barMs));
    }
    expect(resampledBarsInSession(winterDay, timeframeMs('4h'))).toBe(3);
  });

  it('gives one bar per session for daily bars on every calendar', () => {
    for (const name of CALENDARS) {
      expect(periodsPerYear('1d', name)).toBe(calendarFor(name).sessionsPerYear);
    }
  });

  it('rejects a non-positive bar length', () => {
    expect(() => barsPerSession(0, calendarFor('fx'))).toThrow(/not a positive number/);
  });
});
