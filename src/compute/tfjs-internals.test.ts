import * as tf from './tfjs.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from './backends.js';
import { installWebGpuGlobals, missingWebGpuPackages } from './webgpu-adapter.js';

/*
 * The TensorFlow.js internals our kernels reach into, each by name with the shape we rely on: a
 * tfjs upgrade that renames, moves or changes one fails here, not in a training run. Who uses what:
 *   BackendWasm.dataIdMap.get(dataId).memoryOffset  native-matmul.ts (a byte offset into the heap)
 *   BackendWasm.wasm.HEAPF32                        native-matmul.ts (the heap the addon writes)
 *   BackendWasm.wasm.HEAPU8                         memory-report.ts (the heap's size)
 *   BackendWasm.makeOutput(shape, dtype)            native-matmul.ts, wasm-training-kernels.ts
 *   BackendWasm.typedArrayFromHeap(tensorInfo)      wasm-training-kernels.ts
 *   BackendWasm.incRef / disposeData (refcounted)   wasm-training-kernels.ts, wasm-matmul.ts
 *   wasm kernels BatchMatMul, _FusedMatMul, Transpose, Reshape, Sum, Identity, Cast
 *                                                    wasm-matmul.ts, wasm-training-kernels.ts
 *   broadcast_util.assertAndGetBroadcastShape       native-matmul.ts
 *   webgpu kernel AddN, WebGPUBackend.disposeData   webgpu-kernels.ts
 * package.json pins these packages to one exact version for the same reason.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TFJS_PACKAGES = [
  '@tensorflow/tfjs',
  '@tensorflow/tfjs-backend-wasm',
  '@tensorflow/tfjs-backend-webgpu',
] as const;

/** What we read of tfjs-backend-wasm's BackendWasm. */
interface BackendWasmInternals {
  dataIdMap: {
    get(dataId: object): { memoryOffset: number; refCount: number } | undefined;
    has(dataId: object): boolean;
  };
  wasm: { HEAPF32: Float32Array; HEAPU8: Uint8Array };
  makeOutput(shape: number[], dtype: 'float32'): tf.TensorInfo;
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array;
  incRef(dataId: object): void;
  disposeData(dataId: object): boolean;
}

let backend: BackendWasmInternals;

beforeAll(async () => {
  await useBackend('wasm');
  backend = tf.backend() as unknown as BackendWasmInternals;
});

describe('the tfjs version', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    optionalDependencies: Record<string, string>;
  };
  const wanted = (name: string): string | undefined =>
    manifest.dependencies[name] ?? manifest.optionalDependencies[name];

  it('is pinned exactly, one version for every tfjs package', () => {
    const versions = TFJS_PACKAGES.map(wanted);
    for (const version of versions) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(new Set(versions).size).toBe(1);
  });

  it('is the version installed', () => {
    const require = createRequire(join(ROOT, 'package.json'));
    for (const name of TFJS_PACKAGES) {
      const path = require.resolve(`${name}/package.json`);
      const installed = (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
      expect(`${name}@${installed}`).toBe(`${name}@${wanted(name) ?? ''}`);
    }
  });
});

describe('tfjs-backend-wasm internals', () => {
  it('dataIdMap.get(dataId).memoryOffset is the byte offset of a tensor in wasm.HEAPF32', () => {
    const t = tf.tensor1d([1.5, -2.25, 3.125]);
    const data = backend.dataIdMap.get(t.dataId);
    expect(typeof data?.memoryOffset).toBe('number');
    expect(backend.wasm.HEAPF32).toBeInstanceOf(Float32Array);
    const at = (data?.memoryOffset ?? 0) / Float32Array.BYTES_PER_ELEMENT;
    expect([...backend.wasm.HEAPF32.subarray(at, at + 3)]).toEqual([1.5, -2.25, 3.125]);
    t.dispose();
  });

  it('wasm.HEAPU8 views the same heap as HEAPF32', () => {
    expect(backend.wasm.HEAPU8).toBeInstanceOf(Uint8Array);
    expect(backend.wasm.HEAPU8.buffer).toBe(backend.wasm.HEAPF32.buffer);
    expect(backend.wasm.HEAPU8.byteLength).toBeGreaterThan(0);
  });

  it('makeOutput(shape, dtype) allocates a tensor on the heap; typedArrayFromHeap views it', () => {
    const out = backend.makeOutput([2, 3], 'float32');
    expect(out.shape).toEqual([2, 3]);
    expect(out.dtype).toBe('float32');
    const view = backend.typedArrayFromHeap(out);
    expect(view).toBeInstanceOf(Float32Array);
    expect(view.length).toBe(6);
    view.set([1, 2, 3, 4, 5, 6]);
    const at = (backend.dataIdMap.get(out.dataId)?.memoryOffset ?? -1) / 4;
    expect([...backend.wasm.HEAPF32.subarray(at, at + 6)]).toEqual([1, 2, 3, 4, 5, 6]);
    // A kernel's output becomes a tensor the engine reads like any other.
    const tensor = tf.engine().makeTensorFromTensorInfo(out);
    expect(tensor.arraySync()).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    tensor.dispose();
  });

  it('incRef and disposeData count references: data is freed when the last one goes', () => {
    const out = backend.makeOutput([4], 'float32');
    backend.incRef(out.dataId);
    expect(backend.dataIdMap.get(out.dataId)?.refCount).toBe(2);
    expect(backend.disposeData(out.dataId)).toBe(false);
    expect(backend.dataIdMap.has(out.dataId)).toBe(true);
    expect(backend.disposeData(out.dataId)).toBe(true);
    expect(backend.dataIdMap.has(out.dataId)).toBe(false);
  });

  it('registers the kernels our overrides wrap and call', () => {
    for (const name of [
      'BatchMatMul',
      '_FusedMatMul',
      'Transpose',
      'Reshape',
      'Sum',
      'Identity',
      'Cast',
    ]) {
      const config = tf.getKernel(name, 'wasm') as tf.KernelConfig | undefined;
      expect(typeof config?.kernelFunc, name).toBe('function');
    }
  });

  it('exports broadcast_util.assertAndGetBroadcastShape', () => {
    expect(tf.broadcast_util.assertAndGetBroadcastShape([2, 1], [1, 3])).toEqual([2, 3]);
  });
});

describe('tfjs-backend-webgpu internals', () => {
  it('registers AddN, and its backend disposes data by dataId', async () => {
    // An optional dependency: absent, webgpu-kernels.ts never runs. The globals first, as
    // useBackend does: imported without navigator.gpu the package skips registering its backend
    // for the rest of the process, and the webgpu tests after this file in a worker would fail.
    if (missingWebGpuPackages().length > 0) return;
    await installWebGpuGlobals();
    const webgpu = await import('@tensorflow/tfjs-backend-webgpu').catch(() => undefined);
    if (webgpu === undefined) return;
    const addN = tf.getKernel('AddN', 'webgpu') as tf.KernelConfig | undefined;
    expect(typeof addN?.kernelFunc).toBe('function');
    expect(typeof webgpu.WebGPUBackend.prototype.disposeData).toBe('function');
  });
});
