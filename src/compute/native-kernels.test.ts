import { describe, expect, it } from 'vitest';
import { seededValues } from '../../test/support/seeded-values.js';
import { GemmParams, loadNativeGemm, loadSystemBlas, type GemmCall } from './native-gemm.js';

/*
 * Every GEMM kernel this CPU runs (tradelab's own, and the system BLAS when there is one) against
 * a float64 reference: all four transpose cases, edge sizes around the micro-tiles and cache
 * blocks, leading dimensions wider than the matrices, bias, activations, accumulation, and
 * threads. Skipped when the addon is not built, except in CI.
 */

const addon = loadNativeGemm();
const skip = addon === undefined && process.env.CI !== 'true';
if (skip)
  console.warn('native-kernels.test.ts: skipping (the native GEMM is not built). CI runs them.');

const values = seededValues;

interface Case {
  m: number;
  n: number;
  k: number;
  transA: boolean;
  transB: boolean;
  /** Extra columns of every leading dimension (0: packed). */
  pad: number;
  accumulate: boolean;
  bias: 'none' | 'scalar' | 'row';
  activation: 0 | 1 | 2;
}

const SENTINEL = 12345.5;

/**
 * Runs `c` on the addon's current kernel with `threads` threads; returns C (with its padding) and
 * the float64 reference with an error bound per element.
 */
function run(
  c: Case,
  threads: number,
): { got: Float32Array; want: Float64Array; bound: Float64Array } {
  if (addon === undefined) throw new Error('unreachable');
  const { m, n, k, transA, transB, pad } = c;
  const aRows = transA ? k : m;
  const aCols = transA ? m : k;
  const bRows = transB ? n : k;
  const bCols = transB ? k : n;
  const lda = aCols + pad;
  const ldb = bCols + pad;
  const ldc = n + pad;
  const a = values(aRows * lda, m * 31 + n * 7 + k);
  const b = values(bRows * ldb, m + n * 13 + k * 3);
  const bias = values(n, n + 5);
  const cStart = values(m * ldc, m * n + 1);
  for (let i = 0; i < m; i++) for (let j = n; j < ldc; j++) cStart[i * ldc + j] = SENTINEL;
  // One heap: A, B, bias, C, laid end to end after a gap, as tensors sit in the wasm memory.
  const aOffset = 3;
  const bOffset = aOffset + a.length;
  const biasOffset = bOffset + b.length;
  const cOffset = biasOffset + bias.length;
  const heap = new Float32Array(cOffset + cStart.length + 5).fill(SENTINEL);
  heap.set(a, aOffset);
  heap.set(b, bOffset);
  heap.set(bias, biasOffset);
  heap.set(cStart, cOffset);
  const call: GemmCall = {
    batch: 1,
    transA: transA ? 1 : 0,
    transB: transB ? 1 : 0,
    m,
    n,
    k,
    aOffset,
    aStride: 0,
    lda,
    bOffset,
    bStride: 0,
    ldb,
    cOffset,
    cStride: 0,
    ldc,
    biasOffset: c.bias === 'none' ? -1 : biasOffset,
    biasSize: c.bias === 'scalar' ? 1 : n,
    activation: c.activation,
    accumulate: c.accumulate ? 1 : 0,
  };
  addon.setThreads(threads);
  addon.gemm(heap, new GemmParams().set(call));
  expect(heap.subarray(0, aOffset).every((v) => v === SENTINEL)).toBe(true);
  expect(heap.subarray(cOffset + cStart.length).every((v) => v === SENTINEL)).toBe(true);

  const want = new Float64Array(m * ldc);
  const bound = new Float64Array(m * ldc);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < ldc; j++) {
      if (j >= n) {
        want[i * ldc + j] = SENTINEL;
        continue;
      }
      let sum = c.accumulate ? (cStart[i * ldc + j] ?? 0) : 0;
      let size = Math.abs(sum);
      for (let p = 0; p < k; p++) {
        const x = (transA ? a[p * lda + i] : a[i * lda + p]) ?? 0;
        const y = (transB ? b[j * ldb + p] : b[p * ldb + j]) ?? 0;
        sum += x * y;
        size += Math.abs(x * y);
      }
      if (c.bias !== 'none') {
        const add = (c.bias === 'scalar' ? bias[0] : bias[j]) ?? 0;
        sum += add;
        size += Math.abs(add);
      }
      if (c.activation === 1) sum = Math.max(sum, 0);
      if (c.activation === 2) sum = Math.min(Math.max(sum, 0), 6);
      want[i * ldc + j] = sum;
      // float32 accumulation: a few ulps per term, relative to the sum of magnitudes.
      bound[i * ldc + j] = 1e-6 * (k + 2) * size + 1e-30;
    }
  return { got: heap.slice(cOffset, cOffset + cStart.length), want, bound };
}

/** The first element outside its bound, described, or undefined. */
function firstMismatch(c: Case, r: ReturnType<typeof run>): string | undefined {
  for (let idx = 0; idx < r.want.length; idx++) {
    const got = r.got[idx] ?? Number.NaN;
    const want = r.want[idx] ?? Number.NaN;
    if (!(Math.abs(got - want) <= (r.bound[idx] ?? 0)))
      return `${JSON.stringify(c)}: C[${Math.floor(idx / (c.n + c.pad))}, ${idx % (c.n + c.pad)}] = ${got}, want ${want}`;
  }
  return undefined;
}

const EDGES = [1, 2, 4, 7, 17, 63];
/**
 * Sizes that cross the micro-tiles (MR ≤ 12, NR ≤ 32), the cache blocks (mc 120-144, kc 256-512, nc 4096),
 * the few-rows path (m ≤ 4) and the narrow kernels that read A in place (n ≤ 16: a policy head).
 */
const LARGE: Array<[number, number, number]> = [
  [513, 65, 300],
  [301, 10, 600],
  [150, 16, 257],
  [17, 513, 513],
  [150, 33, 257],
  [3, 4100, 20],
  [300, 1, 513],
  [1, 300, 513],
];

function casesFor(): Case[] {
  const cases: Case[] = [];
  let i = 0;
  for (const transA of [false, true])
    for (const transB of [false, true]) {
      for (const m of EDGES)
        for (const n of EDGES)
          for (const k of [...EDGES, 0]) {
            i++;
            cases.push({
              m,
              n,
              k,
              transA,
              transB,
              pad: i % 3 === 0 ? 3 : 0,
              accumulate: i % 2 === 0,
              bias: (['none', 'scalar', 'row'] as const)[i % 3] ?? 'none',
              activation: ([0, 1, 2] as const)[(i >> 1) % 3] ?? 0,
            });
          }
      for (const [m, n, k] of LARGE) {
        i++;
        cases.push({
          m,
          n,
          k,
          transA,
          transB,
          pad: i % 2 === 0 ? 5 : 0,
          accumulate: i % 3 === 0,
          bias: i % 2 === 0 ? 'row' : 'none',
          activation: i % 4 === 0 ? 1 : 0,
        });
      }
    }
  return cases;
}

const kernels = (): string[] => {
  if (addon === undefined) return [];
  const own = addon.kernels();
  return loadSystemBlas().available ? [...own, 'blas'] : own;
};

describe.skipIf(skip)('native GEMM kernels against a float64 reference', () => {
  it('is built (CI requires it), with a kernel for this CPU', () => {
    expect(addon, 'the native GEMM must be built in CI').toBeDefined();
    expect(addon?.kernels().length).toBeGreaterThan(0);
    expect(addon?.kernels()).toContain('generic');
  });

  for (const kernel of kernels())
    it(`${kernel}: all four transpose cases, edge sizes, padded leading dimensions, bias, activations`, () => {
      if (addon === undefined) throw new Error('unreachable');
      const before = addon.kernel();
      addon.useKernel(kernel);
      try {
        const failures: string[] = [];
        for (const c of casesFor()) {
          const mismatch = firstMismatch(c, run(c, 1));
          if (mismatch !== undefined) failures.push(mismatch);
        }
        expect(failures.slice(0, 5)).toEqual([]);
      } finally {
        addon.useKernel(before);
        addon.setThreads(1);
      }
    });

  for (const kernel of addon?.kernels() ?? [])
    it(`${kernel}: gives the same bits on 1, 2 and 3 threads`, () => {
      if (addon === undefined) throw new Error('unreachable');
      const before = addon.kernel();
      addon.useKernel(kernel);
      try {
        for (const c of [
          {
            m: 301,
            n: 200,
            k: 300,
            transA: false,
            transB: true,
            pad: 0,
            accumulate: false,
            bias: 'row',
            activation: 1,
          },
          {
            m: 13,
            n: 700,
            k: 513,
            transA: true,
            transB: false,
            pad: 2,
            accumulate: true,
            bias: 'none',
            activation: 0,
          },
        ] satisfies Case[]) {
          const one = run(c, 1);
          expect(firstMismatch(c, one)).toBeUndefined();
          for (const threads of [2, 3]) expect(run(c, threads).got).toEqual(one.got);
        }
      } finally {
        addon.useKernel(before);
        addon.setThreads(1);
      }
    });
});
