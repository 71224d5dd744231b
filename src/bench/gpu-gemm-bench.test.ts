import { describe, expect, it } from 'vitest';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import { benchGpuGemm } from './gpu-gemm-bench.js';

/*
 * The engine's GEMM rows of `bench gemm` on lavapipe: one row per shape, timed by the device's
 * timestamps where it has them (lavapipe does), with a rate from the shape's flops.
 */

const found = await gpuTestAdapter('src/bench/gpu-gemm-bench.test.ts');

describe.skipIf(!found)('bench gemm on the GPU engine', { timeout: 240_000 }, () => {
  it('times each shape by GPU timestamps and reports GFLOP/s from its flops', async () => {
    const shape = { m: 64, n: 48, k: 32, transA: false, transB: false, role: 'test' };
    const [row, ...rest] = await benchGpuGemm({ shapes: [shape], repeat: 2, calls: 3 });
    expect(rest).toEqual([]);
    expect(row?.name).toMatch(/^gpu engine f32 on .+, 64×48×32 NN \(test; GPU timestamps\)$/);
    expect(row?.items).toBe(2 * 64 * 48 * 32);
    expect(row?.runs).toHaveLength(2);
    for (const seconds of row?.runs ?? []) expect(seconds).toBeGreaterThan(0);
    expect(row?.rate).toBeCloseTo((row?.items ?? 0) / (row?.seconds ?? 1) / 1e9, 6);
  });
});
