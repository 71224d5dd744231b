import * as tf from './tfjs.js';

/*
 * What the running backend holds: tensors alive and their bytes (tfjs's own count), the backend's
 * heap (the wasm module's linear memory, which only grows), and the process's resident memory.
 * Benchmarks print it beside their figures; the planner's per-worker estimates are checked
 * against it.
 */

/** Memory of the running backend and process. */
export interface MemoryReport {
  backend: string;
  /** Tensors alive (a leak shows as a count that grows across updates). */
  tensors: number;
  /** Bytes of their data, as tfjs counts it. */
  tensorBytes: number;
  /** Distinct data buffers (tensors may share one). */
  dataBuffers: number;
  /** The wasm backend's linear memory (its high-water mark: it never shrinks); null elsewhere. */
  backendHeapBytes: number | null;
  /** Resident set size of the whole process. */
  rssBytes: number;
}

/** The memory report of the backend running now. */
export function memoryReport(): MemoryReport {
  const info = tf.memory();
  const backend = tf.getBackend();
  const wasm = (tf.backend() as { wasm?: { HEAPU8?: Uint8Array } }).wasm;
  return {
    backend,
    tensors: info.numTensors,
    tensorBytes: info.numBytes,
    dataBuffers: info.numDataBuffers,
    backendHeapBytes: wasm?.HEAPU8?.byteLength ?? null,
    rssBytes: process.memoryUsage.rss(),
  };
}
