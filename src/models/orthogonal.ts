import { Rng } from '../core/random.js';

/**
 * A `rows × cols` matrix (row-major float32) with orthonormal rows or columns (whichever are
 * fewer), times `gain`: the orthogonal initialization of Saxe et al. Modified Gram–Schmidt in
 * float64 on a seeded normal matrix, so it is deterministic and silent (tfjs's own warns above
 * 2,000 elements).
 */
export function orthogonalMatrix(
  rows: number,
  cols: number,
  gain: number,
  seed: number,
): Float32Array {
  const tall = rows >= cols;
  const n = tall ? rows : cols; // length of each vector
  const k = tall ? cols : rows; // number of orthonormal vectors
  const rng = new Rng(seed, 17);
  const v = new Float64Array(k * n);
  for (let i = 0; i < v.length; i++) v[i] = rng.normal();
  for (let a = 0; a < k; a++) {
    const va = a * n;
    for (let b = 0; b < a; b++) {
      const vb = b * n;
      let dot = 0;
      for (let i = 0; i < n; i++) dot += (v[va + i] ?? 0) * (v[vb + i] ?? 0);
      for (let i = 0; i < n; i++) v[va + i] = (v[va + i] ?? 0) - dot * (v[vb + i] ?? 0);
    }
    let norm = 0;
    for (let i = 0; i < n; i++) norm += (v[va + i] ?? 0) ** 2;
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < n; i++) v[va + i] = (v[va + i] ?? 0) * scale;
  }
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++)
      out[r * cols + c] = gain * (tall ? (v[c * n + r] ?? 0) : (v[r * n + c] ?? 0));
  return out;
}
