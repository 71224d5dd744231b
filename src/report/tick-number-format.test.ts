import { describe, expect, it } from 'vitest';
import { formatTickNumber } from './tick-number-format.js';

describe('formatTickNumber', () => {
  it('shows as many decimals as the step needs, hiding floating-point noise', () => {
    expect(formatTickNumber(0.30000000000000004, 0.1)).toBe('0.3');
    expect(formatTickNumber(0.25, 0.05)).toBe('0.25');
    expect(formatTickNumber(3, 1)).toBe('3');
    expect(formatTickNumber(1.5, 0.5)).toBe('1.5');
  });
  it('groups thousands below a million', () => {
    expect(formatTickNumber(12000, 1000)).toBe('12,000');
    expect(formatTickNumber(-123456.5, 0.5)).toBe('-123,456.5');
  });
  it('uses M/B/T from the axis size so labels on one axis share a unit', () => {
    expect(formatTickNumber(2_500_000, 500_000)).toBe('2.5M');
    expect(formatTickNumber(500_000, 500_000, 3_000_000)).toBe('0.5M');
    expect(formatTickNumber(4e9, 1e9)).toBe('4B');
  });
  it('never writes a negative zero', () => {
    expect(formatTickNumber(-1e-17, 0.1)).toBe('0.0');
    expect(formatTickNumber(-0, 1)).toBe('0');
  });
});
