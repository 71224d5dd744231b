/*
 * Counts what any WebGPU user in this process asks of Dawn — kernel dispatches, bytes written to
 * the device, bytes mapped back — by wrapping the methods on the `webgpu` package's classes. It
 * measures tfjs's webgpu backend and tradelab's engine with one meter, so their dispatches and
 * host↔device traffic per update can stand side by side in a benchmark.
 */

/** What was asked of the device since the meter started (or was last taken). */
export interface GpuCallCounts {
  dispatches: number;
  submits: number;
  uploadBytes: number;
  downloadBytes: number;
}

/** A running meter. */
export interface GpuCallMeter {
  /** The counts so far, then zeroed. */
  take(): GpuCallCounts;
  /** Puts the original methods back. */
  stop(): void;
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

const MAP_READ = 0x1;

/** Starts counting (the `webgpu` package must be installed). */
export async function startGpuCallMeter(): Promise<GpuCallMeter> {
  const name = 'webgpu';
  const { globals } = (await import(name)) as {
    globals: Record<string, { prototype: Record<string, Method> }>;
  };
  let counts: GpuCallCounts = { dispatches: 0, submits: 0, uploadBytes: 0, downloadBytes: 0 };
  const restore: (() => void)[] = [];
  const wrap = (
    className: string,
    method: string,
    count: (self: unknown, args: unknown[], result: unknown) => void,
  ): void => {
    const prototype = globals[className]?.prototype;
    const original = prototype?.[method];
    if (prototype === undefined || original === undefined) return;
    prototype[method] = function (this: unknown, ...args: unknown[]): unknown {
      const result = original.apply(this, args);
      count(this, args, result);
      return result;
    };
    restore.push(() => {
      prototype[method] = original;
    });
  };
  wrap('GPUComputePassEncoder', 'dispatchWorkgroups', () => {
    counts.dispatches++;
  });
  wrap('GPUComputePassEncoder', 'dispatchWorkgroupsIndirect', () => {
    counts.dispatches++;
  });
  wrap('GPUQueue', 'submit', () => {
    counts.submits++;
  });
  wrap('GPUQueue', 'writeBuffer', (_self, args) => {
    const data = args[2] as ArrayBuffer | ArrayBufferView;
    const element = ArrayBuffer.isView(data)
      ? ((data as Partial<Float32Array>).BYTES_PER_ELEMENT ?? 1)
      : 1;
    const size = args[4] as number | undefined;
    const offset = (args[3] as number | undefined) ?? 0;
    counts.uploadBytes += size !== undefined ? size * element : data.byteLength - offset * element;
  });
  wrap('GPUBuffer', 'getMappedRange', (self, _args, result) => {
    const bytes = (result as ArrayBuffer).byteLength;
    if (((self as GPUBuffer).usage & MAP_READ) !== 0) counts.downloadBytes += bytes;
    else counts.uploadBytes += bytes;
  });
  return {
    take() {
      const taken = counts;
      counts = { dispatches: 0, submits: 0, uploadBytes: 0, downloadBytes: 0 };
      return taken;
    },
    stop() {
      for (const undo of restore) undo();
    },
  };
}
