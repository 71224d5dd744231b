import { describe, expect, it } from 'vitest';
import { orthogonalMatrix } from './orthogonal.js';

/** Largest |(M Mᵀ or Mᵀ M) − gain² I| entry, over the smaller side. */
function orthogonalityError(m: Float32Array, rows: number, cols: number, gain: number): number {
  const tall = rows >= cols;
  const k = tall ? cols : rows;
  let worst = 0;
  for (let a = 0; a < k; a++)
    for (let b = 0; b < k; b++) {
      let dot = 0;
      const n = tall ? rows : cols;
      for (let i = 0; i < n; i++) {
        const x = tall ? (m[i * cols + a] ?? 0) : (m[a * cols + i] ?? 0);
        const y = tall ? (m[i * cols + b] ?? 0) : (m[b * cols + i] ?? 0);
        dot += x * y;
      }
      worst = Math.max(worst, Math.abs(dot - (a === b ? gain * gain : 0)));
    }
  return worst;
}

describe('orthogonalMatrix', () => {
  it('has orthonormal columns (tall), or rows (wide), scaled by the gain', () => {
    for (const [rows, cols, gain] of [
      [64, 16, Math.SQRT2],
      [16, 64, 1],
      [32, 32, 0.01],
    ] as const) {
      const m = orthogonalMatrix(rows, cols, gain, 3);
      expect(orthogonalityError(m, rows, cols, gain)).toBeLessThan(1e-5 * Math.max(1, gain * gain));
    }
  });

  it('is deterministic per seed', () => {
    expect(orthogonalMatrix(8, 4, 1, 5)).toEqual(orthogonalMatrix(8, 4, 1, 5));
    expect(orthogonalMatrix(8, 4, 1, 5)).not.toEqual(orthogonalMatrix(8, 4, 1, 6));
  });
});
