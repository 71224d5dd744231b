import type { GpuDevice } from './gpu-device.js';
import { MINIBATCH_STRIDE, type Kernel } from './pipeline-cache.js';

/*
 * A recorded dispatch: a kernel, its buffers bound once, and its workgroup count as a function of
 * the minibatch's rows. A program is a list of them, encoded into one compute pass per update; the
 * bind groups are made when the program is built, never per call.
 */

/** Workgroups in x, y, z. */
export type Workgroups = readonly [number, number?, number?];

/** One kernel launch of a program. */
export interface Dispatch {
  kernel: Kernel;
  group: GPUBindGroup;
  /** Workgroups for a minibatch of `rows` rows (a kernel that does not depend on it ignores it). */
  workgroups: (rows: number) => Workgroups;
}

/** Binds `buffers` (whole) to `kernel`'s group 0, in the order of its bindings. */
export function bindBuffers(
  gpu: GpuDevice,
  kernel: Kernel,
  buffers: readonly GPUBuffer[],
): GPUBindGroup {
  if (buffers.length !== kernel.spec.bindings.length)
    throw new Error(
      `${kernel.spec.label}: ${buffers.length} buffers for ${kernel.spec.bindings.length} bindings`,
    );
  return gpu.device.createBindGroup({
    label: kernel.spec.label,
    layout: kernel.group0,
    entries: buffers.map((buffer, binding) => ({ binding, resource: { buffer } })),
  });
}

/** A dispatch of `kernel` on `buffers`. */
export function dispatchOf(
  gpu: GpuDevice,
  kernel: Kernel,
  buffers: readonly GPUBuffer[],
  workgroups: Workgroups | ((rows: number) => Workgroups),
): Dispatch {
  return {
    kernel,
    group: bindBuffers(gpu, kernel, buffers),
    workgroups: typeof workgroups === 'function' ? workgroups : () => workgroups,
  };
}

/** The minibatch a run of dispatches works on: group 1 and the slot in its buffer. */
export interface MinibatchBinding {
  group: GPUBindGroup;
  slot: number;
  rows: number;
}

/** Encodes `dispatches` into `pass`; returns how many it encoded (empty grids are skipped). */
export function encodeDispatches(
  pass: GPUComputePassEncoder,
  dispatches: readonly Dispatch[],
  minibatch?: MinibatchBinding,
): number {
  let count = 0;
  for (const d of dispatches) {
    const [x, y = 1, z = 1] = d.workgroups(minibatch?.rows ?? 0);
    if (x === 0 || y === 0 || z === 0) continue;
    pass.setPipeline(d.kernel.pipeline);
    pass.setBindGroup(0, d.group);
    if (d.kernel.spec.perMinibatch) {
      if (minibatch === undefined)
        throw new Error(`${d.kernel.spec.label} works on a minibatch; none was given`);
      pass.setBindGroup(1, minibatch.group, [minibatch.slot * MINIBATCH_STRIDE]);
    }
    pass.dispatchWorkgroups(x, y, z);
    count++;
  }
  return count;
}

/** Runs `dispatches` now, in one command buffer. */
export function runDispatches(
  gpu: GpuDevice,
  dispatches: readonly Dispatch[],
  minibatch?: MinibatchBinding,
): void {
  const encoder = gpu.device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  const count = encodeDispatches(pass, dispatches, minibatch);
  pass.end();
  gpu.submit(encoder, count);
}

/** A buffer holding `words` (a kernel's uniform), made and filled now. */
export function uniformOf(
  gpu: GpuDevice,
  words: Uint32Array | Float32Array,
  label: string,
): GPUBuffer {
  const buffer = gpu.uniformBuffer(words.byteLength, label);
  gpu.write(buffer, 0, words);
  return buffer;
}

/** A storage buffer holding `values`, made and filled now. */
export function storageOf(
  gpu: GpuDevice,
  values: Float32Array | Uint32Array | Int32Array,
  label: string,
): GPUBuffer {
  const buffer = gpu.storageBuffer(values.byteLength, label);
  gpu.write(buffer, 0, values);
  return buffer;
}
