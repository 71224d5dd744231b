import { describe, expect, it } from 'vitest';
import { formatBarTime } from './timeframe.js';

describe('formatBarTime', () => {
  it('gives daily bars a date and intraday bars a time to the minute, in UTC', () => {
    expect(formatBarTime(Date.parse('2000-02-18T00:00:00Z'), '1d')).toBe('2000-02-18');
    expect(formatBarTime(Date.parse('2020-01-03T14:30:00Z'), '1m')).toBe('2020-01-03 14:30');
    expect(formatBarTime(Date.parse('2020-01-03T20:00:00Z'), '4h')).toBe('2020-01-03 20:00');
  });

  it('shows a missing time as a dash', () => {
    expect(formatBarTime(Number.NaN, '1h')).toBe('-');
  });
});
