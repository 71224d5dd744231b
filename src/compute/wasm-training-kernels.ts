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

/*
 * Three wasm kernels that backpropagation through dense layers spends more time in than it
 * should (tfjs-backend-wasm 4.22, measured on a PPO update with the native GEMM):
 *
 * - Sum over the leading axes (every bias gradient: [batch, units] → [units]) transposes the whole
 *   input first, then reduces rows: ~35 ms for 4096×512. As a product ones[1, rows] · x[rows, cols]
 *   it is one pass over x on the active matmul path: ~1–2 ms.
 * - Identity (the tape's clones) and Cast to the same dtype (the ReLU gradient's step mask) copy
 *   their input; the cpu and webgl backends share the data instead, and so do these.
 */

/** A kernel's arguments, as the wasm kernels receive them. */
type KernelArgs = Parameters<KernelFunc>[0];

/** The parts of tfjs-backend-wasm's BackendWasm used here; not in its public types. */
interface WasmBackendInternals {
  incRef(dataId: object): void;
  disposeData(dataId: object): boolean;
  makeOutput(shape: number[], dtype: 'float32'): TensorInfo;
  typedArrayFromHeap(t: TensorInfo): Float32Array;
}

/** How often each override did the work itself (rather than leaving it to the original). */
export interface TrainingKernelCounts {
  /** Sums over leading axes done as a product. */
  sumAsProduct: number;
  /** Identity and same-dtype Cast calls that shared their input's data. */
  shared: number;
}

const counts: TrainingKernelCounts = { sumAsProduct: 0, shared: 0 };
const originals = new Map<string, KernelConfig>();

/** How many calls each override handled since the process started. */
export function trainingKernelCounts(): Readonly<TrainingKernelCounts> {
  return { ...counts };
}

/** Whether {@link installWasmTrainingKernels} is in effect. */
export function wasmTrainingKernelsInstalled(): boolean {
  return originals.size > 0;
}

function kernel(name: string): KernelConfig {
  const config = getKernel(name, 'wasm') as KernelConfig | undefined;
  if (config === undefined)
    throw new TradelabError('BACKEND_UNAVAILABLE', `the wasm backend has no ${name} kernel`, {
      hint: 'check @tensorflow/tfjs-backend-wasm matches @tensorflow/tfjs (same version)',
    });
  return config;
}

/** The input itself under a new tensor handle, its data shared (reference-counted). */
function share(args: KernelArgs): TensorInfo {
  const x = (args.inputs as { x: TensorInfo }).x;
  (args.backend as unknown as WasmBackendInternals).incRef(x.dataId);
  counts.shared++;
  return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
}

/** How many leading axes `axis` reduces (0 when it is not a run of leading axes). */
function leadingAxes(axis: unknown, rank: number): number {
  const list = (Array.isArray(axis) ? axis : [axis]) as unknown[];
  if (!list.every((a): a is number => typeof a === 'number' && Number.isInteger(a))) return 0;
  const sorted = [...new Set(list.map((a) => (a < 0 ? a + rank : a)))].sort((p, q) => p - q);
  return sorted.every((a, i) => a === i) ? sorted.length : 0;
}

/** Sum over the leading axes as ones · x; undefined for any other reduction. */
function sumAsProduct(args: KernelArgs): TensorInfo | undefined {
  const x = (args.inputs as { x: TensorInfo }).x;
  const { axis, keepDims } = args.attrs as { axis: number | number[]; keepDims: boolean };
  const rank = x.shape.length;
  const r = leadingAxes(axis, rank);
  // All axes (a full sum) is already a plain inner reduction: the original does it well.
  if (x.dtype !== 'float32' || r === 0 || r >= rank) return undefined;
  const rows = x.shape.slice(0, r).reduce((p, d) => p * d, 1);
  const kept = x.shape.slice(r);
  const cols = kept.reduce((p, d) => p * d, 1);
  if (rows * cols === 0) return undefined;

  const backend = args.backend as unknown as WasmBackendInternals;
  const call = (
    name: string,
    inputs: Record<string, TensorInfo>,
    attrs: NamedAttrMap,
  ): TensorInfo => kernel(name).kernelFunc({ backend: args.backend, inputs, attrs }) as TensorInfo;
  const ones = backend.makeOutput([1, rows], 'float32');
  backend.typedArrayFromHeap(ones).fill(1);
  const matrix = call('Reshape', { x }, { shape: [rows, cols] });
  let sum: TensorInfo | undefined;
  try {
    sum = call('BatchMatMul', { a: ones, b: matrix }, { transposeA: false, transposeB: false });
    const shape = keepDims ? [...Array<number>(r).fill(1), ...kept] : kept;
    counts.sumAsProduct++;
    return call('Reshape', { x: sum }, { shape });
  } finally {
    for (const t of [ones, matrix, sum]) if (t !== undefined) backend.disposeData(t.dataId);
  }
}

/**
 * Replaces the wasm backend's Sum, Identity and Cast with the versions above (once; later calls
 * do nothing). Call it after importing `@tensorflow/tfjs-backend-wasm`.
 */
export function installWasmTrainingKernels(): void {
  if (originals.size > 0) return;
  const overrides: Record<string, (original: KernelConfig) => KernelFunc> = {
    Sum: (original) => (args) => sumAsProduct(args) ?? original.kernelFunc(args),
    Identity: (original) => (args) =>
      (args.inputs as { x: TensorInfo }).x.dtype === 'string'
        ? original.kernelFunc(args)
        : share(args),
    Cast: (original) => (args) =>
      (args.attrs as { dtype: string }).dtype === (args.inputs as { x: TensorInfo }).x.dtype &&
      (args.inputs as { x: TensorInfo }).x.dtype !== 'string'
        ? share(args)
        : original.kernelFunc(args),
  };
  for (const [name, wrap] of Object.entries(overrides)) {
    const original = kernel(name);
    originals.set(name, original);
    unregisterKernel(name, 'wasm');
    registerKernel({ ...original, kernelFunc: wrap(original) });
  }
}

/** Puts the backend's own Sum, Identity and Cast back (to measure what the overrides gain). */
export function uninstallWasmTrainingKernels(): void {
  for (const [name, original] of originals) {
    unregisterKernel(name, 'wasm');
    registerKernel(original);
  }
  originals.clear();
}
