import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from './backends.js';
import { loadNativeGemm, nativeGemmStatus } from './native-gemm.js';
import { matMulPathCounts, setWasmMatMulPath } from './wasm-matmul.js';

/*
 * What only the native path has to get right: training gradients equal to XNNPACK's, the wasm
 * heap moving under it when memory grows, and the addon refusing ranges outside the heap. The
 * product-by-product checks against a float64 reference are in wasm-matmul.test.ts.
 */

const native = nativeGemmStatus();
const skip = !native.available && process.env.CI !== 'true';
if (skip)
  console.warn(
    `native-matmul.test.ts: skipping the native GEMM tests (${native.reason}). CI runs them.`,
  );

/** Gradients of a small MLP's loss (two dense ReLU layers and a linear head), flattened. */
function mlpGradients(): Float32Array[] {
  return tf.tidy(() => {
    const x = tf.randomUniform([257, 37], -1, 1, 'float32', 1);
    const y = tf.randomUniform([257, 3], -1, 1, 'float32', 2);
    const model = tf.sequential({
      layers: [
        tf.layers.dense({
          units: 64,
          activation: 'relu',
          inputShape: [37],
          kernelInitializer: tf.initializers.glorotUniform({ seed: 3 }),
          biasInitializer: tf.initializers.randomUniform({ minval: -0.1, maxval: 0.1, seed: 4 }),
        }),
        tf.layers.dense({
          units: 53,
          activation: 'relu',
          kernelInitializer: tf.initializers.glorotUniform({ seed: 5 }),
          biasInitializer: tf.initializers.randomUniform({ minval: -0.1, maxval: 0.1, seed: 6 }),
        }),
        tf.layers.dense({
          units: 3,
          kernelInitializer: tf.initializers.glorotUniform({ seed: 7 }),
        }),
      ],
    });
    const { grads } = tf.variableGrads(() =>
      tf.losses.meanSquaredError(y, model.predict(x) as tf.Tensor),
    );
    const values = Object.values(grads).map((g) => g.dataSync() as Float32Array);
    model.dispose();
    return values;
  });
}

describe.skipIf(skip)('native matmul path', () => {
  beforeAll(async () => {
    if (native.available) await useBackend('wasm', { matmul: 'native' });
  });

  it('is built (CI requires it)', () => {
    expect(native.available, `the native GEMM must be built in CI: ${native.reason}`).toBe(true);
  });

  it('gives the gradients of a dense network that XNNPACK gives, to 1e-4 relative', () => {
    const before = matMulPathCounts().native;
    const nativeGrads = mlpGradients();
    expect(matMulPathCounts().native).toBeGreaterThan(before);
    setWasmMatMulPath('xnnpack');
    try {
      const xnnpackGrads = mlpGradients();
      expect(nativeGrads.length).toBe(xnnpackGrads.length);
      nativeGrads.forEach((g, i) => {
        const h = xnnpackGrads[i] ?? new Float32Array();
        let diff = 0;
        let norm = 0;
        for (let j = 0; j < g.length; j++) {
          diff = Math.max(diff, Math.abs((g[j] ?? 0) - (h[j] ?? 0)));
          norm = Math.max(norm, Math.abs(h[j] ?? 0));
        }
        expect(diff / norm).toBeLessThan(1e-4);
      });
    } finally {
      setWasmMatMulPath('native');
    }
  });

  it('reads the heap afresh after the wasm memory grows', () => {
    const a = tf.tensor2d([
      [1, 2],
      [3, 4],
    ]);
    const first = tf.matMul(a, a, true, false);
    // 256 MiB more than the heap holds so far makes Emscripten replace its buffer.
    const big = tf.zeros([64 * 1024 * 1024]);
    const second = tf.matMul(a, a, true, false);
    expect(Array.from(first.dataSync())).toEqual([10, 14, 14, 20]);
    expect(Array.from(second.dataSync())).toEqual([10, 14, 14, 20]);
    tf.dispose([a, first, big, second]);
  });

  it('refuses operands outside the heap instead of writing past it', () => {
    const gemm = loadNativeGemm();
    if (gemm === undefined) throw new Error('unreachable: the native GEMM is available');
    const heap = new Float32Array(16);
    // 2×2 · 2×2 products: output past the 16 values, second A past them, bias past them.
    expect(() => {
      gemm.gemm(heap, 1, false, false, 2, 2, 2, 0, 0, 4, 0, 13, -1, 0, 0);
    }).toThrow(RangeError);
    expect(() => {
      gemm.gemm(heap, 2, false, false, 2, 2, 2, 0, 13, 4, 0, 8, -1, 0, 0);
    }).toThrow(/outside the heap/);
    expect(() => {
      gemm.gemm(heap, 1, false, false, 2, 2, 2, 0, 0, 4, 0, 8, 15, 2, 0);
    }).toThrow(/bias/);
    // Strides and sizes big enough to overflow a careless check.
    expect(() => {
      gemm.gemm(heap, 3, false, false, 2, 2, 2, 0, 2 ** 62, 4, 0, 8, -1, 0, 0);
    }).toThrow(/outside the heap/);
    expect(() => {
      gemm.gemm(heap, 2 ** 31, false, false, 2 ** 31 - 1, 2 ** 31 - 1, 1, 0, 0, 0, 0, 0, -1, 0, 0);
    }).toThrow(/32-bit integers/);
    gemm.gemm(heap.fill(1), 1, false, false, 2, 2, 2, 0, 0, 4, 0, 8, -1, 0, 1);
    expect(Array.from(heap.subarray(8, 12))).toEqual([2, 2, 2, 2]);
  });
});
