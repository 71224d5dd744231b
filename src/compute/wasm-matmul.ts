import {
  getKernel,
  registerKernel,
  unregisterKernel,
  type KernelConfig,
  type KernelFunc,
  type NamedAttrMap,
  type TensorInfo,
} from './tfjs.js';
import { TradelabError } from '../core/index.js';
import { loadNativeGemm, nativeGemmStatus, useNativeKernel } from './native-gemm.js';
import { nativeMatMul } from './native-matmul.js';

/*
 * The wasm backend's matrix products run on XNNPACK only when neither input is transposed and the
 * batch dimension is 1 (tfjs-backend-wasm's batch_mat_mul_impl.cc); every other case takes a scalar
 * loop about 15× slower, and backpropagation through a dense layer always asks for a transposed
 * product. These overrides of BatchMatMul and _FusedMatMul transpose explicitly (a cheap copy),
 * fold a batch of left matrices against one right matrix into a single 2-D product, and then call
 * the backend's own kernel on its fast path. When the native GEMM is built (native-gemm.ts),
 * the `native` and `blas` paths hand products to it instead, and this one is their fallback.
 */

/**
 * Which kernels run the wasm backend's matrix products: `native` (tradelab's own SGEMM kernels on
 * the wasm heap, falling back to `xnnpack` for what they cannot do), `blas` (the same, on the
 * system BLAS: OpenBLAS or Accelerate), `xnnpack` (this file's rewriting onto XNNPACK's fast
 * path) or `stock` (the backend's own kernels).
 */
export type WasmMatMulPath = 'native' | 'blas' | 'xnnpack' | 'stock';

/** How a product reached the fast path; counted for `tradelab backends` and the tests. */
export interface MatMulPathCounts {
  /** Calls that needed no rewriting. */
  direct: number;
  /** Calls with a transposed input, transposed explicitly first. */
  transposed: number;
  /** Calls whose batch of left matrices was folded into one 2-D product. */
  folded: number;
  /** Calls left to the backend's own (slow) batched path: both inputs batched. */
  batched: number;
  /** Calls done by the native GEMM (the others above are its fallbacks, or the xnnpack path). */
  native: number;
}

const counts: MatMulPathCounts = { direct: 0, transposed: 0, folded: 0, batched: 0, native: 0 };
/** The backend's own kernels, while ours replace them. */
const originals = new Map<string, KernelConfig>();
let current: WasmMatMulPath = 'stock';

/** How many products took each path since the overrides were installed. */
export function matMulPathCounts(): Readonly<MatMulPathCounts> {
  return { ...counts };
}

/** Whether the wasm backend's matmul kernels are replaced (any path but `stock`). */
export function wasmMatMulInstalled(): boolean {
  return current !== 'stock';
}

/** The path the wasm backend's matrix products take now. */
export function wasmMatMulPath(): WasmMatMulPath {
  return current;
}

/** A kernel's own backend object, as the wasm kernels receive it. */
type KernelArgs = Parameters<KernelFunc>[0];

/** Calls a registered kernel of `backendName` directly (inside another kernel). */
function callKernel(
  name: string,
  args: KernelArgs,
  inputs: Record<string, TensorInfo>,
  attrs: NamedAttrMap,
): TensorInfo {
  const config = getKernel(name, 'wasm') as KernelConfig | undefined;
  if (config === undefined)
    throw new TradelabError('BACKEND_UNAVAILABLE', `the wasm backend has no ${name} kernel`, {
      hint: 'check @tensorflow/tfjs-backend-wasm matches @tensorflow/tfjs (same version)',
    });
  return config.kernelFunc({ inputs, backend: args.backend, attrs }) as TensorInfo;
}

function disposeTemporaries(args: KernelArgs, temporaries: readonly TensorInfo[]): void {
  const backend = args.backend as { disposeData(dataId: object): boolean };
  for (const t of temporaries) backend.disposeData(t.dataId);
}

/** `x` with its last two axes swapped, as a new (contiguous) tensor. */
function transposeLastTwo(args: KernelArgs, x: TensorInfo, temporaries: TensorInfo[]): TensorInfo {
  const rank = x.shape.length;
  const perm = Array.from({ length: rank }, (_, i) => i);
  perm[rank - 2] = rank - 1;
  perm[rank - 1] = rank - 2;
  const y = callKernel('Transpose', args, { x }, { perm });
  temporaries.push(y);
  return y;
}

function reshape(
  args: KernelArgs,
  x: TensorInfo,
  shape: number[],
  temporaries: TensorInfo[],
): TensorInfo {
  const y = callKernel('Reshape', args, { x }, { shape });
  temporaries.push(y);
  return y;
}

const product = (dims: readonly number[]): number => dims.reduce((p, d) => p * d, 1);

/**
 * Wraps a matmul kernel (BatchMatMul or _FusedMatMul: inputs `a`, `b` and, fused, `bias` and
 * `preluActivationWeights`) so the original always sees untransposed inputs and, where the right
 * side has no batch, one 2-D product.
 */
function fastPath(original: KernelConfig): KernelFunc {
  return (args) => {
    const { inputs, attrs } = args;
    const { a, b, ...rest } = inputs as Record<string, TensorInfo> & {
      a: TensorInfo;
      b: TensorInfo;
    };
    const transposeA = attrs?.transposeA === true;
    const transposeB = attrs?.transposeB === true;
    const batchA = product(a.shape.slice(0, -2));
    const batchB = product(b.shape.slice(0, -2));
    if (!transposeA && !transposeB && batchA <= 1 && batchB <= 1) {
      counts.direct++;
      return original.kernelFunc(args);
    }
    const temporaries: TensorInfo[] = [];
    try {
      let left = transposeA ? transposeLastTwo(args, a, temporaries) : a;
      let right = transposeB ? transposeLastTwo(args, b, temporaries) : b;
      if (transposeA || transposeB) counts.transposed++;
      const m = left.shape[left.shape.length - 2] ?? 0;
      const k = left.shape[left.shape.length - 1] ?? 0;
      const n = right.shape[right.shape.length - 1] ?? 0;
      const outer = a.shape.slice(0, -2);
      let foldedShape: number[] | undefined;
      if (batchA > 1 && batchB <= 1) {
        // [..., M, K] × [K, N]: one [B·M, K] × [K, N] product, reshaped back.
        left = reshape(args, left, [batchA * m, k], temporaries);
        right = reshape(args, right, [k, n], temporaries);
        foldedShape = [...outer, m, n];
        counts.folded++;
      } else if (batchA > 1 || batchB > 1) counts.batched++;
      const out = original.kernelFunc({
        ...args,
        inputs: { ...rest, a: left, b: right },
        attrs: { ...attrs, transposeA: false, transposeB: false },
      }) as TensorInfo;
      if (foldedShape === undefined) return out;
      const shaped = callKernel('Reshape', args, { x: out }, { shape: foldedShape });
      temporaries.push(out);
      return shaped;
    } finally {
      disposeTemporaries(args, temporaries);
    }
  };
}

/** The native GEMM addon, or an error saying why it is not there. */
function requireAddon(): NonNullable<ReturnType<typeof loadNativeGemm>> {
  const gemm = loadNativeGemm();
  if (gemm === undefined)
    throw new TradelabError(
      'BACKEND_UNAVAILABLE',
      `native GEMM not available: ${nativeGemmStatus().reason}`,
      { hint: 'use the xnnpack matmul path, or build the native GEMM as the message says' },
    );
  return gemm;
}

/** The native GEMM (on whichever kernel the addon runs) where it can, else {@link fastPath}. */
function nativePath(original: KernelConfig): KernelFunc {
  const gemm = requireAddon();
  const fallback = fastPath(original);
  return (args) => {
    const out = nativeMatMul(gemm, args);
    if (out === undefined) return fallback(args);
    counts.native++;
    return out;
  };
}

/**
 * Makes the wasm backend's BatchMatMul and _FusedMatMul take `path` (see {@link WasmMatMulPath}).
 * Call it after importing `@tensorflow/tfjs-backend-wasm`; `native` throws when the native GEMM
 * is not available, `blas` when there is no system BLAS either.
 */
export function setWasmMatMulPath(path: WasmMatMulPath): void {
  if (path === 'native' || path === 'blas') {
    requireAddon();
    useNativeKernel(path === 'native' ? 'own' : 'blas');
  }
  const usesAddon = (p: WasmMatMulPath): boolean => p === 'native' || p === 'blas';
  if (path === current || (usesAddon(path) && usesAddon(current))) {
    current = path;
    return;
  }
  for (const name of ['BatchMatMul', '_FusedMatMul']) {
    // getKernel's type says always found; a tfjs without the kernel returns undefined.
    const registered = getKernel(name, 'wasm') as KernelConfig | undefined;
    const original = originals.get(name) ?? registered;
    if (original === undefined) continue;
    originals.set(name, original);
    const kernelFunc =
      path === 'stock'
        ? original.kernelFunc
        : path === 'xnnpack'
          ? fastPath(original)
          : nativePath(original);
    unregisterKernel(name, 'wasm');
    registerKernel({ ...original, kernelFunc });
  }
  current = path;
}

/** Puts the `xnnpack` path in place (see {@link setWasmMatMulPath}). */
export function installWasmMatMul(): void {
  setWasmMatMulPath('xnnpack');
}

/** Puts the backend's own kernels back (to measure what the overrides gain). */
export function uninstallWasmMatMul(): void {
  setWasmMatMulPath('stock');
}
