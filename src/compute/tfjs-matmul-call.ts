import * as tf from './tfjs.js';

/*
 * One matrix product through TensorFlow.js on the active backend, as a call to repeat: what
 * `tradelab bench gemm` times for the XNNPACK row (the bench layer does not import tfjs itself).
 */

/** A product of random matrices, ready to run many times; dispose it when done. */
export interface TfjsMatMulCall {
  /** Runs the product and releases its output. */
  run(): void;
  dispose(): void;
}

/** op(A) m × k times op(B) k × n on the active backend (A stored k × m when transA, B n × k when transB). */
export function tfjsMatMulCall(
  m: number,
  n: number,
  k: number,
  transA: boolean,
  transB: boolean,
): TfjsMatMulCall {
  const a = tf.randomNormal(transA ? [k, m] : [m, k]);
  const b = tf.randomNormal(transB ? [n, k] : [k, n]);
  return {
    run: () => {
      tf.matMul(a, b, transA, transB).dispose();
    },
    dispose: () => {
      tf.dispose([a, b]);
    },
  };
}
