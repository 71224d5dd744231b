import type { GpuDevice } from './gpu-device.js';
import { BufferUsage } from './gpu-device.js';

/*
 * GPU time of a compute pass from timestamp queries (the `timestamp-query` feature): the device
 * writes a timestamp when the pass begins and when it ends, so the figure is the kernels' own time
 * on the card, without the host's submit and wait around it. Without the feature there is none,
 * and callers report wall-clock time alone.
 */

/** Measures passes' GPU time. Make one per measurement loop; destroy it when done. */
export class GpuPassTimer {
  private readonly querySet: GPUQuerySet;
  private readonly resolved: GPUBuffer;

  private constructor(private readonly gpu: GpuDevice) {
    this.querySet = gpu.device.createQuerySet({ type: 'timestamp', count: 2 });
    this.resolved = gpu.device.createBuffer({
      label: 'timestamps',
      size: 16,
      usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC,
    });
  }

  /** A timer, or undefined where the device has no timestamp queries. */
  static create(gpu: GpuDevice): GpuPassTimer | undefined {
    return gpu.has('timestamp-query') ? new GpuPassTimer(gpu) : undefined;
  }

  /** What `beginComputePass` takes so that this timer measures the pass. */
  get timestampWrites(): GPUComputePassTimestampWrites {
    return { querySet: this.querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 };
  }

  /** Records, after the timed pass in `encoder`, the copy of its timestamps. */
  resolve(encoder: GPUCommandEncoder): void {
    encoder.resolveQuerySet(this.querySet, 0, 2, this.resolved, 0);
  }

  /** Seconds between the pass's two timestamps (read after the encoder was submitted). */
  async seconds(): Promise<number> {
    const [begin, end] = new BigUint64Array(await this.gpu.read(this.resolved, 0, 16));
    return Number((end ?? 0n) - (begin ?? 0n)) / 1e9;
  }

  destroy(): void {
    this.querySet.destroy();
    this.resolved.destroy();
  }
}
