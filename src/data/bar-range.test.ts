import { describe, expect, it } from 'vitest';
import { describeBarRange, parseBarRange } from './bar-range.js';

const HOUR = 3_600_000;
const START = Date.parse('2021-01-01T00:00:00Z');
/** Hourly bars for 10 days. */
const timestamps = Float64Array.from({ length: 240 }, (_, i) => START + i * HOUR);

describe('bar ranges', () => {
  it('reads bar indices, end excluded', () => {
    expect(parseBarRange('10..100', timestamps, '--train')).toEqual([10, 100]);
    expect(parseBarRange('..100', timestamps, '--train')).toEqual([0, 100]);
    expect(parseBarRange('100..', timestamps, '--train')).toEqual([100, 240]);
  });

  it('reads dates with both days included, and ISO times', () => {
    expect(parseBarRange('2021-01-02..2021-01-03', timestamps, '--test')).toEqual([24, 72]);
    expect(parseBarRange('2021-01-02T06:00:00Z..', timestamps, '--test')).toEqual([30, 240]);
    // Dates beyond the data clamp to it.
    expect(parseBarRange('2020-01-01..2030-01-01', timestamps, '--test')).toEqual([0, 240]);
  });

  it('says what is wrong and how to write it', () => {
    expect(() => parseBarRange('2021-01-01', timestamps, '--train')).toThrow(
      /--train "2021-01-01": expected FROM\.\.TO/,
    );
    expect(() => parseBarRange('yesterday..', timestamps, '--train')).toThrow(
      /"yesterday" is neither a date nor a bar index/,
    );
    expect(() => parseBarRange('0..999', timestamps, '--train')).toThrow(
      /past the data's 240 bars/,
    );
    expect(() => parseBarRange('2022-01-01..2022-02-01', timestamps, '--test')).toThrow(
      /holds 0 bars.*240 bars from 2021-01-01T00:00:00.000Z/,
    );
  });

  it('describes a range with its dates', () => {
    expect(describeBarRange([24, 48], timestamps)).toBe(
      'bars 24..48 (2021-01-02T00:00:00.000Z → 2021-01-02T23:00:00.000Z)',
    );
  });

  it('describes a range at the timeframe of its bars', () => {
    expect(describeBarRange([24, 48], timestamps, '1h')).toBe(
      'bars 24..48 (2021-01-02 00:00 → 2021-01-02 23:00)',
    );
    const days = Float64Array.from({ length: 30 }, (_, i) => START + i * 24 * HOUR);
    expect(describeBarRange([1, 30], days, '1d')).toBe('bars 1..30 (2021-01-02 → 2021-01-30)');
  });
});
