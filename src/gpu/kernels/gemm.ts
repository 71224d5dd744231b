import type { BindingKind, KernelSpec } from '../pipeline-cache.js';

/*
 * Tiled SGEMM in WGSL: C = epilogue(op(A) · op(B)), op a transpose or not, on flat buffers at
 * element offsets with leading dimensions, so one kernel serves every layer of a network whose
 * weights live in one buffer. A workgroup of 16×16 threads computes a 64×64 tile of C; each thread
 * keeps a 4×4 block of it in registers (rows and columns 16 apart, so neighbouring threads write
 * neighbouring addresses; named registers, the loop unrolled), and the K dimension is walked 16
 * at a time through workgroup memory, each tile loaded with consecutive threads on consecutive
 * addresses whichever way the operand is stored. Edges are guarded, so no dimension needs to be a
 * multiple of the tile.
 *
 * The epilogue is fused so a dense layer is one dispatch: bias and activation forward; the
 * activation's derivative (from the layer's output, `aux`) backward. `onesRow` makes A one row
 * taller, a row of ones: the product's last row is then the column sums of B, which is a dense
 * layer's bias gradient written right after its weight gradient.
 *
 * A dimension given as 0 is the minibatch's row count, read from group 1: a whole update is
 * recorded once and replayed with a different range per minibatch.
 */

/** The epilogue applied to each element of the product. */
export type GemmEpilogue =
  | 'none'
  | 'bias'
  | 'bias-relu'
  | 'bias-tanh'
  /**
   * Bias, ReLU, then inverted dropout: element i of C (i = row · ldc + column) is zeroed where the
   * i-th draw of mulberry32 seeded with the uniform's seed falls below the threshold, the others
   * scaled by 1/(1 − rate). The CPU's causal convolution draws its masks the same way, and a
   * draw's state is the seed plus (i + 1) steps of a constant, so every element draws its own.
   */
  | 'bias-relu-dropout'
  /** × (aux > 0): ReLU's derivative from the layer's output. */
  | 'relu-grad'
  /** × (1 − aux²): tanh's derivative from the layer's output. */
  | 'tanh-grad';

/** The compile-time shape of a GEMM kernel. */
export interface GemmVariant {
  transposeA: boolean;
  transposeB: boolean;
  epilogue: GemmEpilogue;
  /** A gets a last row of ones (bias gradient). Only with transposeA. */
  onesRow?: boolean;
  /** Whether a dimension may be 0 = the minibatch's rows (the kernel then reads group 1). */
  perMinibatch?: boolean;
  /**
   * A causal dilated convolution read as one GEMM, its shifted inputs gathered as the tiles load
   * (no im2col copy). Rows are sequences of `time` steps one after another; tap j of a kernel of
   * `taps` reads step t − (taps − 1 − j)·dilation, zero before the sequence starts. The uniform's
   * conv fields give taps, dilation, channels and time.
   * - 'forward': A the input [rows, channels], B the kernel [taps·channels, outputs]: Y = conv(X).
   * - 'input-gradient': A dY [rows, channels = outputs], B the kernel read as its transpose per
   *   tap: dX[t] = Σ_j dY[t + shift_j] · W_jᵀ, zero past the sequence's end. N is the inputs.
   * - 'weight-gradient': Aᵀ with A the input (transposeA): dW[j·C + c, o] = Σ_t X[t − shift_j, c]
   *   · dY[t, o]; with onesRow the bias gradient follows.
   */
  conv?: 'forward' | 'input-gradient' | 'weight-gradient';
}

/** Rows and columns of C per workgroup, and K per step through workgroup memory. */
export const GEMM_TILE = { m: 64, n: 64, k: 16 } as const;

/** The uniform of one GEMM call: dimensions, leading dimensions and element offsets. */
export interface GemmCall {
  /** Rows of op(A) and C (without the ones row); 0: the minibatch's rows. */
  m: number;
  /** Columns of op(B) and C; 0: the minibatch's rows. */
  n: number;
  /** Columns of op(A), rows of op(B); 0: the minibatch's rows. */
  k: number;
  lda: number;
  ldb: number;
  ldc: number;
  offsetA?: number;
  offsetB?: number;
  offsetC?: number;
  offsetBias?: number;
  offsetAux?: number;
  ldAux?: number;
  /** A convolution variant's taps, dilation, channels of A's rows, and steps per sequence. */
  conv?: { taps: number; dilation: number; channels: number; time: number };
  /** The dropout epilogue's rate and seed. */
  dropout?: { rate: number; seed: number };
}

/** Bytes of the {@link GemmCall} uniform. */
export const GEMM_UNIFORM_BYTES = 80;

/** The uniform's words, in the order of the WGSL struct. */
export function gemmUniform(call: GemmCall): Uint32Array {
  const rate = call.dropout?.rate ?? 0;
  // As the CPU's applyDropout: floor(rate · 2³²) and 1/(1 − rate) in float32.
  const scaleBits = new Uint32Array(Float32Array.of(1 / (1 - rate)).buffer)[0] as number;
  return Uint32Array.from([
    call.m,
    call.n,
    call.k,
    call.lda,
    call.ldb,
    call.ldc,
    call.offsetA ?? 0,
    call.offsetB ?? 0,
    call.offsetC ?? 0,
    call.offsetBias ?? 0,
    call.offsetAux ?? 0,
    call.ldAux ?? call.ldc,
    call.conv?.taps ?? 1,
    call.conv?.dilation ?? 1,
    call.conv?.channels ?? 1,
    call.conv?.time ?? 1,
    Math.floor(rate * 4294967296),
    scaleBits,
    ((call.dropout?.seed ?? 0) ^ 0x9e3779b9) >>> 0,
    0,
  ]);
}

/** Workgroups for a product of `m` (plus the ones row) × `n`. */
export function gemmWorkgroups(variant: GemmVariant, m: number, n: number): [number, number] {
  const rows = m + (variant.onesRow === true ? 1 : 0);
  return [Math.ceil(n / GEMM_TILE.n), Math.ceil(rows / GEMM_TILE.m)];
}

/** Whether the epilogue reads a bias, and whether it reads `aux`. */
function epilogueInputs(epilogue: GemmEpilogue): { bias: boolean; aux: boolean } {
  return {
    bias: epilogue.startsWith('bias'),
    aux: epilogue === 'relu-grad' || epilogue === 'tanh-grad',
  };
}

/** The group-0 bindings: params, A, B, C, then bias and aux when the epilogue reads them. */
function gemmBindings(epilogue: GemmEpilogue): BindingKind[] {
  const inputs = epilogueInputs(epilogue);
  return [
    'uniform',
    'read',
    'read',
    'write',
    ...(inputs.bias ? (['read'] as const) : []),
    ...(inputs.aux ? (['read'] as const) : []),
  ];
}

/** A short name for the variant, e.g. "gemm tn ones". */
export function gemmLabel(variant: GemmVariant): string {
  const t = `${variant.transposeA ? 't' : 'n'}${variant.transposeB ? 't' : 'n'}`;
  const conv = variant.conv === undefined ? '' : ` conv ${variant.conv}`;
  return `gemm ${t} ${variant.epilogue}${variant.onesRow === true ? ' ones' : ''}${conv}`;
}

/** The uniform's struct and binding, as {@link gemmUniform} lays it out (WGSL). */
export const GEMM_PARAMS_WGSL = `struct Params { m: u32, n: u32, k: u32, lda: u32, ldb: u32, ldc: u32,
                offA: u32, offB: u32, offC: u32, offBias: u32, offAux: u32, ldAux: u32,
                convTaps: u32, convDilation: u32, convChannels: u32, convTime: u32,
                dropThreshold: u32, dropScale: u32, dropState: u32, pad: u32 };
@group(0) @binding(0) var<uniform> p: Params;`;

/**
 * A thread's 4×4 block of C in named registers (rows and columns 16 apart), with the product
 * unrolled: an array indexed in a loop may be placed in memory by the shader compiler, and the
 * block is the innermost loop. `block` lists its (i, j) for the stores.
 */
export const REGISTER_BLOCK = (() => {
  const { m: TM, n: TN } = GEMM_TILE;
  const block = [0, 1, 2, 3].flatMap((i) => [0, 1, 2, 3].map((j) => [i, j] as const));
  return {
    block,
    declareAccumulators: block.map(([i, j]) => `  var acc${i}${j} = 0.0;`).join('\n'),
    multiply: [
      ...[0, 1, 2, 3].map((i) => `      let a${i} = tileA[kk * ${TM}u + lid.y + ${16 * i}u];`),
      ...[0, 1, 2, 3].map((j) => `      let b${j} = tileB[kk * ${TN}u + lid.x + ${16 * j}u];`),
      ...block.map(([i, j]) => `      acc${i}${j} = acc${i}${j} + a${i} * b${j};`),
    ].join('\n'),
  };
})();

/**
 * The walk over K (WGSL): each step loads a tile of A and of B into workgroup memory (`loadA` and
 * `loadB` set `v` for element `e` at (mm, kk) and (kk, nn)), then accumulates the register block.
 */
export function tiledProduct(loadA: string, loadB: string): string {
  const { m: TM, n: TN, k: TK } = GEMM_TILE;
  return `  for (var k0 = 0u; k0 < K; k0 += ${TK}u) {
    for (var i = 0u; i < ${(TM * TK) / 256}u; i++) {
      let e = li + i * 256u;
      ${loadA}
      tileA[kk * ${TM}u + mm] = v;
    }
    for (var i = 0u; i < ${(TN * TK) / 256}u; i++) {
      let e = li + i * 256u;
      ${loadB}
      tileB[kk * ${TN}u + nn] = v;
    }
    workgroupBarrier();
    for (var kk = 0u; kk < ${TK}u; kk++) {
${REGISTER_BLOCK.multiply}
    }
    workgroupBarrier();
  }`;
}

/** The kernel of `variant`. */
export function gemmKernel(variant: GemmVariant): KernelSpec {
  const { m: TM, n: TN, k: TK } = GEMM_TILE;
  const inputs = epilogueInputs(variant.epilogue);
  const perMinibatch = variant.perMinibatch === true;
  const ones = variant.onesRow === true;
  if (ones && !variant.transposeA) throw new Error('gemmKernel: onesRow needs transposeA');
  const biasBinding = 4;
  const auxBinding = inputs.bias ? 5 : 4;
  // Loads: element e of a tile goes to (row, k). Consecutive e follow the operand's storage order.
  const conv = variant.conv;
  if (conv === 'forward' && (variant.transposeA || variant.transposeB))
    throw new Error('gemmKernel: a forward convolution reads A and B untransposed');
  if (conv === 'input-gradient' && (variant.transposeA || variant.transposeB))
    throw new Error("gemmKernel: an input gradient's transposes are the convolution's own");
  if (conv === 'weight-gradient' && (!variant.transposeA || variant.transposeB))
    throw new Error('gemmKernel: a weight gradient reads Aᵀ and B');
  // Where tap j of row `row` reads, for the convolution variants: the shifted row, or none.
  const shifted = (row: string, tapIndex: string, sign: '-' | '+'): string => `
       let tap = ${tapIndex} / p.convChannels;
       let shift = (p.convTaps - 1u - tap) * p.convDilation;
       let timeStep = ${row} % p.convTime;
       let inside = ${sign === '-' ? 'timeStep >= shift' : 'timeStep + shift < p.convTime'};
       let source = ${row} ${sign} shift;`;
  // Loads: element e of a tile goes to (row, k). Consecutive e follow the operand's storage order.
  const loadA =
    conv === 'forward' || conv === 'input-gradient'
      ? `let mm = e / ${TK}u; let kk = e % ${TK}u; let gm = row0 + mm; let gk = k0 + kk;
       var v = 0.0;
       if (gm < M && gk < K) {${shifted('gm', 'gk', conv === 'forward' ? '-' : '+')}
         if (inside) { v = a[p.offA + source * p.lda + gk % p.convChannels]; }
       }`
      : conv === 'weight-gradient'
        ? `let kk = e / ${TM}u; let mm = e % ${TM}u; let gm = row0 + mm; let gk = k0 + kk;
       var v = 0.0;
       if (gk < K) {
         if (gm < M) {${shifted('gk', 'gm', '-')}
           if (inside) { v = a[p.offA + source * p.lda + gm % p.convChannels]; }
         }${ones ? ` else if (gm == M) { v = 1.0; }` : ''}
       }`
        : variant.transposeA
          ? `let kk = e / ${TM}u; let mm = e % ${TM}u; let gm = row0 + mm; let gk = k0 + kk;
       var v = 0.0;
       if (gk < K) {
         if (gm < M) { v = a[p.offA + gk * p.lda + gm]; }${ones ? ` else if (gm == M) { v = 1.0; }` : ''}
       }`
          : `let mm = e / ${TK}u; let kk = e % ${TK}u; let gm = row0 + mm; let gk = k0 + kk;
       var v = 0.0;
       if (gm < M && gk < K) { v = a[p.offA + gm * p.lda + gk]; }`;
  // The input gradient reads the kernel [taps, N inputs, C outputs] at (k = tap·C + o, n = c).
  const loadB =
    conv === 'input-gradient'
      ? `let kk = e / ${TN}u; let nn = e % ${TN}u; let gn = col0 + nn; let gk = k0 + kk;
       var v = 0.0;
       if (gn < N && gk < K) {
         let tap = gk / p.convChannels;
         v = b[p.offB + (tap * N + gn) * p.convChannels + gk % p.convChannels];
       }`
      : variant.transposeB
        ? `let nn = e / ${TK}u; let kk = e % ${TK}u; let gn = col0 + nn; let gk = k0 + kk;
       var v = 0.0;
       if (gn < N && gk < K) { v = b[p.offB + gn * p.ldb + gk]; }`
        : `let kk = e / ${TN}u; let nn = e % ${TN}u; let gn = col0 + nn; let gk = k0 + kk;
       var v = 0.0;
       if (gn < N && gk < K) { v = b[p.offB + gk * p.ldb + gn]; }`;
  const epilogue = (() => {
    switch (variant.epilogue) {
      case 'none':
        return '';
      case 'bias':
        return 'v = v + bias[p.offBias + col];';
      case 'bias-relu':
        return 'v = max(v + bias[p.offBias + col], 0.0);';
      case 'bias-relu-dropout':
        return `v = max(v + bias[p.offBias + col], 0.0);
        let draw = p.dropState + (r * p.ldc + col + 1u) * 0x6d2b79f5u;
        var z = (draw ^ (draw >> 15u)) * (1u | draw);
        z = (z + (z ^ (z >> 7u)) * (61u | z)) ^ z;
        if ((z ^ (z >> 14u)) < p.dropThreshold) { v = 0.0; } else { v = v * bitcast<f32>(p.dropScale); }`;
      case 'bias-tanh':
        return 'v = tanh(v + bias[p.offBias + col]);';
      case 'relu-grad':
        return 'if (aux[p.offAux + r * p.ldAux + col] <= 0.0) { v = 0.0; }';
      case 'tanh-grad':
        return 'let h = aux[p.offAux + r * p.ldAux + col]; v = v * (1.0 - h * h);';
    }
  })();
  const { block, declareAccumulators } = REGISTER_BLOCK;
  const store = block
    .map(
      ([i, j]) => `  {
    let r = row0 + lid.y + ${16 * i}u;
    let col = col0 + lid.x + ${16 * j}u;
    if (r < rows && col < N) {
      var v = acc${i}${j};
      ${epilogue}
      c[p.offC + r * p.ldc + col] = v;
    }
  }`,
    )
    .join('\n');
  const code = /* wgsl */ `
${GEMM_PARAMS_WGSL}
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;
${inputs.bias ? `@group(0) @binding(${biasBinding}) var<storage, read> bias: array<f32>;` : ''}
${inputs.aux ? `@group(0) @binding(${auxBinding}) var<storage, read> aux: array<f32>;` : ''}
${perMinibatch ? 'struct Minibatch { start: u32, rows: u32 };\n@group(1) @binding(0) var<uniform> mb: Minibatch;' : ''}

var<workgroup> tileA: array<f32, ${TK * TM}>;
var<workgroup> tileB: array<f32, ${TK * TN}>;

fn dim(v: u32) -> u32 {
  ${perMinibatch ? 'if (v == 0u) { return mb.rows; }' : ''}
  return v;
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_id) lid: vec3u,
        @builtin(local_invocation_index) li: u32) {
  let M = dim(p.m);
  let N = dim(p.n);
  let K = dim(p.k);
  let row0 = wg.y * ${TM}u;
  let col0 = wg.x * ${TN}u;
${declareAccumulators}
${tiledProduct(loadA, loadB)}
  let rows = M${ones ? ' + 1u' : ''};
${store}
}
`;
  return {
    label: gemmLabel(variant),
    code,
    bindings: gemmBindings(variant.epilogue),
    perMinibatch,
  };
}
