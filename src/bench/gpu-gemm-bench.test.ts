import { describe, expect, it } from 'vitest';
import { gpuTestAdapter } from '../../test/support/webgpu.js';
import { openGpuDevice } from '../gpu/index.js';
import {
  benchGpuGemm,
  compareWithF32,
  f16GemmTolerance,
  maxErrorOfMaxC,
  type GpuGemmResult,
} from './gpu-gemm-bench.js';

/*
 * The engine's GEMM rows of `bench gemm`: on lavapipe, one f32 row per shape, timed by the device's
 * timestamps where it has them (lavapipe does), with a rate from the shape's flops, and beside it
 * the f16-storage row (lavapipe has shader-f16) with its speed over f32 and its error against the
 * f32 product; no subgroup-matrix row, since lavapipe has no subgroup matrices. Then, without a
 * device: a row whose product is wrong reports no rate, and the error and tolerance figures.
 */

const found = await gpuTestAdapter('src/bench/gpu-gemm-bench.test.ts');

const shape = { m: 64, n: 48, k: 32, transA: false, transB: false, role: 'test' };

describe.skipIf(!found)('bench gemm on the GPU engine', { timeout: 240_000 }, () => {
  it('times f32 and f16 storage per shape by GPU timestamps, the f16 row checked against f32', async () => {
    const gpu = await openGpuDevice();
    const offered = {
      f16: gpu.has('shader-f16'),
      matrices: gpu.has('chromium-experimental-subgroup-matrix'),
    };
    gpu.destroy();
    // What this test is about: lavapipe offers f16, and no subgroup matrices.
    expect(offered).toEqual({ f16: true, matrices: false });

    const rows = await benchGpuGemm({ shapes: [shape], repeat: 2, calls: 3 });
    expect(rows.map((r) => r.gpuGemm.path)).toEqual(['f32', 'f16-storage']);
    const [f32, f16] = rows as [GpuGemmResult, GpuGemmResult];
    expect(f32.name).toMatch(/^gpu engine f32 on .+, 64×48×32 NN \(test; GPU timestamps\)$/);
    expect(f16.name).toMatch(
      /^gpu engine f16 storage, f32 accumulate on .+, 64×48×32 NN \(test; GPU timestamps; \d+\.\d\d× f32(, fastest)?; max error \d\.\de-\d of max \|C\|\)$/,
    );
    for (const row of rows) {
      expect(row.items).toBe(2 * 64 * 48 * 32);
      expect(row.runs).toHaveLength(2);
      for (const seconds of row.runs) expect(seconds).toBeGreaterThan(0);
      expect(row.rate).toBeCloseTo(row.items / row.seconds / 1e9, 6);
    }
    expect(f32.gpuGemm).toMatchObject({ verified: true, speedupOverF32: 1, maxError: 0 });
    // f16 rounding shows (the path really read f16), within f16's tolerance.
    expect(f16.gpuGemm.verified).toBe(true);
    expect(f16.gpuGemm.maxError).toBeGreaterThan(0);
    expect(f16.gpuGemm.maxError).toBeLessThanOrEqual(f16GemmTolerance('f32', 32));
    expect(f16.gpuGemm.speedupOverF32).toBeCloseTo(f16.rate / f32.rate, 9);
    expect(rows.filter((r) => r.gpuGemm.fastest)).toHaveLength(1);
  });

  it('has no f16 row where the device does without shader-f16', async () => {
    const rows = await benchGpuGemm({
      shapes: [shape],
      repeat: 1,
      calls: 1,
      withoutFeatures: ['shader-f16'],
    });
    expect(rows.map((r) => r.gpuGemm.path)).toEqual(['f32']);
  });
});

/** A row as benchGpuGemm builds it before comparing, 1 GFLOP per `seconds`. */
function measuredRow(
  path: GpuGemmResult['gpuGemm']['path'],
  seconds: number,
  detail: Partial<GpuGemmResult['gpuGemm']> = {},
): GpuGemmResult {
  return {
    bench: 'gemm',
    name: `gpu engine ${path} on test, 1×1×1 NN (test; GPU timestamps)`,
    items: 1e9,
    seconds,
    runs: [seconds],
    rate: 1 / seconds,
    unit: 'GFLOP/s',
    machine: { cpus: 1, node: 'v20', loadAverage: 0 },
    gpuGemm: {
      path,
      precision: path,
      speedupOverF32: 0,
      maxError: 0,
      tolerance: 2 ** -8,
      verified: true,
      fastest: false,
      ...detail,
    },
  };
}

describe('reporting lower-precision GEMM rows', () => {
  it('gives a row whose product was wrong no rate, however fast it ran', () => {
    const [f32, f16, matrices] = compareWithF32([
      measuredRow('f32', 2),
      measuredRow('f16-storage', 1, { maxError: 3e-5 }),
      measuredRow('subgroup-matrix', 0.1, {
        maxError: 0.4,
        verified: false,
        refusal: 'max error 4.0e-1 of max |C|, beyond 3.9e-3',
      }),
    ]);
    expect(matrices).toMatchObject({ rate: 0, seconds: 0, runs: [] });
    expect(matrices?.gpuGemm).toMatchObject({ speedupOverF32: 0, fastest: false });
    expect(matrices?.name).toMatch(
      /; not reported: max error 4\.0e-1 of max \|C\|, beyond 3\.9e-3\)$/,
    );
    expect(f16?.gpuGemm).toMatchObject({ speedupOverF32: 2, fastest: true });
    expect(f16?.name).toMatch(/; 2\.00× f32, fastest; max error 3\.0e-5 of max \|C\|\)$/);
    expect(f32?.gpuGemm).toMatchObject({ speedupOverF32: 1, fastest: false });
    expect(f32?.name).toBe('gpu engine f32 on test, 1×1×1 NN (test; GPU timestamps)');
  });

  it('measures the error against the largest |C|, NaN where the product has one', () => {
    const want = Float32Array.of(4, -2, 1);
    expect(maxErrorOfMaxC(Float32Array.of(4, -2, 1), want)).toBe(0);
    expect(maxErrorOfMaxC(Float32Array.of(4, -2, 1.5), want)).toBeCloseTo(0.125, 9);
    expect(maxErrorOfMaxC(Float32Array.of(4, Number.NaN, 1), want)).toBeNaN();
  });

  it('allows an f16 accumulator more error as k grows, f32 accumulation the same at every k', () => {
    expect(f16GemmTolerance('f32', 16)).toBe(f16GemmTolerance('f32', 2048));
    expect(f16GemmTolerance('f16', 16)).toBe(f16GemmTolerance('f32', 16));
    expect(f16GemmTolerance('f16', 1024)).toBeCloseTo(8 * f16GemmTolerance('f32', 1024), 12);
  });
});
