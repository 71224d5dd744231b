import { encodeDispatches, type Dispatch, type MinibatchBinding } from './dispatch.js';
import { BufferUsage, type GpuDevice } from './gpu-device.js';

/*
 * Where a program's GPU time goes: each dispatch in a compute pass of its own, with the device's
 * timestamps at the pass's beginning and end, summed by kernel. A pass per dispatch costs a little
 * more than the program's single pass, so the split says where the time goes and how big each
 * kernel is, and the total is near, not equal to, the program's.
 */

/** GPU time of one kernel over a profiled run. */
export interface KernelTime {
  /** The kernel's label, e.g. "gemm tn none ones". */
  kernel: string;
  dispatches: number;
  seconds: number;
}

/**
 * Runs `dispatches` once, each timed, and returns the time per kernel in first-seen order;
 * undefined where the device has no timestamp queries.
 */
export async function profileDispatches(
  gpu: GpuDevice,
  dispatches: readonly Dispatch[],
  minibatch?: MinibatchBinding,
): Promise<KernelTime[] | undefined> {
  if (!gpu.has('timestamp-query') || dispatches.length === 0) return undefined;
  const count = 2 * dispatches.length;
  const querySet = gpu.device.createQuerySet({ type: 'timestamp', count });
  const resolved = gpu.device.createBuffer({
    label: 'kernel timestamps',
    size: count * 8,
    usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
  });
  try {
    const encoder = gpu.device.createCommandEncoder({ label: 'kernel profile' });
    dispatches.forEach((dispatch, i) => {
      const pass = encoder.beginComputePass({
        timestampWrites: {
          querySet,
          beginningOfPassWriteIndex: 2 * i,
          endOfPassWriteIndex: 2 * i + 1,
        },
      });
      encodeDispatches(pass, [dispatch], minibatch);
      pass.end();
    });
    encoder.resolveQuerySet(querySet, 0, count, resolved, 0);
    gpu.submit(encoder, dispatches.length);
    const stamps = new BigUint64Array(await gpu.read(resolved, 0, count * 8));
    const byKernel = new Map<string, KernelTime>();
    dispatches.forEach((dispatch, i) => {
      const label = dispatch.kernel.spec.label;
      const seconds = Number((stamps[2 * i + 1] ?? 0n) - (stamps[2 * i] ?? 0n)) / 1e9;
      const entry = byKernel.get(label) ?? { kernel: label, dispatches: 0, seconds: 0 };
      entry.dispatches++;
      entry.seconds += seconds;
      byKernel.set(label, entry);
    });
    return [...byKernel.values()];
  } finally {
    querySet.destroy();
    resolved.destroy();
  }
}
