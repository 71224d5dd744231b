import { describe, expect, it } from 'vitest';
import { decimateToPixelColumns } from './decimate.js';

describe('decimateToPixelColumns', () => {
  it('keeps every point when each has its own pixel column', () => {
    const lines = decimateToPixelColumns([0, 1, 2, 3], [5, 3, 4, 1]);
    expect(lines).toEqual([{ x: [0, 1, 2, 3], y: [5, 3, 4, 1] }]);
  });
  it('keeps the global minimum and maximum and at most four points per column', () => {
    const n = 100_000;
    const width = 800;
    const x = Float64Array.from({ length: n }, (_, i) => (i / n) * width);
    const y = Float64Array.from({ length: n }, (_, i) => 100 + 10 * Math.sin(i / 300));
    y[31_337] = 500; // a one-sample spike
    y[77_001] = -400; // and a one-sample dip
    const [line, ...rest] = decimateToPixelColumns(x, y);
    expect(rest).toHaveLength(0);
    expect(line?.y).toContain(500);
    expect(line?.y).toContain(-400);
    expect(line?.x.length).toBeLessThanOrEqual(4 * width);
    expect(line?.x).toEqual([...(line?.x ?? [])].sort((a, b) => a - b));
    // Each column keeps its first and last point, so the line enters and leaves it where it did.
    expect(line?.y[0]).toBe(y[0]);
    expect(line?.y.at(-1)).toBe(y[n - 1]);
  });
  it('breaks the line at non-finite values', () => {
    const lines = decimateToPixelColumns(
      [0, 1, 2, 3, Number.NaN, 5, 6],
      [1, Number.NaN, 3, Infinity, 5, 6, 7],
    );
    expect(lines).toEqual([
      { x: [0], y: [1] },
      { x: [2], y: [3] },
      { x: [5, 6], y: [6, 7] },
    ]);
  });
  it('returns nothing for empty input', () => {
    expect(decimateToPixelColumns([], [])).toEqual([]);
  });
});
