import { describe, expect, it } from 'vitest';
import { matMulPathCounts, wasmMatMulInstalled } from '../compute/wasm-matmul.js';
import { benchPpoUpdate } from './ppo-update-bench.js';

describe('benchPpoUpdate', () => {
  it('measures both matmul paths and leaves the fast one installed', async () => {
    const before = matMulPathCounts();
    const results = await benchPpoUpdate({ netDim: 8, batch: 32, updates: 1, repeat: 1 });
    expect(results.map((r) => r.name)).toEqual([
      'PPO update, wasm, XNNPACK with explicit transposes (state 64, netDim 8, actions 4, batch 32)',
      'PPO update, wasm, stock kernels (state 64, netDim 8, actions 4, batch 32)',
    ]);
    for (const r of results) {
      expect(r.unit).toBe('samples/s');
      expect(r.items).toBe(32);
      expect(r.rate).toBeGreaterThan(0);
      expect(r.target).toBeUndefined();
    }
    expect(wasmMatMulInstalled()).toBe(true);
    expect(matMulPathCounts().transposed).toBeGreaterThan(before.transposed);
  });
});
