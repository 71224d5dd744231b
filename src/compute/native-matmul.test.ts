import * as tf from './tfjs.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from './backends.js';
import { GemmParams, loadNativeGemm, nativeGemmStatus, type GemmCall } from './native-gemm.js';
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
    const params = new GemmParams();
    // 2×2 · 2×2 products, packed: A at 0, B at 4, C at 8.
    const call = (changes: Partial<GemmCall>): Float64Array =>
      params.set({
        batch: 1,
        transA: 0,
        transB: 0,
        m: 2,
        n: 2,
        k: 2,
        aOffset: 0,
        aStride: 0,
        lda: 0,
        bOffset: 4,
        bStride: 0,
        ldb: 0,
        cOffset: 8,
        cStride: 0,
        ldc: 0,
        biasOffset: -1,
        biasSize: 0,
        activation: 0,
        accumulate: 0,
        ...changes,
      });
    // Output past the 16 values, second A past them, bias past them, a padded C past them.
    expect(() => {
      gemm.gemm(heap, call({ cOffset: 13 }));
    }).toThrow(RangeError);
    expect(() => {
      gemm.gemm(heap, call({ batch: 2, aStride: 13 }));
    }).toThrow(/outside the heap/);
    expect(() => {
      gemm.gemm(heap, call({ biasOffset: 15, biasSize: 2 }));
    }).toThrow(/bias/);
    expect(() => {
      gemm.gemm(heap, call({ ldc: 7 }));
    }).toThrow(/outside the heap/);
    // A leading dimension narrower than its matrix, and overlapping outputs in a batch.
    expect(() => {
      gemm.gemm(heap, call({ lda: 1 }));
    }).toThrow(/leading dimension/);
    expect(() => {
      gemm.gemm(heap, call({ batch: 2, cStride: 1, cOffset: 0 }));
    }).toThrow(/overlap/);
    // Strides and sizes big enough to overflow a careless check.
    expect(() => {
      gemm.gemm(heap, call({ batch: 3, aStride: 2 ** 62 }));
    }).toThrow(/integer/);
    expect(() => {
      gemm.gemm(heap, call({ batch: 3, aStride: 2 ** 31 - 1 }));
    }).toThrow(/outside the heap/);
    expect(() => {
      gemm.gemm(heap, call({ batch: 2 ** 31 - 1, m: 2 ** 31 - 1, n: 2 ** 31 - 1, k: 1 }));
    }).toThrow(/outside the heap/);
    expect(() => {
      gemm.gemm(heap, call({ m: 1.5 }));
    }).toThrow(/integer/);
    expect(() => {
      gemm.gemm(heap, new Float64Array(3));
    }).toThrow(/19 values/);
    gemm.gemm(heap.fill(1), call({ accumulate: 1 }));
    expect(Array.from(heap.subarray(8, 12))).toEqual([3, 3, 3, 3]);
  });
});
