import * as tf from './tfjs.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../core/random.js';
import { useBackend } from './backends.js';
import { trainingKernelCounts, wasmTrainingKernelsInstalled } from './wasm-training-kernels.js';

/*
 * The Sum, Identity and Cast overrides: sums against a float64 reference (leading axes through
 * the product, others through the original), and shared data that outlives its source.
 */

beforeAll(async () => {
  await useBackend('wasm');
});

/** Sum of `values` (row-major, `shape`) over `axes`, in float64. */
function referenceSum(values: Float64Array, shape: number[], axes: number[]): Float64Array {
  const kept = shape.map((d, i) => (axes.includes(i) ? 1 : d));
  const out = new Float64Array(kept.reduce((p, d) => p * d, 1));
  const index = new Array<number>(shape.length).fill(0);
  for (const v of values) {
    let o = 0;
    for (let i = 0; i < shape.length; i++)
      o = o * (kept[i] ?? 1) + (axes.includes(i) ? 0 : (index[i] ?? 0));
    out[o] = (out[o] ?? 0) + v;
    for (let i = shape.length - 1; i >= 0; i--) {
      index[i] = (index[i] ?? 0) + 1;
      if ((index[i] ?? 0) < (shape[i] ?? 1)) break;
      index[i] = 0;
    }
  }
  return out;
}

describe('wasm training kernels', () => {
  it('are installed with the wasm backend', () => {
    expect(wasmTrainingKernelsInstalled()).toBe(true);
  });

  it('sum over leading axes as a product, and over other axes as before', () => {
    const rng = new Rng(7);
    const cases: [number[], number | number[], boolean, boolean][] = [
      [[4096, 37], 0, false, true],
      [[33, 5], [0], true, true],
      [[6, 5, 4], [0, 1], false, true],
      [[6, 5, 4], [-3], true, true],
      [[6, 5, 4], [1, 0], false, true],
      [[1, 9], 0, false, true],
      [[6, 5, 4], 1, false, false],
      [[6, 5, 4], [0, 2], false, false],
      [[6, 5], [0, 1], false, false],
      [[6, 5], -1, false, false],
    ];
    for (const [shape, axis, keepDims, asProduct] of cases) {
      const size = shape.reduce((p, d) => p * d, 1);
      const values = Float64Array.from({ length: size }, () => rng.uniform() * 2 - 1);
      const axes = (Array.isArray(axis) ? axis : [axis]).map((a) => (a < 0 ? a + shape.length : a));
      const expected = referenceSum(values, shape, axes);
      const before = trainingKernelCounts().sumAsProduct;
      const result = tf.tidy(() =>
        tf.sum(tf.tensor(Float32Array.from(values), shape), axis, keepDims),
      );
      const kept = shape.filter((_, i) => !axes.includes(i));
      expect(result.shape).toEqual(
        keepDims ? shape.map((d, i) => (axes.includes(i) ? 1 : d)) : kept,
      );
      const actual = result.dataSync();
      const rows = size / expected.length;
      for (let i = 0; i < expected.length; i++)
        expect(Math.abs((actual[i] ?? 0) - (expected[i] ?? 0))).toBeLessThan(1e-6 * rows + 1e-6);
      expect(trainingKernelCounts().sumAsProduct - before).toBe(asProduct ? 1 : 0);
      result.dispose();
    }
  });

  it('share data for clones and same-dtype casts, which outlive their source', () => {
    const start = tf.memory();
    const x = tf.tensor1d([1, 2, 3]);
    const before = trainingKernelCounts().shared;
    const clone = tf.clone(x);
    const cast = tf.cast(x, 'float32');
    expect(trainingKernelCounts().shared - before).toBe(2);
    x.dispose();
    expect(Array.from(clone.dataSync())).toEqual([1, 2, 3]);
    expect(Array.from(cast.dataSync())).toEqual([1, 2, 3]);
    const ints = tf.cast(clone, 'int32'); // a real conversion still converts
    expect(ints.dtype).toBe('int32');
    expect(Array.from(ints.dataSync())).toEqual([1, 2, 3]);
    tf.dispose([clone, cast, ints]);
    expect(tf.memory().numTensors).toBe(start.numTensors);
    expect(tf.memory().numBytes).toBe(start.numBytes);
  });
});
