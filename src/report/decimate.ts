/** A run of connected points in pixel space; a gap in the data ends one and starts the next. */
export interface Polyline {
  readonly x: number[];
  readonly y: number[];
}

/**
 * Splits pixel-space points into polylines at gaps (a non-finite x or y) and thins each to at most
 * four points per pixel column: the first, lowest, highest and last of the column, in their
 * original order (the "M4" scheme). The drawn line is the same as with every point, spikes
 * included, while the output grows with the chart's width instead of the data's length.
 */
export function decimateToPixelColumns(x: ArrayLike<number>, y: ArrayLike<number>): Polyline[] {
  const polylines: Polyline[] = [];
  let current: Polyline | undefined;
  // The bucket of the column being filled, as indices into x and y.
  let column = 0;
  let first = -1;
  let lowest = -1;
  let highest = -1;
  let last = -1;

  const flushColumn = (): void => {
    if (current === undefined || first < 0) return;
    const kept = [...new Set([first, lowest, highest, last])].sort((a, b) => a - b);
    for (const i of kept) {
      current.x.push(x[i] ?? Number.NaN);
      current.y.push(y[i] ?? Number.NaN);
    }
    first = -1;
  };

  const length = Math.min(x.length, y.length);
  for (let i = 0; i < length; i++) {
    const px = x[i] ?? Number.NaN;
    const py = y[i] ?? Number.NaN;
    if (!Number.isFinite(px) || !Number.isFinite(py)) {
      flushColumn();
      current = undefined;
      continue;
    }
    const pixelColumn = Math.floor(px);
    if (current === undefined) {
      current = { x: [], y: [] };
      polylines.push(current);
    } else if (pixelColumn !== column) {
      flushColumn();
    }
    if (first < 0) {
      column = pixelColumn;
      first = lowest = highest = last = i;
      continue;
    }
    last = i;
    if (py < (y[lowest] ?? py)) lowest = i;
    if (py > (y[highest] ?? py)) highest = i;
  }
  flushColumn();
  return polylines;
}
