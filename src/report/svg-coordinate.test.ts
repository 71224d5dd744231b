import { describe, expect, it } from 'vitest';
import { svgCoordinate } from './svg-coordinate.js';

describe('svgCoordinate', () => {
  it('rounds to one decimal and never writes -0', () => {
    expect(svgCoordinate(12.345)).toBe('12.3');
    expect(svgCoordinate(7)).toBe('7');
    expect(svgCoordinate(-0.01)).toBe('0');
  });
  it('refuses NaN and infinities instead of writing them into the SVG', () => {
    expect(() => svgCoordinate(Number.NaN)).toThrow(/non-finite coordinate \(NaN\)/);
    expect(() => svgCoordinate(Infinity)).toThrow(/non-finite coordinate/);
  });
});
