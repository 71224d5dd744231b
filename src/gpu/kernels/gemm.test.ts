import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../core/random.js';
import { openGpuDevice, type GpuDevice } from '../gpu-device.js';
import { dispatchOf, runDispatches, storageOf, uniformOf } from '../dispatch.js';
import { MINIBATCH_STRIDE } from '../pipeline-cache.js';
import {
  gemmKernel,
  gemmUniform,
  gemmWorkgroups,
  type GemmEpilogue,
  type GemmVariant,
} from './gemm.js';
import { gpuTestAdapter } from '../../../test/support/webgpu.js';

/*
 * The tiled GEMM against a float64 product in JavaScript: every transpose case, shapes that are
 * not multiples of the 64×64×16 tile (and smaller than it), operands at offsets inside larger
 * buffers, each epilogue, the ones row (bias gradient) and a dimension read from the minibatch.
 * Tolerance: 1e-5 of Σ|a·b| per element (float32 accumulation over k terms) plus 1e-6.
 */

const found = await gpuTestAdapter('src/gpu/kernels/gemm.test.ts');

function values(rng: Rng, n: number): Float32Array {
  return Float32Array.from({ length: n }, () => rng.uniform() * 2 - 1);
}

interface Case {
  m: number;
  n: number;
  k: number;
  variant: GemmVariant;
}

/** op(A)·op(B) in float64 with the epilogue, and Σ|a·b| per element for the tolerance. */
function reference(
  c: Case,
  a: Float32Array,
  b: Float32Array,
  bias: Float32Array,
  aux: Float32Array,
): { out: Float64Array; scale: Float64Array } {
  const { m, n, k, variant } = c;
  const rows = m + (variant.onesRow === true ? 1 : 0);
  const out = new Float64Array(rows * n);
  const scale = new Float64Array(rows * n);
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < n; j++) {
      let sum = 0;
      let abs = 0;
      for (let p = 0; p < k; p++) {
        const av =
          i === m ? 1 : variant.transposeA ? (a[p * m + i] as number) : (a[i * k + p] as number);
        const bv = variant.transposeB ? (b[j * k + p] as number) : (b[p * n + j] as number);
        sum += av * bv;
        abs += Math.abs(av * bv);
      }
      const h = aux[i * n + j] as number;
      const e: GemmEpilogue = variant.epilogue;
      if (e.startsWith('bias')) sum += bias[j] as number;
      if (e === 'bias-relu') sum = Math.max(sum, 0);
      if (e === 'bias-tanh') sum = Math.tanh(sum);
      if (e === 'relu-grad' && h <= 0) sum = 0;
      if (e === 'tanh-grad') sum *= 1 - h * h;
      out[i * n + j] = sum;
      scale[i * n + j] = abs + 1;
    }
  return { out, scale };
}

// Generous: lavapipe compiles each kernel variant on first use (see vitest.config.ts).
describe.skipIf(!found)('tiled GEMM on the GPU engine', { timeout: 240_000 }, () => {
  let gpu: GpuDevice;
  beforeAll(async () => {
    gpu = await openGpuDevice();
  });
  afterAll(() => {
    gpu.destroy();
  });

  async function check(c: Case, minibatchRows?: number): Promise<void> {
    const rng = new Rng(c.m * 7 + c.n * 13 + c.k);
    const pad = 5; // operands sit at an offset inside their buffers
    const a = values(rng, c.m * c.k);
    const b = values(rng, c.k * c.n);
    const bias = values(rng, c.n);
    const rows = c.m + (c.variant.onesRow === true ? 1 : 0);
    const aux = values(rng, rows * c.n);
    const withPad = (x: Float32Array): Float32Array => {
      const out = new Float32Array(x.length + pad);
      out.set(x, pad);
      return out;
    };
    const kernel = await gpu.pipelines.kernel(gemmKernel(c.variant));
    const dims = { m: c.m, n: c.n, k: c.k };
    if (minibatchRows !== undefined) dims.k = 0;
    const uniform = uniformOf(
      gpu,
      gemmUniform({
        ...dims,
        lda: c.variant.transposeA ? c.m : c.k,
        ldb: c.variant.transposeB ? c.k : c.n,
        ldc: c.n,
        offsetA: pad,
        offsetB: pad,
        offsetC: pad,
        offsetBias: pad,
        offsetAux: pad,
      }),
      'gemm params',
    );
    const out = gpu.storageBuffer((rows * c.n + pad) * 4, 'c');
    const buffers = [
      uniform,
      storageOf(gpu, withPad(a), 'a'),
      storageOf(gpu, withPad(b), 'b'),
      out,
    ];
    if (c.variant.epilogue.startsWith('bias')) buffers.push(storageOf(gpu, withPad(bias), 'bias'));
    if (c.variant.epilogue.endsWith('-grad')) buffers.push(storageOf(gpu, withPad(aux), 'aux'));
    const dispatch = dispatchOf(gpu, kernel, buffers, gemmWorkgroups(c.variant, c.m, c.n));
    if (minibatchRows === undefined) runDispatches(gpu, [dispatch]);
    else {
      // Slot 1 of the range buffer holds the rows; slot 0 holds nonsense that must not be read.
      const range = new Uint32Array((2 * MINIBATCH_STRIDE) / 4);
      range[1] = 999;
      range[MINIBATCH_STRIDE / 4 + 1] = minibatchRows;
      const rangeBuffer = uniformOf(gpu, range, 'range');
      const group = gpu.device.createBindGroup({
        layout: gpu.pipelines.rangeLayout,
        entries: [{ binding: 0, resource: { buffer: rangeBuffer, size: 8 } }],
      });
      runDispatches(gpu, [dispatch], { group, slot: 1, rows: minibatchRows });
    }
    const got = await gpu.readFloats(out, pad, rows * c.n);
    gpu.check();
    const { out: want, scale } = reference(c, a, b, bias, aux);
    let worst = 0;
    for (let i = 0; i < want.length; i++) {
      const error = Math.abs((got[i] as number) - (want[i] as number));
      worst = Math.max(worst, error / (1e-5 * (scale[i] as number) + 1e-6));
    }
    expect(worst, `${JSON.stringify(c)}: worst error / tolerance`).toBeLessThanOrEqual(1);
  }

  const shapes: [number, number, number][] = [
    [64, 64, 16],
    [1, 1, 1],
    [37, 65, 19],
    [130, 3, 200],
    [5, 129, 64],
  ];
  for (const transposeA of [false, true])
    for (const transposeB of [false, true])
      it(`${transposeA ? 'Aᵀ' : 'A'}·${transposeB ? 'Bᵀ' : 'B'} at shapes off the tile`, async () => {
        for (const [m, n, k] of shapes)
          await check({ m, n, k, variant: { transposeA, transposeB, epilogue: 'none' } });
      });

  it('fuses bias, ReLU and tanh forward, and their derivatives backward', async () => {
    for (const epilogue of ['bias', 'bias-relu', 'bias-tanh', 'relu-grad', 'tanh-grad'] as const)
      await check({
        m: 70,
        n: 33,
        k: 45,
        variant: { transposeA: false, transposeB: epilogue.endsWith('grad'), epilogue },
      });
  });

  it('adds a row of ones to Aᵀ: the last row of the product is the column sums of B', async () => {
    await check({
      m: 64,
      n: 17,
      k: 100,
      variant: { transposeA: true, transposeB: false, epilogue: 'none', onesRow: true },
    });
    await check({
      m: 63,
      n: 64,
      k: 7,
      variant: { transposeA: true, transposeB: false, epilogue: 'none', onesRow: true },
    });
  });

  it('reads a dimension given as 0 from the minibatch range', async () => {
    await check(
      {
        m: 40,
        n: 24,
        k: 77,
        variant: {
          transposeA: true,
          transposeB: false,
          epilogue: 'none',
          onesRow: true,
          perMinibatch: true,
        },
      },
      77,
    );
  });
});
