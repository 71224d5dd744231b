import { describe, expect, it } from 'vitest';
import { autoMatMulPath } from '../compute/backends.js';
import { loadSystemBlas, nativeGemmStatus } from '../compute/native-gemm.js';
import { nativeTrainingKernelsActive } from '../compute/native-training-kernels.js';
import { matMulPathCounts, wasmMatMulPath } from '../compute/wasm-matmul.js';
import { benchPpoUpdate } from './ppo-update-bench.js';

describe('benchPpoUpdate', () => {
  it('measures every available matmul path and leaves the default one in place', async () => {
    const native = nativeGemmStatus();
    const blas = native.available ? loadSystemBlas() : undefined;
    const before = matMulPathCounts();
    const results = await benchPpoUpdate({
      netDim: 8,
      batch: 32,
      updates: 1,
      repeat: 1,
      reference: 'never',
    });
    const shapes = '(state 64, netDim 8, actions 4, batch 32)';
    expect(
      results.map((r) => r.name.replace(/fused kernels: .*? \(state/, 'fused kernels (state')),
    ).toEqual([
      ...(native.available
        ? [
            `PPO update, wasm, native GEMM + fused kernels ${shapes}`,
            `PPO update, wasm, native GEMM, tfjs's element-wise kernels ${shapes}`,
          ]
        : []),
      ...(blas?.available === true
        ? [`PPO update, wasm, ${blas.vendor ?? 'BLAS'} sgemm + fused kernels ${shapes}`]
        : []),
      `PPO update, wasm, XNNPACK with explicit transposes ${shapes}`,
      `PPO update, wasm, stock kernels ${shapes}`,
    ]);
    // Where the time went, for every wasm row but the stock one; fewer kernels when fused.
    const splits = results.map((r) => r.split);
    expect(splits.at(-1)).toBeUndefined();
    for (const split of splits.slice(0, -1)) {
      expect(split?.products).toBeGreaterThan(0);
      expect(split?.optimizer).toBeGreaterThan(0);
    }
    if (native.available)
      expect(results[0]?.split?.kernels).toBeLessThan(results[1]?.split?.kernels ?? 0);
    expect(nativeTrainingKernelsActive()).toBe(native.available);
    for (const r of results) {
      expect(r.unit).toBe('samples/s');
      expect(r.items).toBe(32);
      expect(r.rate).toBeGreaterThan(0);
      expect(r.target).toBeUndefined(); // only beside a reference measured in the run
    }
    // The default path: auto's (the system BLAS where npm ci measured it faster).
    expect(wasmMatMulPath()).toBe(native.available ? autoMatMulPath().path : 'xnnpack');
    const after = matMulPathCounts();
    expect(after.transposed).toBeGreaterThan(before.transposed);
    if (native.available) expect(after.native).toBeGreaterThan(before.native);
  });

  it('measures the FT-Transformer actor when asked', async () => {
    const results = await benchPpoUpdate({
      policy: 'ft_transformer',
      state: 5,
      netDim: 8,
      batch: 8,
      updates: 1,
      repeat: 1,
      stock: false,
      split: false,
    });
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) {
      expect(r.name).toMatch(/^PPO update, ft_transformer actor, wasm, .*\(state 5, netDim 8/);
      expect(r.rate).toBeGreaterThan(0);
    }
  });
});
