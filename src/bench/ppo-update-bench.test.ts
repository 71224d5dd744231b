import { describe, expect, it } from 'vitest';
import { nativeGemmStatus } from '../compute/native-gemm.js';
import { matMulPathCounts, wasmMatMulPath } from '../compute/wasm-matmul.js';
import { benchPpoUpdate } from './ppo-update-bench.js';

describe('benchPpoUpdate', () => {
  it('measures every available matmul path and leaves the default one in place', async () => {
    const native = nativeGemmStatus();
    const before = matMulPathCounts();
    const results = await benchPpoUpdate({ netDim: 8, batch: 32, updates: 1, repeat: 1 });
    const shapes = '(state 64, netDim 8, actions 4, batch 32)';
    expect(
      results.map((r) => r.name.replace(/native GEMM: .*? \(state/, 'native GEMM (state')),
    ).toEqual([
      ...(native.available ? [`PPO update, wasm, native GEMM ${shapes}`] : []),
      `PPO update, wasm, XNNPACK with explicit transposes ${shapes}`,
      `PPO update, wasm, stock kernels ${shapes}`,
    ]);
    for (const r of results) {
      expect(r.unit).toBe('samples/s');
      expect(r.items).toBe(32);
      expect(r.rate).toBeGreaterThan(0);
      expect(r.target).toBeUndefined(); // only at the shapes
    }
    expect(wasmMatMulPath()).toBe(native.available ? 'native' : 'xnnpack');
    const after = matMulPathCounts();
    expect(after.transposed).toBeGreaterThan(before.transposed);
    if (native.available) expect(after.native).toBeGreaterThan(before.native);
  });
});
