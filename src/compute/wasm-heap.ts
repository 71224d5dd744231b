import type { KernelFunc, TensorInfo } from './tfjs.js';

/*
 * What the native kernels (products, fused training kernels, transformer kernels) need of the wasm
 * backend to run in place on its heap: a tensor's offset there, and new outputs.
 */

/** A kernel's arguments, as the wasm kernels receive them. */
export type KernelArgs = Parameters<KernelFunc>[0];

/** The parts of tfjs-backend-wasm's BackendWasm (4.x) used here; not in its public types. */
export interface WasmBackendInternals {
  dataIdMap: { get(dataId: object): { memoryOffset: number } | undefined };
  makeOutput(shape: number[], dtype: 'float32'): TensorInfo;
  /** Releases a kernel's scratch output (one it made and does not return). */
  disposeData(dataId: object): boolean;
  /** Emscripten replaces this view when the memory grows: read it after every allocation. */
  wasm: { HEAPF32: Float32Array };
}

/** Element offset of a float32 tensor in the wasm heap; `kernel` names the caller in the error. */
export function heapOffset(backend: WasmBackendInternals, t: TensorInfo, kernel: string): number {
  const data = backend.dataIdMap.get(t.dataId);
  if (data === undefined) throw new Error(`${kernel} input is not on the wasm backend`);
  return data.memoryOffset / Float32Array.BYTES_PER_ELEMENT;
}

/** The number of elements of a shape. */
export const elementCount = (dims: readonly number[]): number => dims.reduce((p, d) => p * d, 1);
