import { describe, expect, it } from 'vitest';
import { timeTicks } from './time-ticks.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('timeTicks', () => {
  it('labels a span of hours with date and clock on whole hours', () => {
    const start = Date.UTC(2021, 2, 4, 9, 17);
    const ticks = timeTicks(start, start + 7 * HOUR, 8);
    expect(ticks.length).toBeGreaterThanOrEqual(2);
    expect(ticks.length).toBeLessThanOrEqual(8);
    expect(ticks[0]).toEqual({ time: Date.UTC(2021, 2, 4, 10), label: '03-04 10:00' });
    for (const tick of ticks) expect(tick.label).toMatch(/^\d\d-\d\d \d\d:00$/);
  });
  it('labels a span of weeks with the dates of Mondays', () => {
    const start = Date.UTC(2021, 2, 3, 15);
    const ticks = timeTicks(start, start + 40 * DAY, 8);
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    expect(ticks.length).toBeLessThanOrEqual(8);
    for (const tick of ticks) {
      expect(new Date(tick.time).getUTCDay()).toBe(1);
      expect(tick.label).toMatch(/^\d{4}-\d\d-\d\d$/);
    }
    expect(ticks[0]?.label).toBe('2021-03-08');
  });
  it('labels a year with months', () => {
    const ticks = timeTicks(Date.UTC(2021, 0, 15), Date.UTC(2022, 0, 15), 8);
    expect(ticks.map((t) => t.label)).toEqual([
      '2021-03',
      '2021-05',
      '2021-07',
      '2021-09',
      '2021-11',
      '2022-01',
    ]);
  });
  it('labels a span of years with years on January 1st', () => {
    const ticks = timeTicks(Date.UTC(2003, 5, 1), Date.UTC(2024, 5, 1), 8);
    expect(ticks.map((t) => t.label)).toEqual(['2005', '2010', '2015', '2020']);
    for (const tick of ticks) expect(new Date(tick.time).toISOString()).toMatch(/-01-01T00:00/);
  });
  it('keeps every tick inside the range and within maxTicks for many spans', () => {
    const start = Date.UTC(2020, 1, 29, 13, 45, 10);
    for (let span = 10_000; span < 200 * 365 * DAY; span *= 1.7) {
      for (const maxTicks of [3, 6, 10]) {
        const ticks = timeTicks(start, start + span, maxTicks);
        expect(ticks.length).toBeLessThanOrEqual(maxTicks);
        expect(ticks.length).toBeGreaterThanOrEqual(1);
        for (const tick of ticks) {
          expect(tick.time).toBeGreaterThanOrEqual(start);
          expect(tick.time).toBeLessThanOrEqual(start + span);
        }
        const times = ticks.map((t) => t.time);
        expect(times).toEqual([...times].sort((a, b) => a - b));
      }
    }
  });
  it('rejects reversed bounds', () => {
    expect(() => timeTicks(2, 1)).toThrow(/no time ticks/);
  });
});
