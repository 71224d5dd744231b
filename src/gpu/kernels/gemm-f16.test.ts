import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/random.js';
import { openGpuDevice, type GpuDevice } from '../gpu-device.js';
import { dispatchOf, runDispatches, storageOf, uniformOf } from '../dispatch.js';
import { gemmUniform } from './gemm.js';
import {
  f32ToF16Kernel,
  f32ToF16Uniform,
  f32ToF16Workgroups,
  gemmF16Kernel,
  gemmF16Workgroups,
  type GemmF16Variant,
} from './gemm-f16.js';
import { gpuTestAdapter } from '../../../test/support/webgpu.js';

/*
 * The f16-storage GEMM on lavapipe against float64 products in JavaScript, at shapes off the
 * 64×64×16 tile, with A and B at offsets inside larger buffers; the f16 copies are made by the
 * conversion kernel and read back, so the test knows the exact values the GEMM was given.
 * Tolerances per element, with s = Σ|a·b| over k:
 * - against the product of those f16 values: 1e-5·s + 1e-6 (f32 accumulation, as gemm.test.ts);
 * - against the product of the original f32 values: 2⁻⁹·s + 1e-5·s + 1e-6: each operand's f16
 *   rounding is off by up to 2⁻¹⁰ of it (WGSL may round to either neighbour), so a product by up
 *   to about 2⁻⁹ of itself.
 * Only NN and TT are compiled (lavapipe takes ~10 s a variant): TT reads both operands the other
 * way, and NT and TN combine the same loads.
 */

const found = await gpuTestAdapter('src/gpu/kernels/gemm-f16.test.ts');

/** The value of the f16 with bits `h` (IEEE 754 binary16). */
function halfToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction === 0 ? sign * Infinity : Number.NaN;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

describe.skipIf(!found)('f16-storage GEMM on the GPU engine', { timeout: 240_000 }, () => {
  let gpu: GpuDevice;
  beforeAll(async () => {
    gpu = await openGpuDevice();
  });
  afterAll(() => {
    gpu.destroy();
  });

  /** `values` as f16 on the device at `pad` elements in, and the f16 values read back. */
  async function halves(values: Float32Array, pad: number): Promise<[GPUBuffer, Float64Array]> {
    const kernel = await gpu.pipelines.kernel(f32ToF16Kernel());
    const source = storageOf(gpu, values, 'f32 values');
    const half = gpu.storageBuffer((values.length + pad) * 2, 'f16 values');
    const call = { count: values.length, offsetOut: pad };
    const uniform = uniformOf(gpu, f32ToF16Uniform(call), 'convert params');
    runDispatches(gpu, [
      dispatchOf(gpu, kernel, [uniform, source, half], f32ToF16Workgroups(values.length)),
    ]);
    const bits = new Uint16Array(
      await gpu.read(half, 0, Math.ceil(((values.length + pad) * 2) / 4) * 4),
    );
    gpu.check();
    return [half, Float64Array.from(bits.subarray(pad, pad + values.length), halfToNumber)];
  }

  async function check(m: number, n: number, k: number, variant: GemmF16Variant): Promise<void> {
    const rng = new Rng(m * 7 + n * 13 + k);
    const pad = 5; // operands and C sit at an offset inside their buffers
    const a = Float32Array.from({ length: m * k }, () => rng.uniform() * 2 - 1);
    const b = Float32Array.from({ length: k * n }, () => rng.uniform() * 2 - 1);
    const [aHalf, a16] = await halves(a, pad);
    const [bHalf, b16] = await halves(b, pad);
    // The conversion itself: within one f16 step of each value (2⁻¹⁴: the smallest normal).
    for (const [x, h] of [
      [a, a16],
      [b, b16],
    ] as const)
      for (let i = 0; i < x.length; i++)
        expect(Math.abs((h[i] as number) - (x[i] as number))).toBeLessThanOrEqual(
          2 ** -10 * Math.abs(x[i] as number) + 2 ** -14,
        );
    const kernel = await gpu.pipelines.kernel(gemmF16Kernel(variant));
    const uniform = uniformOf(
      gpu,
      gemmUniform({
        m,
        n,
        k,
        lda: variant.transposeA ? m : k,
        ldb: variant.transposeB ? k : n,
        ldc: n,
        offsetA: pad,
        offsetB: pad,
        offsetC: pad,
      }),
      'gemm params',
    );
    const out = gpu.storageBuffer((m * n + pad) * 4, 'c');
    runDispatches(gpu, [
      dispatchOf(gpu, kernel, [uniform, aHalf, bHalf, out], gemmF16Workgroups(m, n)),
    ]);
    const got = await gpu.readFloats(out, pad, m * n);
    gpu.check();
    const at = (
      x: ArrayLike<number>,
      rows: number,
      cols: number,
      t: boolean,
      r: number,
      c: number,
    ) => (t ? x[c * rows + r] : x[r * cols + c]) as number;
    let worstExact = 0;
    let worstOriginal = 0;
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++) {
        let exact = 0;
        let original = 0;
        let scale = 0;
        for (let p = 0; p < k; p++) {
          const ah = at(a16, m, k, variant.transposeA, i, p);
          const bh = at(b16, k, n, variant.transposeB, p, j);
          exact += ah * bh;
          original += at(a, m, k, variant.transposeA, i, p) * at(b, k, n, variant.transposeB, p, j);
          scale += Math.abs(ah * bh);
        }
        const value = got[i * n + j] as number;
        worstExact = Math.max(worstExact, Math.abs(value - exact) / (1e-5 * scale + 1e-6));
        worstOriginal = Math.max(
          worstOriginal,
          Math.abs(value - original) / ((2 ** -9 + 1e-5) * scale + 1e-6),
        );
      }
    const label = `${m}×${n}×${k} ${JSON.stringify(variant)}`;
    expect(
      worstExact,
      `${label}: against its f16 inputs, worst error / tolerance`,
    ).toBeLessThanOrEqual(1);
    expect(
      worstOriginal,
      `${label}: against the f32 inputs, worst error / tolerance`,
    ).toBeLessThanOrEqual(1);
  }

  const shapes: [number, number, number][] = [
    [37, 65, 19],
    [130, 3, 200],
    [64, 64, 16],
    [1, 1, 1],
  ];
  for (const transpose of [false, true])
    it(`${transpose ? 'Aᵀ·Bᵀ' : 'A·B'} at shapes off the tile`, async () => {
      for (const [m, n, k] of shapes)
        await check(m, n, k, { transposeA: transpose, transposeB: transpose });
    });
});
