import type { GpuDevice } from '../gpu-device.js';
import type { KernelSpec } from '../pipeline-cache.js';
import { GEMM_PARAMS_WGSL } from './gemm.js';

/*
 * A GEMM on subgroup matrices: Dawn's `chromium_experimental_subgroup_matrix` WGSL extension, which
 * Vulkan lowers to cooperative matrices (NVIDIA's tensor cores, AMD RDNA3's WMMA) and Metal to
 * simdgroup matrices. A subgroup multiplies whole M×K by K×N blocks in one instruction; the shapes
 * and types it can are the adapter's (`GPUAdapterInfo.subgroupMatrixConfigs`), and a kernel that
 * names any other fails at pipeline creation, so the kernel is generated for one chosen config.
 *
 * A and B are f16 (the f16-storage path's copies), C is f32. A workgroup computes a 64×64 tile of
 * C as four 32×32 quarters, one per subgroup, each quarter (32/M)×(32/N) result matrices held
 * across the whole K loop. K is walked 32 at a time: every thread helps stage the A and B tiles in
 * workgroup memory, zero outside the matrix (so no dimension needs to be a multiple of anything),
 * and a transposed operand is staged as it is stored and loaded column-major, so the global reads
 * stay coalesced. Tile rows are padded by 8 elements against bank conflicts; every offset and
 * stride is a multiple of 16 bytes, which cooperative-matrix loads want.
 *
 * The number of subgroups is the hardware's: a workgroup is sized in multiples of the adapter's
 * largest subgroup (a pipeline-creation rule), and where subgroups come out smaller there are more
 * of them, so each takes the quarters `subgroup_id + j·num_subgroups` (extras idle, fewer loop).
 * Subgroup ids are not workgroup-uniform, which the extension's uniformity check would refuse;
 * they are uniform within a subgroup, all these calls need, so that diagnostic is turned off.
 *
 * C is stored straight from the result matrices when the tile is inside C and aligned to 16 bytes;
 * otherwise each result matrix goes through a small workgroup buffer and threads write the elements
 * inside C. An f16 result (where the adapter offers no f32 accumulation) always takes that way.
 */

/** One of the adapter's subgroup matrix shapes: left M×K, right K×N, result M×N. */
export interface SubgroupMatrixConfig {
  componentType: string;
  resultComponentType: string;
  M: number;
  N: number;
  K: number;
}

/** What Dawn adds to GPUAdapterInfo with the feature (not yet in @webgpu/types). */
interface AdapterInfoWithMatrices {
  subgroupMatrixConfigs?: readonly SubgroupMatrixConfig[];
}

/** The subgroup matrix configs of `gpu`'s adapter (none without the feature). */
export function subgroupMatrixConfigs(gpu: GpuDevice): SubgroupMatrixConfig[] {
  if (!gpu.has('chromium-experimental-subgroup-matrix')) return [];
  const info = gpu.device.adapterInfo as GPUAdapterInfo & AdapterInfoWithMatrices;
  return (info.subgroupMatrixConfigs ?? []).map((c) => ({
    componentType: c.componentType,
    resultComponentType: c.resultComponentType,
    M: c.M,
    N: c.N,
    K: c.K,
  }));
}

/** Block sides the kernel's 32×32 quarters and 32-deep K steps divide into. */
const USABLE_SIDES = new Set([8, 16]);

/**
 * The config the kernel uses: f16 operands, an f32 result where there is one (else f16), sides of
 * 8 or 16; the most work per instruction first, then the adapter's order (its preference).
 * Undefined when none fits.
 */
export function pickSubgroupMatrixConfig(
  configs: readonly SubgroupMatrixConfig[],
): SubgroupMatrixConfig | undefined {
  const usable = configs.filter(
    (c) =>
      c.componentType === 'f16' &&
      (c.resultComponentType === 'f32' || c.resultComponentType === 'f16') &&
      USABLE_SIDES.has(c.M) &&
      USABLE_SIDES.has(c.N) &&
      USABLE_SIDES.has(c.K),
  );
  const rank = (c: SubgroupMatrixConfig): number =>
    (c.resultComponentType === 'f32' ? 1e6 : 0) + c.M * c.N * c.K;
  return [...usable].sort((x, y) => rank(y) - rank(x))[0];
}

/** The compile-time shape of a subgroup-matrix GEMM. */
export interface SubgroupMatrixGemmVariant {
  transposeA: boolean;
  transposeB: boolean;
  config: SubgroupMatrixConfig;
  /** The adapter's largest subgroup (`GPUAdapterInfo.subgroupMaxSize`). */
  subgroupMaxSize: number;
  /** The device's `maxComputeInvocationsPerWorkgroup` (and workgroup size x). */
  maxThreads: number;
}

/** Rows and columns of C per workgroup, and K per step through workgroup memory. */
export const SUBGROUP_MATRIX_TILE = { m: 64, n: 64, k: 32 } as const;
/** Quarters of a tile, one subgroup's work each. */
const QUARTERS = 4;
const QUARTER = 32;
/** Elements of padding at the end of each staged tile row (16 bytes of f16). */
const PAD = 8;

/** Workgroups for a product of `m` × `n`. */
export function subgroupMatrixGemmWorkgroups(m: number, n: number): [number, number] {
  return [Math.ceil(n / SUBGROUP_MATRIX_TILE.n), Math.ceil(m / SUBGROUP_MATRIX_TILE.m)];
}

/** A short name, e.g. "gemm subgroup-matrix nn f16 16x16x16 f32". */
export function subgroupMatrixGemmLabel(variant: SubgroupMatrixGemmVariant): string {
  const { config: c } = variant;
  const t = `${variant.transposeA ? 't' : 'n'}${variant.transposeB ? 't' : 'n'}`;
  return `gemm subgroup-matrix ${t} f16 ${c.M}x${c.N}x${c.K} ${c.resultComponentType}`;
}

/** Threads per workgroup: up to four of the largest subgroups, within the device's limit. */
export function subgroupMatrixThreads(subgroupMaxSize: number, maxThreads: number): number {
  for (const subgroups of [4, 2, 1])
    if (subgroupMaxSize * subgroups <= maxThreads) return subgroupMaxSize * subgroups;
  throw new Error(
    `subgroup-matrix GEMM: a subgroup of ${subgroupMaxSize} exceeds the workgroup limit ${maxThreads}`,
  );
}

/** The kernel of `variant`: bindings params (gemm.ts's uniform), A (f16), B (f16), C (f32). */
export function subgroupMatrixGemmKernel(variant: SubgroupMatrixGemmVariant): KernelSpec {
  const { config, transposeA, transposeB } = variant;
  const { m: BM, n: BN, k: BK } = SUBGROUP_MATRIX_TILE;
  if (config.componentType !== 'f16' || pickSubgroupMatrixConfig([config]) === undefined)
    throw new Error(
      `subgroup-matrix GEMM: config ${JSON.stringify(config)} does not fit; pick one with pickSubgroupMatrixConfig`,
    );
  const { M: SM, N: SN, K: SK } = config;
  const result = config.resultComponentType; // 'f32' or 'f16'
  const threads = subgroupMatrixThreads(variant.subgroupMaxSize, variant.maxThreads);
  if ((BM * BK) % threads !== 0 || (BN * BK) % threads !== 0)
    throw new Error(`subgroup-matrix GEMM: ${threads} threads do not divide a tile evenly`);
  // With the largest subgroups there are fewest of them: each then owns this many quarters.
  const slots = Math.ceil(QUARTERS / (threads / variant.subgroupMaxSize));
  const fm = QUARTER / SM;
  const fn = QUARTER / SN;
  // Staged layouts: A as [m][k] (or [k][m] when transposed), B as [k][n] (or [n][k]).
  const strideA = (transposeA ? BM : BK) + PAD;
  const strideB = (transposeB ? BK : BN) + PAD;
  const sizeA = (transposeA ? BK : BM) * strideA;
  const sizeB = (transposeB ? BN : BK) * strideB;
  const leftType = `subgroup_matrix_left<f16, ${SK}, ${SM}>`;
  const rightType = `subgroup_matrix_right<f16, ${SN}, ${SK}>`;
  const resultType = `subgroup_matrix_result<${result}, ${SN}, ${SM}>`;
  const loadA = transposeA
    ? `let kk = e / ${BM}u; let mm = e % ${BM}u; let gm = row0 + mm; let gk = k0 + kk;
      var v = 0.0h;
      if (gm < M && gk < K) { v = a[p.offA + gk * p.lda + gm]; }
      tileA[kk * ${strideA}u + mm] = v;`
    : `let mm = e / ${BK}u; let kk = e % ${BK}u; let gm = row0 + mm; let gk = k0 + kk;
      var v = 0.0h;
      if (gm < M && gk < K) { v = a[p.offA + gm * p.lda + gk]; }
      tileA[mm * ${strideA}u + kk] = v;`;
  const loadB = transposeB
    ? `let nn = e / ${BK}u; let kk = e % ${BK}u; let gn = col0 + nn; let gk = k0 + kk;
      var v = 0.0h;
      if (gn < N && gk < K) { v = b[p.offB + gn * p.ldb + gk]; }
      tileB[nn * ${strideB}u + kk] = v;`
    : `let kk = e / ${BN}u; let nn = e % ${BN}u; let gn = col0 + nn; let gk = k0 + kk;
      var v = 0.0h;
      if (gn < N && gk < K) { v = b[p.offB + gk * p.ldb + gn]; }
      tileB[kk * ${strideB}u + nn] = v;`;
  // Where a block starting at tile row `r` (or column `c`) and depth `kk` begins in workgroup memory.
  const leftAt = (r: string): string =>
    transposeA ? `kk * ${strideA}u + ${r}` : `(${r}) * ${strideA}u + kk`;
  const rightAt = (c: string): string =>
    transposeB ? `(${c}) * ${strideB}u + kk` : `kk * ${strideB}u + ${c}`;
  const majorA = transposeA ? 'col_major' : 'row_major';
  const majorB = transposeB ? 'col_major' : 'row_major';

  const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
  const blocks = range(fm).flatMap((i) => range(fn).map((j) => [i, j] as const));
  const acc = (s: number, i: number, j: number): string => `acc${s}_${i}_${j}`;
  const declare = range(slots)
    .flatMap((s) => blocks.map(([i, j]) => `  var ${acc(s, i, j)} = ${resultType}();`))
    .join('\n');
  // A quarter's origin inside the tile: quarters 0 1 on top, 2 3 below.
  const quarterOrigin = `let qr = (quarter / 2u) * ${QUARTER}u; let qc = (quarter % 2u) * ${QUARTER}u;`;
  const multiply = range(slots)
    .map(
      (s) => `    {
      let quarter = sg + ${s}u * subgroups;
      if (quarter < ${QUARTERS}u) {
        ${quarterOrigin}
        for (var kk = 0u; kk < ${BK}u; kk += ${SK}u) {
${range(fm)
  .map(
    (i) =>
      `          let left${i} = subgroupMatrixLoad<${leftType}, ${majorA}>(&tileA, ${leftAt(`qr + ${i * SM}u`)}, ${strideA}u);`,
  )
  .join('\n')}
${range(fn)
  .map(
    (j) =>
      `          let right${j} = subgroupMatrixLoad<${rightType}, ${majorB}>(&tileB, ${rightAt(`qc + ${j * SN}u`)}, ${strideB}u);`,
  )
  .join('\n')}
${blocks
  .map(
    ([i, j]) =>
      `          ${acc(s, i, j)} = subgroupMatrixMultiplyAccumulate(left${i}, right${j}, ${acc(s, i, j)});`,
  )
  .join('\n')}
        }
      }
    }`,
    )
    .join('\n');
  const storeDirect = range(slots)
    .map(
      (s) => `    {
      let quarter = sg + ${s}u * subgroups;
      if (quarter < ${QUARTERS}u) {
        ${quarterOrigin}
${blocks
  .map(
    ([i, j]) =>
      `        subgroupMatrixStore<row_major>(&c, p.offC + (row0 + qr + ${i * SM}u) * p.ldc + col0 + qc + ${j * SN}u, ${acc(s, i, j)}, p.ldc);`,
  )
  .join('\n')}
      }
    }`,
    )
    .join('\n');
  // Edge tiles: one result matrix per quarter at a time through `staged`, then the elements inside C.
  const blockElements = SM * SN;
  const storeStaged = range(slots)
    .flatMap((s) =>
      blocks.map(
        ([i, j]) => `    {
      let quarter = sg + ${s}u * subgroups;
      if (quarter < ${QUARTERS}u) {
        subgroupMatrixStore<row_major>(&staged, quarter * ${blockElements}u, ${acc(s, i, j)}, ${SN}u);
      }
      workgroupBarrier();
      for (var e = li; e < ${QUARTERS * blockElements}u; e += ${threads}u) {
        let q = e / ${blockElements}u;
        if (q >= ${s}u * subgroups && q < ${s + 1}u * subgroups) {
          let within = e % ${blockElements}u;
          let r = row0 + (q / 2u) * ${QUARTER}u + ${i * SM}u + within / ${SN}u;
          let col = col0 + (q % 2u) * ${QUARTER}u + ${j * SN}u + within % ${SN}u;
          if (r < M && col < N) { c[p.offC + r * p.ldc + col] = f32(staged[e]); }
        }
      }
      workgroupBarrier();
    }`,
      ),
    )
    .join('\n');
  // An f16 result cannot be stored into C's f32 directly: it always takes the staged way.
  const store =
    result === 'f32'
      ? `  if (row0 + ${BM}u <= M && col0 + ${BN}u <= N && p.ldc % 4u == 0u && p.offC % 4u == 0u) {
${storeDirect}
  } else {
${storeStaged}
  }`
      : storeStaged;
  const code = /* wgsl */ `
enable f16;
enable subgroups;
enable chromium_experimental_subgroup_matrix;
diagnostic(off, chromium_experimental.subgroup_matrix_uniformity);

${GEMM_PARAMS_WGSL}
@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read> b: array<f16>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

var<workgroup> tileA: array<f16, ${sizeA}>;
var<workgroup> tileB: array<f16, ${sizeB}>;
var<workgroup> staged: array<${result}, ${QUARTERS * blockElements}>;

@compute @workgroup_size(${threads})
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32,
        @builtin(subgroup_id) sg: u32, @builtin(num_subgroups) subgroups: u32) {
  let M = p.m;
  let N = p.n;
  let K = p.k;
  let row0 = wg.y * ${BM}u;
  let col0 = wg.x * ${BN}u;
${declare}
  for (var k0 = 0u; k0 < K; k0 += ${BK}u) {
    for (var i = 0u; i < ${(BM * BK) / threads}u; i++) {
      let e = li + i * ${threads}u;
      ${loadA}
    }
    for (var i = 0u; i < ${(BN * BK) / threads}u; i++) {
      let e = li + i * ${threads}u;
      ${loadB}
    }
    workgroupBarrier();
${multiply}
    workgroupBarrier();
  }
${store}
}
`;
  return {
    label: subgroupMatrixGemmLabel(variant),
    code,
    bindings: ['uniform', 'read', 'read', 'write'],
    perMinibatch: false,
  };
}
