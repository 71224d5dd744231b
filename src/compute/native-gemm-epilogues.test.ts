import { describe, expect, it } from 'vitest';
import { seededValues } from '../../test/support/seeded-values.js';
import { GemmParams, loadNativeGemm, loadSystemBlas, type GemmCall } from './native-gemm.js';

/*
 * The GEMM's optional epilogues (sgemm.h's tl_gemm), which a whole ReLU MLP's kernels use: ReLU
 * bits stored by a forward product, a backward product masked by them, and column sums. Each is
 * checked bit for bit against the plain product followed by the same float32 operations, on every
 * kernel this CPU runs, over shapes whose edges cut the 16-bit words and the micro-tiles, and on
 * 1, 2 and 3 threads. Skipped when the addon is not built, except in CI.
 */

const addon = loadNativeGemm() as
  | (NonNullable<ReturnType<typeof loadNativeGemm>> & {
      columnSums(heap: Float32Array, params: Float64Array): void;
    })
  | undefined;
const skip = addon === undefined && process.env.CI !== 'true';

const values = seededValues;

interface Shape {
  m: number;
  n: number;
  k: number;
  transB: boolean;
}

/** Shapes across word edges (n % 16), tiles (MR ≤ 12, NR ≤ 32) and the narrow kernels (n ≤ 16). */
const SHAPES: Shape[] = [
  { m: 37, n: 10, k: 20, transB: false },
  { m: 1, n: 40, k: 7, transB: true },
  { m: 3, n: 33, k: 9, transB: false },
  { m: 150, n: 513, k: 70, transB: true },
  { m: 301, n: 64, k: 300, transB: true },
  { m: 64, n: 200, k: 1100, transB: false },
];

/** Words of bits a row gets in these tests: more than needed, so the spare ones show overwrites. */
const bitsLdOf = (n: number): number => Math.ceil(n / 16) + 3;

interface Layout {
  heap: Float32Array;
  call: GemmCall;
  bitsOffset: number;
  sumsOffset: number;
}

/** A, B, C, bits and sums on one heap, with the product's parameters (no epilogue set yet). */
function layout(s: Shape, seed: number): Layout {
  const { m, n, k } = s;
  const a = values(m * k, seed);
  const b = values(k * n, seed + 1);
  const bitsFloats = Math.ceil((m * bitsLdOf(n)) / 2);
  const aOffset = 5;
  const bOffset = aOffset + a.length;
  const cOffset = bOffset + b.length;
  const bitsOffset = cOffset + m * n;
  const sumsOffset = bitsOffset + bitsFloats;
  const heap = new Float32Array(sumsOffset + n + 4).fill(7.25);
  heap.set(a, aOffset);
  heap.set(b, bOffset);
  return {
    heap,
    bitsOffset,
    sumsOffset,
    call: {
      batch: 1,
      transA: 0,
      transB: s.transB ? 1 : 0,
      m,
      n,
      k,
      aOffset,
      aStride: 0,
      lda: 0,
      bOffset,
      bStride: 0,
      ldb: 0,
      cOffset,
      cStride: 0,
      ldc: 0,
      biasOffset: -1,
      biasSize: 0,
      activation: 0,
      accumulate: 0,
    },
  };
}

const product = (l: Layout): Float32Array =>
  l.heap.slice(l.call.cOffset, l.call.cOffset + l.call.m * l.call.n);

/** Bit j of row i of the bits at `offset` (4-byte units) on `heap`. */
function bit(heap: Float32Array, offset: number, ld: number, i: number, j: number): number {
  const words = new Uint16Array(heap.buffer, heap.byteOffset + offset * 4);
  return ((words[i * ld + (j >> 4)] ?? 0) >> (j & 15)) & 1;
}

/** The bits of a Float32Array, so −0 and +0 differ. */
const bitsOf = (x: Float32Array): number[] => Array.from(new Uint32Array(x.slice().buffer));

/** ones · C, as the Sum kernel computes a bias gradient (addon.columnSums), on the current kernel. */
function onesTimes(c: Float32Array, m: number, n: number): Float32Array {
  if (addon === undefined) throw new Error('unreachable');
  const heap = new Float32Array(c.length + n);
  heap.set(c);
  addon.columnSums(heap, Float64Array.from([m, n, 0, c.length]));
  return heap.slice(c.length);
}

const kernels = (): string[] => {
  if (addon === undefined) return [];
  const own = addon.kernels();
  return loadSystemBlas().available ? [...own, 'blas'] : own;
};

/** Runs `f` on `kernel` with `threads` threads, then puts the addon back. */
function on<T>(kernel: string, threads: number, f: () => T): T {
  if (addon === undefined) throw new Error('unreachable');
  const before = addon.kernel();
  addon.useKernel(kernel);
  addon.setThreads(threads);
  try {
    return f();
  } finally {
    addon.useKernel(before);
    addon.setThreads(1);
  }
}

/** The three epilogues of one product, on `kernel` and `threads`, with what they should give. */
function epilogues(kernel: string, threads: number, s: Shape, seed: number) {
  if (addon === undefined) throw new Error('unreachable');
  const run = (l: Layout, extra: Partial<GemmCall>): void => {
    on(kernel, threads, () => {
      addon.gemm(l.heap, new GemmParams().set({ ...l.call, ...extra }));
    });
  };
  const ld = bitsLdOf(s.n);

  // Forward: relu, bits stored; the plain product alongside.
  const plain = layout(s, seed);
  run(plain, { activation: 1 });
  const stored = layout(s, seed);
  run(stored, { activation: 1, bitsOutOffset: stored.bitsOffset, bitsLd: ld });
  const spareWords = new Uint16Array(stored.heap.buffer, stored.bitsOffset * 4, s.m * ld).filter(
    (_, w) => w % ld >= Math.ceil(s.n / 16),
  );

  // Backward: a linear product masked by those bits, with its column sums.
  const unmasked = layout(s, seed + 7);
  run(unmasked, {});
  const masked = layout(s, seed + 7);
  masked.heap.set(stored.heap.subarray(stored.bitsOffset, stored.sumsOffset), masked.bitsOffset);
  run(masked, {
    bitsInOffset: masked.bitsOffset,
    bitsLd: ld,
    columnSumsOffset: masked.sumsOffset,
  });
  const want = product(unmasked).map((v, idx) => {
    const keep = bit(stored.heap, stored.bitsOffset, ld, Math.floor(idx / s.n), idx % s.n);
    return v * keep;
  });
  return {
    forward: { plain: product(plain), stored: product(stored) },
    bits: Array.from({ length: s.m * s.n }, (_, idx) =>
      bit(stored.heap, stored.bitsOffset, ld, Math.floor(idx / s.n), idx % s.n),
    ),
    relu: product(plain),
    spareWords: Array.from(spareWords),
    masked: product(masked),
    want,
    sums: masked.heap.slice(masked.sumsOffset, masked.sumsOffset + s.n),
    wantSums: on(kernel, 1, () => onesTimes(want, s.m, s.n)),
  };
}

describe.skipIf(skip)('native GEMM epilogues: ReLU bits and column sums', () => {
  for (const kernel of kernels())
    it(`${kernel}: stores ReLU bits, masks by them and sums columns, bit for bit`, () => {
      SHAPES.forEach((s, i) => {
        const r = epilogues(kernel, 1, s, 11 + i);
        const label = `${kernel} ${JSON.stringify(s)}`;
        // Storing bits leaves the product as it was; each bit is its element's step.
        expect(bitsOf(r.forward.stored), label).toEqual(bitsOf(r.forward.plain));
        expect(r.bits, label).toEqual(Array.from(r.relu, (v) => (v > 0 ? 1 : 0)));
        expect(r.bits.some((b) => b === 0) && r.bits.some((b) => b === 1), label).toBe(true);
        // Words past a row's bits stay as they were (the heap's 7.25, as 16-bit halves).
        const untouched = Array.from(new Uint16Array(new Float32Array([7.25, 7.25]).buffer));
        expect(new Set(r.spareWords), label).toEqual(new Set(untouched));
        // Masked: the plain product times the bit, −0 where a negative value was masked out.
        expect(bitsOf(r.masked), label).toEqual(bitsOf(r.want));
        expect(bitsOf(r.sums), label).toEqual(bitsOf(r.wantSums));
      });
    });

  for (const kernel of addon?.kernels() ?? [])
    it(`${kernel}: gives the same epilogues on 1, 2 and 3 threads`, () => {
      const s: Shape = { m: 301, n: 200, k: 300, transB: true };
      const one = epilogues(kernel, 1, s, 5);
      for (const threads of [2, 3]) {
        const many = epilogues(kernel, threads, s, 5);
        expect(many.bits).toEqual(one.bits);
        expect(bitsOf(many.masked)).toEqual(bitsOf(one.masked));
        expect(bitsOf(many.sums)).toEqual(bitsOf(one.sums));
      }
    });

  it('refuses epilogues it cannot place: a batch, too few words a row, outside the heap', () => {
    if (addon === undefined) throw new Error('unreachable');
    const s: Shape = { m: 4, n: 40, k: 3, transB: false };
    const l = layout(s, 3);
    const call =
      (extra: Partial<GemmCall>): (() => void) =>
      () => {
        addon.gemm(l.heap, new GemmParams().set({ ...l.call, ...extra }));
      };
    // A batch of two (the same A and B, C twice) fits the heap; the bits cannot take it.
    expect(call({ batch: 2, cOffset: 0, cStride: 160, bitsOutOffset: l.bitsOffset })).toThrow(
      /batch of 1/,
    );
    expect(call({ batch: 2, cOffset: 0, cStride: 160 })).not.toThrow();
    expect(call({ bitsOutOffset: l.bitsOffset, bitsLd: 2 })).toThrow(/bitsLd/);
    expect(call({ columnSumsOffset: l.heap.length - 3 })).toThrow(/outside the heap/);
    expect(call({ bitsInOffset: l.heap.length })).toThrow(/outside the heap/);
  });
});
