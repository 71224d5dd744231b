/**
 * The observable state that the synthetic generator's planted signal is built on, computed from
 * closes alone so that an agent, a test or a baseline strategy sees exactly what the generator saw.
 */

/**
 * The sign of the last `lookback`-bar return at each bar: `sign(close[t] - close[t - lookback])`
 * (+1, -1, or 0 when equal or for the first `lookback` bars). With `signal` > 0 the generator makes
 * the expected log return of bar t + 1 equal to `signal × σ[t + 1] × state[t]`.
 */
export function momentumState(close: ArrayLike<number>, lookback: number): Int8Array {
  const n = close.length;
  const state = new Int8Array(n);
  for (let t = lookback; t < n; t++) {
    const now = close[t] ?? 0;
    const then = close[t - lookback] ?? 0;
    state[t] = now > then ? 1 : now < then ? -1 : 0;
  }
  return state;
}
