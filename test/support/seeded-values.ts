/** A seeded stream of `count` values in [-1, 1) (an LCG): test operands that repeat run to run. */
export function seededValues(count: number, seed: number): Float32Array {
  const out = new Float32Array(count);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < count; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32) * 2 - 1;
  }
  return out;
}
