import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../data/synth/random.js';
import { useBackend } from './backends.js';
import { matMulPathCounts, wasmMatMulInstalled } from './wasm-matmul.js';

/*
 * The wasm matmul overrides against a float64 reference, on random shapes: plain, transposed
 * either way, a batch of left matrices against one right matrix (folded), both batched, fused
 * with bias and activation, and through gradients.
 */

beforeAll(async () => {
  await useBackend('wasm');
});

/** Row-major float64 values of shape `shape`, uniform in [−1, 1). */
function random(rng: Rng, shape: number[]): Float64Array {
  const size = shape.reduce((p, d) => p * d, 1);
  return Float64Array.from({ length: size }, () => rng.uniform() * 2 - 1);
}

/** Reference batched product in float64, with numpy-style broadcasting of the batch (0 or 1 dims). */
function reference(
  a: Float64Array,
  aShape: number[],
  b: Float64Array,
  bShape: number[],
  transposeA: boolean,
  transposeB: boolean,
): { values: Float64Array; shape: number[] } {
  const ar = aShape.length;
  const br = bShape.length;
  const batchA = ar === 3 ? (aShape[0] ?? 1) : 1;
  const batchB = br === 3 ? (bShape[0] ?? 1) : 1;
  const batch = Math.max(batchA, batchB);
  const [a0, a1] = [aShape[ar - 2] ?? 0, aShape[ar - 1] ?? 0];
  const [b0, b1] = [bShape[br - 2] ?? 0, bShape[br - 1] ?? 0];
  const m = transposeA ? a1 : a0;
  const k = transposeA ? a0 : a1;
  const n = transposeB ? b0 : b1;
  const out = new Float64Array(batch * m * n);
  for (let p = 0; p < batch; p++) {
    const ao = (batchA === 1 ? 0 : p) * a0 * a1;
    const bo = (batchB === 1 ? 0 : p) * b0 * b1;
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let sum = 0;
        for (let q = 0; q < k; q++) {
          const x = a[ao + (transposeA ? q * a1 + i : i * a1 + q)] ?? 0;
          const y = b[bo + (transposeB ? j * b1 + q : q * b1 + j)] ?? 0;
          sum += x * y;
        }
        out[p * m * n + i * n + j] = sum;
      }
  }
  const shape = ar === 3 || br === 3 ? [batch, m, n] : [m, n];
  return { values: out, shape };
}

function expectClose(actual: Float32Array, expected: Float64Array, k: number): void {
  expect(actual.length).toBe(expected.length);
  // float32 accumulation over k terms of size ≤ 1: error grows like √k · 2⁻²⁴.
  const tolerance = 1e-5 * Math.max(1, k);
  let worst = 0;
  for (let i = 0; i < expected.length; i++)
    worst = Math.max(worst, Math.abs((actual[i] ?? 0) - (expected[i] ?? 0)));
  expect(worst).toBeLessThan(tolerance);
}

/** tf.matMul of random inputs of these shapes, checked against {@link reference}. */
function checkProduct(
  rng: Rng,
  aShape: number[],
  bShape: number[],
  ta: boolean,
  tb: boolean,
  k: number,
): void {
  const a = random(rng, aShape);
  const b = random(rng, bShape);
  const expected = reference(a, aShape, b, bShape, ta, tb);
  const result = tf.tidy(() =>
    tf.matMul(
      tf.tensor(Float32Array.from(a), aShape),
      tf.tensor(Float32Array.from(b), bShape),
      ta,
      tb,
    ),
  );
  expect(result.shape).toEqual(expected.shape);
  expectClose(result.dataSync() as Float32Array, expected.values, k);
  result.dispose();
}

describe('wasm matmul overrides', () => {
  it('are installed on the wasm backend', () => {
    expect(tf.getBackend()).toBe('wasm');
    expect(wasmMatMulInstalled()).toBe(true);
  });

  it('match a float64 reference on random 2-D shapes, transposed either way', () => {
    const rng = new Rng(1);
    const before = matMulPathCounts();
    for (let trial = 0; trial < 24; trial++) {
      const m = 1 + Math.floor(rng.uniform() * 40);
      const k = 1 + Math.floor(rng.uniform() * 40);
      const n = 1 + Math.floor(rng.uniform() * 40);
      const ta = trial % 2 === 1;
      const tb = (trial >> 1) % 2 === 1;
      const aShape = ta ? [k, m] : [m, k];
      const bShape = tb ? [n, k] : [k, n];
      checkProduct(rng, aShape, bShape, ta, tb, k);
    }
    const after = matMulPathCounts();
    expect(after.direct - before.direct).toBe(6);
    expect(after.transposed - before.transposed).toBe(18);
  });

  it('fold a batch of left matrices into one product, and handle both batched', () => {
    const rng = new Rng(2);
    const cases: [number[], number[], boolean, boolean][] = [
      [[3, 5, 7], [7, 4], false, false],
      [[3, 7, 5], [4, 7], true, true],
      [[2, 6, 3], [1, 3, 5], false, false],
      [[4, 5, 6], [4, 6, 2], false, false],
      [[4, 6, 5], [4, 2, 6], true, true],
      [[1, 5, 6], [3, 6, 2], false, false],
    ];
    const before = matMulPathCounts();
    for (const [aShape, bShape, ta, tb] of cases) {
      checkProduct(rng, aShape, bShape, ta, tb, 7);
    }
    const after = matMulPathCounts();
    expect(after.folded - before.folded).toBe(3);
    expect(after.batched - before.batched).toBe(3);
  });

  it('keep fused bias and activation right when transposing', () => {
    const rng = new Rng(3);
    const [m, k, n] = [9, 13, 6];
    const a = random(rng, [k, m]);
    const b = random(rng, [n, k]);
    const bias = random(rng, [n]);
    const plain = reference(a, [k, m], b, [n, k], true, true).values;
    const expected = plain.map((v, i) => Math.max(0, v + (bias[i % n] ?? 0)));
    const result = tf.tidy(() =>
      tf.fused.matMul({
        a: tf.tensor(Float32Array.from(a), [k, m]),
        b: tf.tensor(Float32Array.from(b), [n, k]),
        transposeA: true,
        transposeB: true,
        bias: tf.tensor(Float32Array.from(bias), [n]),
        activation: 'relu',
      }),
    );
    expectClose(result.dataSync() as Float32Array, expected, k);
    result.dispose();
  });

  it('give the right gradients of a dense layer, without leaking tensors', () => {
    const rng = new Rng(4);
    const [batch, inputs, units] = [16, 8, 5];
    const x = random(rng, [batch, inputs]);
    const w = random(rng, [inputs, units]);
    const start = tf.memory().numTensors;
    const grads = tf.tidy(() => {
      const xt = tf.tensor(Float32Array.from(x), [batch, inputs]);
      const f = (wt: tf.Tensor): tf.Scalar => tf.sum(tf.matMul(xt, wt));
      const g = tf.grad(f)(tf.tensor(Float32Array.from(w), [inputs, units]));
      return g.dataSync().slice();
    });
    // d/dw Σ x·w = xᵀ · 1: every column of the gradient is the column sums of x.
    const expected = new Float64Array(inputs * units);
    for (let i = 0; i < inputs; i++) {
      let sum = 0;
      for (let r = 0; r < batch; r++) sum += x[r * inputs + i] ?? 0;
      for (let j = 0; j < units; j++) expected[i * units + j] = sum;
    }
    expectClose(grads as Float32Array, expected, batch);
    expect(tf.memory().numTensors).toBe(start);
  });
});
