import { describe, expect, it } from 'vitest';
import { trialRecord, type TrialRecord } from '../storage/index.js';
import {
  csvField,
  csvLine,
  formatDuration,
  formatNumber,
  formatParams,
  formatRate,
  paramNames,
} from './study-format.js';

const T0 = Date.UTC(2024, 0, 1);

/** A trial record created at T0, with defaults for what a test does not care about. */
function trial(fields: Partial<TrialRecord> & Pick<TrialRecord, 'number' | 'state'>): TrialRecord {
  return trialRecord({ createdAt: T0, ...fields });
}

describe('formats', () => {
  it('formats numbers to significant digits', () => {
    expect(formatNumber(null)).toBe('-');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(1 / 3)).toBe('0.333333');
    expect(formatNumber(1234.56789, 3)).toBe('1230');
    expect(formatNumber(0.0000123456)).toBe('1.23456e-5');
    expect(formatNumber(2e-6, 3)).toBe('2e-6');
    expect(formatNumber(-Infinity)).toBe('-Infinity');
  });

  it('formats params, rates and durations', () => {
    expect(formatParams({ lr: 0.000123456789, layers: 3, act: 'relu', norm: true })).toBe(
      'lr=0.000123457, layers=3, act=relu, norm=true',
    );
    expect(formatParams({})).toBe('(none)');
    expect(formatRate(null)).toBe('-');
    expect(formatRate(2 / 3)).toBe('66.7%');
    expect(formatDuration(12.4)).toBe('12 ms');
    expect(formatDuration(61_250)).toBe('61.3 s');
    expect(formatDuration(3 * 3_600_000)).toBe('3 h');
  });

  it('lists parameter names in the order they first appear', () => {
    const trials = [
      trial({ number: 0, state: 'complete', params: { lr: 0.1, gamma: 0.99 } }),
      trial({ number: 1, state: 'complete', params: { gamma: 0.9, layers: 2 } }),
    ];
    expect(paramNames(trials)).toEqual(['lr', 'gamma', 'layers']);
  });
});

describe('CSV', () => {
  it('quotes fields with commas, quotes or line breaks, doubling quotes', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('')).toBe('');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line 1\nline 2')).toBe('"line 1\nline 2"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvLine(['1', 'a,b', '', 'x'])).toBe('1,"a,b",,x');
  });
});
