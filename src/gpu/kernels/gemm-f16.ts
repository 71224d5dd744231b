import type { KernelSpec } from '../pipeline-cache.js';
import { GEMM_PARAMS_WGSL, GEMM_TILE, REGISTER_BLOCK, tiledProduct } from './gemm.js';

/*
 * The tiled GEMM with its operands stored as f16 (the `shader-f16` feature): half the bytes of A
 * and B read from memory, every product and sum still in f32, C in f32. It is gemm.ts's kernel
 * without its epilogues, convolutions and minibatch rows: a workgroup of 16×16 threads computes a
 * 64×64 tile of C, each thread a 4×4 block in named registers, K walked 16 at a time through
 * workgroup memory (held in f32, converted once as a tile loads), loads coalesced whichever way an
 * operand is stored, edges guarded. Its uniform is gemm.ts's (`gemmUniform`), the offsets of A
 * and B counted in f16 elements.
 *
 * Rounding the operands to f16 costs about three decimal digits (a relative error up to 2⁻¹⁰ per
 * operand), which is why the engine keeps f32 by default: a resumed run must reproduce its bits.
 * This path is measured by `bench gemm` beside f32 and worth keeping only where it is faster.
 *
 * {@link f32ToF16Kernel} makes the f16 copies, as a program would make them of weights and
 * activations.
 */

/** The compile-time shape of an f16-storage GEMM: which operands are read transposed. */
export interface GemmF16Variant {
  transposeA: boolean;
  transposeB: boolean;
}

/** Workgroups for an f16-storage product of `m` × `n`. */
export function gemmF16Workgroups(m: number, n: number): [number, number] {
  return [Math.ceil(n / GEMM_TILE.n), Math.ceil(m / GEMM_TILE.m)];
}

/** A short name for the variant, e.g. "gemm f16 storage nt". */
export function gemmF16Label(variant: GemmF16Variant): string {
  return `gemm f16 storage ${variant.transposeA ? 't' : 'n'}${variant.transposeB ? 't' : 'n'}`;
}

/** The kernel of `variant`: bindings params, A (f16), B (f16), C (f32). */
export function gemmF16Kernel(variant: GemmF16Variant): KernelSpec {
  const { m: TM, n: TN, k: TK } = GEMM_TILE;
  // Element e of a tile goes to (row, k); consecutive e follow the operand's storage order.
  const loadA = variant.transposeA
    ? `let kk = e / ${TM}u; let mm = e % ${TM}u; let gm = row0 + mm; let gk = k0 + kk;
       var v = 0.0;
       if (gm < M && gk < K) { v = f32(a[p.offA + gk * p.lda + gm]); }`
    : `let mm = e / ${TK}u; let kk = e % ${TK}u; let gm = row0 + mm; let gk = k0 + kk;
       var v = 0.0;
       if (gm < M && gk < K) { v = f32(a[p.offA + gm * p.lda + gk]); }`;
  const loadB = variant.transposeB
    ? `let nn = e / ${TK}u; let kk = e % ${TK}u; let gn = col0 + nn; let gk = k0 + kk;
       var v = 0.0;
       if (gn < N && gk < K) { v = f32(b[p.offB + gn * p.ldb + gk]); }`
    : `let kk = e / ${TN}u; let nn = e % ${TN}u; let gn = col0 + nn; let gk = k0 + kk;
       var v = 0.0;
       if (gn < N && gk < K) { v = f32(b[p.offB + gk * p.ldb + gn]); }`;
  const { block, declareAccumulators } = REGISTER_BLOCK;
  const store = block
    .map(
      ([i, j]) => `  {
    let r = row0 + lid.y + ${16 * i}u;
    let col = col0 + lid.x + ${16 * j}u;
    if (r < M && col < N) { c[p.offC + r * p.ldc + col] = acc${i}${j}; }
  }`,
    )
    .join('\n');
  const code = /* wgsl */ `
enable f16;

${GEMM_PARAMS_WGSL}
@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read> b: array<f16>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

var<workgroup> tileA: array<f32, ${TK * TM}>;
var<workgroup> tileB: array<f32, ${TK * TN}>;

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_id) lid: vec3u,
        @builtin(local_invocation_index) li: u32) {
  let M = p.m;
  let N = p.n;
  let K = p.k;
  let row0 = wg.y * ${TM}u;
  let col0 = wg.x * ${TN}u;
${declareAccumulators}
${tiledProduct(loadA, loadB)}
${store}
}
`;
  return {
    label: gemmF16Label(variant),
    code,
    bindings: ['uniform', 'read', 'read', 'write'],
    perMinibatch: false,
  };
}

/** What {@link f32ToF16Kernel} converts: `count` values from `offsetIn` to `offsetOut`. */
export interface F32ToF16Call {
  count: number;
  /** In f32 elements. Default 0. */
  offsetIn?: number;
  /** In f16 elements. Default 0. */
  offsetOut?: number;
}

/** Threads of a conversion workgroup. */
const CONVERT_THREADS = 256;
/** WebGPU's guaranteed workgroups per dimension; larger conversions spill into y. */
const MAX_WORKGROUPS_X = 65535;

/** The conversion's uniform words. */
export function f32ToF16Uniform(call: F32ToF16Call): Uint32Array {
  return Uint32Array.of(call.count, call.offsetIn ?? 0, call.offsetOut ?? 0, 0);
}

/** Workgroups for converting `count` values. */
export function f32ToF16Workgroups(count: number): [number, number] {
  const groups = Math.max(1, Math.ceil(count / CONVERT_THREADS));
  const x = Math.min(groups, MAX_WORKGROUPS_X);
  return [x, Math.ceil(groups / x)];
}

/**
 * f32 → f16, element by element: bindings params, input (f32), output (f16). Values must lie in
 * f16's range (±65504); WGSL lets the conversion round to either neighbour.
 */
export function f32ToF16Kernel(): KernelSpec {
  const code = /* wgsl */ `
enable f16;

struct Params { count: u32, offsetIn: u32, offsetOut: u32, pad: u32 };
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> values: array<f32>;
@group(0) @binding(2) var<storage, read_write> halves: array<f16>;

@compute @workgroup_size(${CONVERT_THREADS})
fn main(@builtin(global_invocation_id) id: vec3u, @builtin(num_workgroups) groups: vec3u) {
  let i = id.x + id.y * groups.x * ${CONVERT_THREADS}u;
  if (i < p.count) { halves[p.offsetOut + i] = f16(values[p.offsetIn + i]); }
}
`;
  return {
    label: 'f32 to f16',
    code,
    bindings: ['uniform', 'read', 'write'],
    perMinibatch: false,
  };
}
