import { broadcast_util, type TensorInfo } from './tfjs.js';
import { GemmParams, type NativeGemmAddon } from './native-gemm.js';
import {
  elementCount,
  heapOffset,
  type KernelArgs,
  type WasmBackendInternals,
} from './wasm-heap.js';

/*
 * BatchMatMul and _FusedMatMul on the native GEMM: the addon reads and writes the wasm backend's
 * heap in place, so a product costs one call and no copies, whatever the transposes. What the addon cannot do (PReLU, leaky ReLU, sigmoid, ELU, a bias that is not
 * per column, batch shapes that broadcast on both sides) is left to the caller's fallback.
 */

/** The activation codes of native/gemm/gemm.c. */
const ACTIVATIONS: Readonly<Record<string, number>> = { linear: 0, relu: 1, relu6: 2 };

/** One parameter block, reused by every call (products run one at a time). */
const params = new GemmParams();

const offsetOf = (backend: WasmBackendInternals, t: TensorInfo): number =>
  heapOffset(backend, t, 'a matmul');

/** The bias as the addon takes it (1 or n values), or undefined when it is shaped otherwise. */
function biasSize(bias: TensorInfo, n: number, outRank: number): number | undefined {
  if (bias.dtype !== 'float32' || bias.shape.length > outRank) return undefined;
  const size = elementCount(bias.shape);
  if (size === 1) return 1;
  const last = bias.shape[bias.shape.length - 1];
  return last === n && size === n ? n : undefined;
}

/**
 * Runs one BatchMatMul or _FusedMatMul call (inputs `a`, `b`, and fused `bias`,
 * `preluActivationWeights`) on `gemm`; undefined when the call needs something it cannot do.
 */
export function nativeMatMul(gemm: NativeGemmAddon, args: KernelArgs): TensorInfo | undefined {
  const { inputs, attrs } = args;
  // tfjs passes absent optional inputs as undefined or null.
  const { a, b, bias, preluActivationWeights } = inputs as Record<
    string,
    TensorInfo | null | undefined
  >;
  if (a == null || b == null) return undefined;
  if (a.dtype !== 'float32' || b.dtype !== 'float32') return undefined;
  if (a.shape.length < 2 || b.shape.length < 2) return undefined;
  if (preluActivationWeights != null) return undefined;
  const activation = ACTIVATIONS[(attrs?.activation as string | undefined) ?? 'linear'];
  if (activation === undefined) return undefined;

  const transposeA = attrs?.transposeA === true;
  const transposeB = attrs?.transposeB === true;
  const [a0, a1] = a.shape.slice(-2) as [number, number];
  const [b0, b1] = b.shape.slice(-2) as [number, number];
  const m = transposeA ? a1 : a0;
  const k = transposeA ? a0 : a1;
  const n = transposeB ? b0 : b1;
  if ((transposeB ? b1 : b0) !== k) return undefined; // let the backend raise its own error

  const dimsA = a.shape.slice(0, -2);
  const dimsB = b.shape.slice(0, -2);
  const outer = broadcast_util.assertAndGetBroadcastShape(dimsA, dimsB);
  const batch = elementCount(outer);
  const batchA = elementCount(dimsA);
  const batchB = elementCount(dimsB);
  // One side broadcast whole, or both the same batch; [2,1,…]×[1,3,…] needs index arithmetic.
  if ((batchA !== batch && batchA !== 1) || (batchB !== batch && batchB !== 1)) return undefined;

  const outShape = [...outer, m, n];
  let biasValues = 0;
  if (bias != null) {
    const size = biasSize(bias, n, outShape.length);
    if (size === undefined) return undefined;
    biasValues = size;
  }

  const backend = args.backend as unknown as WasmBackendInternals;
  const out = backend.makeOutput(outShape, 'float32');
  if (batch * m * n === 0) return out;
  gemm.gemm(
    backend.wasm.HEAPF32,
    params.set({
      batch,
      transA: transposeA ? 1 : 0,
      transB: transposeB ? 1 : 0,
      m,
      n,
      k,
      aOffset: offsetOf(backend, a),
      aStride: batchA === 1 ? 0 : m * k,
      lda: 0,
      bOffset: offsetOf(backend, b),
      bStride: batchB === 1 ? 0 : k * n,
      ldb: 0,
      cOffset: offsetOf(backend, out),
      cStride: 0,
      ldc: 0,
      biasOffset: bias == null ? -1 : offsetOf(backend, bias),
      biasSize: biasValues,
      activation,
      accumulate: 0,
    }),
  );
  return out;
}
