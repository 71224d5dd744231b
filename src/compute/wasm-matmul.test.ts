import * as tf from './tfjs.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../core/random.js';
import { useBackend } from './backends.js';
import { nativeGemmStatus } from './native-gemm.js';
import {
  matMulPathCounts,
  wasmMatMulInstalled,
  wasmMatMulPath,
  type MatMulPathCounts,
  type WasmMatMulPath,
} from './wasm-matmul.js';

/*
 * One suite, run on every wasm matmul path (native GEMM, XNNPACK with explicit transposes, the
 * backend's stock kernels), against a float64 reference on random shapes: plain and transposed,
 * odd sizes, batched on either or both sides, rank 4, fused with bias and activations, and
 * through gradients. The native path is skipped when the addon is not built, except in CI.
 */

const native = nativeGemmStatus();
const nativeRequired = process.env.CI === 'true';
if (!native.available && !nativeRequired)
  console.warn(
    `wasm-matmul.test.ts: skipping the native GEMM path (${native.reason}). CI runs it.`,
  );

/** Row-major float64 values of shape `shape`, uniform in [−1, 1). */
function random(rng: Rng, shape: number[]): Float64Array {
  const size = shape.reduce((p, d) => p * d, 1);
  return Float64Array.from({ length: size }, () => rng.uniform() * 2 - 1);
}

/** Reference batched product in float64, broadcasting the batch dimensions numpy's way. */
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
  const [a0, a1] = [aShape[ar - 2] ?? 0, aShape[ar - 1] ?? 0];
  const [b0, b1] = [bShape[br - 2] ?? 0, bShape[br - 1] ?? 0];
  const m = transposeA ? a1 : a0;
  const k = transposeA ? a0 : a1;
  const n = transposeB ? b0 : b1;
  const outerRank = Math.max(ar, br) - 2;
  const dimsA = [...Array<number>(outerRank - (ar - 2)).fill(1), ...aShape.slice(0, -2)];
  const dimsB = [...Array<number>(outerRank - (br - 2)).fill(1), ...bShape.slice(0, -2)];
  const outer = dimsA.map((d, i) => Math.max(d, dimsB[i] ?? 1));
  const batch = outer.reduce((p, d) => p * d, 1);
  const out = new Float64Array(batch * m * n);
  for (let p = 0; p < batch; p++) {
    // Index of batch entry p in each input, a broadcast dimension (size 1) staying at 0.
    let rest = p;
    let pa = 0;
    let pb = 0;
    let strideA = 1;
    let strideB = 1;
    for (let d = outerRank - 1; d >= 0; d--) {
      const size = outer[d] ?? 1;
      const index = rest % size;
      rest = Math.floor(rest / size);
      const da = dimsA[d] ?? 1;
      const db = dimsB[d] ?? 1;
      pa += (da === 1 ? 0 : index) * strideA;
      pb += (db === 1 ? 0 : index) * strideB;
      strideA *= da;
      strideB *= db;
    }
    const ao = pa * a0 * a1;
    const bo = pb * b0 * b1;
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
  return { values: out, shape: [...outer, m, n] };
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
  const k = ta ? (aShape[aShape.length - 2] ?? 0) : (aShape[aShape.length - 1] ?? 0);
  expectClose(result.dataSync() as Float32Array, expected.values, k);
  result.dispose();
}

/** How the counters moved while `fn` ran. */
function countsDuring(fn: () => void): MatMulPathCounts {
  const before = matMulPathCounts();
  fn();
  const after = matMulPathCounts();
  return {
    direct: after.direct - before.direct,
    transposed: after.transposed - before.transposed,
    folded: after.folded - before.folded,
    batched: after.batched - before.batched,
    native: after.native - before.native,
  };
}

const paths: WasmMatMulPath[] = ['native', 'xnnpack', 'stock'];

describe.each(paths)('wasm matmul, %s path', (path) => {
  const skip = path === 'native' && !native.available && !nativeRequired;

  beforeAll(async () => {
    if (path === 'native' && !native.available) return; // the first test fails with the reason
    const active = await useBackend('wasm', { matmul: path });
    expect(active.matmul.length).toBeGreaterThan(0);
  });

  it.skipIf(skip)('is the active path', () => {
    if (path === 'native')
      expect(native.available, `native GEMM must be built in CI: ${native.reason}`).toBe(true);
    expect(tf.getBackend()).toBe('wasm');
    expect(wasmMatMulPath()).toBe(path);
    expect(wasmMatMulInstalled()).toBe(path !== 'stock');
  });

  it.skipIf(skip)('matches a float64 reference on random 2-D shapes, transposed either way', () => {
    const rng = new Rng(1);
    const moved = countsDuring(() => {
      for (let trial = 0; trial < 24; trial++) {
        const m = 1 + Math.floor(rng.uniform() * 40);
        const k = 1 + Math.floor(rng.uniform() * 40);
        const n = 1 + Math.floor(rng.uniform() * 40);
        const ta = trial % 2 === 1;
        const tb = (trial >> 1) % 2 === 1;
        checkProduct(rng, ta ? [k, m] : [m, k], tb ? [n, k] : [k, n], ta, tb);
      }
    });
    if (path === 'native') expect(moved.native).toBe(24);
    if (path === 'xnnpack') expect([moved.direct, moved.transposed]).toEqual([6, 18]);
    if (path === 'stock') expect(moved).toEqual(countsDuring(() => undefined));
  });

  it.skipIf(skip)('handles odd sizes: 1×1, 1×k, k×1, 37×53', () => {
    const rng = new Rng(5);
    const shapes: [number, number, number][] = [
      [1, 1, 1],
      [1, 29, 1],
      [1, 17, 23],
      [23, 17, 1],
      [37, 53, 41],
      [53, 1, 37],
    ];
    for (const [m, k, n] of shapes)
      for (const ta of [false, true])
        for (const tb of [false, true])
          checkProduct(rng, ta ? [k, m] : [m, k], tb ? [n, k] : [k, n], ta, tb);
  });

  it.skipIf(skip)('batches: both sides, either side broadcast, rank 4, transposed', () => {
    const rng = new Rng(2);
    const cases: [number[], number[], boolean, boolean][] = [
      [[3, 5, 7], [7, 4], false, false],
      [[3, 7, 5], [4, 7], true, true],
      [[5, 7], [3, 7, 4], false, false],
      [[7, 5], [3, 4, 7], true, true],
      [[2, 6, 3], [1, 3, 5], false, false],
      [[1, 5, 6], [3, 6, 2], false, false],
      [[4, 5, 6], [4, 6, 2], false, false],
      [[4, 6, 5], [4, 2, 6], true, true],
      [[4, 6, 5], [4, 6, 2], true, false],
      [[2, 3, 4, 5], [2, 3, 5, 6], false, false],
      [[2, 3, 5, 4], [5, 6], true, false],
      [[1, 1, 4, 5], [2, 3, 5, 6], false, false],
    ];
    const moved = countsDuring(() => {
      for (const [aShape, bShape, ta, tb] of cases) checkProduct(rng, aShape, bShape, ta, tb);
    });
    if (path === 'native') expect(moved.native).toBe(cases.length);
  });

  it.skipIf(skip)('fuses bias and activation, transposed, and falls back for leaky ReLU', () => {
    const rng = new Rng(3);
    const [m, k, n] = [9, 13, 6];
    // The stock kernel gets the bias wrong when an input is transposed (tfjs-backend-wasm 4.22), one
    // more reason for the overrides: it is checked untransposed only.
    const t = path !== 'stock';
    const aShape = t ? [k, m] : [m, k];
    const bShape = t ? [n, k] : [k, n];
    const a = random(rng, aShape);
    const b = random(rng, bShape);
    const bias = random(rng, [n]);
    const plain = reference(a, aShape, b, bShape, t, t).values;
    const activations: [tf.fused.Activation, (v: number) => number][] = [
      ['linear', (v) => v],
      ['relu', (v) => Math.max(0, v)],
      ['relu6', (v) => Math.min(6, Math.max(0, v))],
      ['leakyrelu', (v) => (v > 0 ? v : 0.2 * v)],
    ];
    for (const [activation, f] of activations) {
      // relu6 clips at 6 only for larger values: scale a and the bias by 4 for it.
      const scale = activation === 'relu6' ? 4 : 1;
      const expected = plain.map((v, i) => f(scale * (v + (bias[i % n] ?? 0))));
      const moved = countsDuring(() => {
        const result = tf.tidy(() =>
          tf.fused.matMul({
            a: tf.tensor(
              Float32Array.from(a, (v) => v * scale),
              aShape,
            ),
            b: tf.tensor(Float32Array.from(b), bShape),
            transposeA: t,
            transposeB: t,
            bias: tf.tensor(
              Float32Array.from(bias, (v) => v * scale),
              [n],
            ),
            activation,
            leakyreluAlpha: 0.2,
          }),
        );
        expectClose(result.dataSync() as Float32Array, expected, k * scale);
        result.dispose();
      });
      if (path === 'native') expect(moved.native).toBe(activation === 'leakyrelu' ? 0 : 1);
    }
  });

  // The wasm backend's own kernel (and so XNNPACK's path) takes a rank-1 bias of n values only.
  it.skipIf(path !== 'native' || skip)(
    'adds a scalar bias and a [1, n] bias to a batched product',
    () => {
      const rng = new Rng(6);
      const [batch, m, k, n] = [3, 4, 5, 6];
      const a = random(rng, [batch, m, k]);
      const b = random(rng, [k, n]);
      const plain = reference(a, [batch, m, k], b, [k, n], false, false).values;
      const row = random(rng, [n]);
      for (const [biasValues, biasShape] of [
        [Float64Array.of(0.25), [1]],
        [row, [1, n]],
      ] as const) {
        const expected = plain.map((v, i) =>
          Math.max(0, v + (biasValues[i % biasValues.length] ?? 0)),
        );
        const result = tf.tidy(() =>
          tf.fused.matMul({
            a: tf.tensor(Float32Array.from(a), [batch, m, k]),
            b: tf.tensor(Float32Array.from(b), [k, n]),
            bias: tf.tensor(Float32Array.from(biasValues), [...biasShape]),
            activation: 'relu',
          }),
        );
        expect(result.shape).toEqual([batch, m, n]);
        expectClose(result.dataSync() as Float32Array, expected, k);
        result.dispose();
      }
    },
  );

  it.skipIf(skip)('gives the right gradients of a dense layer, without leaking tensors', () => {
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
