import { TradelabError } from '../core/index.js';
import { dawnFlags } from './dawn-flags.js';
import { PipelineCache } from './pipeline-cache.js';

/*
 * tradelab's GPU engine starts here: an adapter and a device from the `webgpu` package (Dawn:
 * Vulkan, Metal or D3D12), with the features and limits the kernels use asked for by name. The
 * package is an optional dependency, imported by a name held in a variable so the build needs only
 * its types (@webgpu/types). What a kernel may use is decided here once: f16 arithmetic, subgroups,
 * subgroup matrices (tensor cores), timestamps; a feature the adapter lacks is simply not asked for,
 * and the kernels that would use it keep their f32 path.
 */

/** What the `webgpu` package exports. */
interface WebGpuPackage {
  create(flags: string[]): GPU;
}

/** The features the engine asks for whenever the adapter offers them. */
const WANTED_FEATURES = [
  'timestamp-query',
  'shader-f16',
  'subgroups',
  'chromium-experimental-subgroup-matrix',
] as const;

/** A feature the engine may use. */
export type GpuFeature = (typeof WANTED_FEATURES)[number];

/** The limits the kernels need raised from WebGPU's defaults: the adapter's maximum is asked for. */
const WANTED_LIMITS = [
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxStorageBufferBindingSize',
  'maxBufferSize',
] as const;

/** The adapter a {@link GpuDevice} runs on. */
export interface GpuAdapterSummary {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** A CPU implementation (lavapipe, SwiftShader, WARP): correct, but no speed to measure. */
  software: boolean;
}

/** Options for {@link openGpuDevice}. */
export interface OpenGpuDeviceOptions {
  /** Features not to ask for even when offered (to test the fallback paths). Default none. */
  withoutFeatures?: readonly GpuFeature[];
}

/** Host↔device traffic and work submitted, counted since the device opened or {@link GpuDevice.takeCounts}. */
export interface GpuCounts {
  dispatches: number;
  submits: number;
  uploadBytes: number;
  downloadBytes: number;
  reads: number;
}

const SOFTWARE_ADAPTER = /llvmpipe|lavapipe|swiftshader|software|microsoft basic render|warp/i;

/** The GPUBufferUsage and GPUMapMode flags (fixed by the WebGPU spec; Node has no such globals). */
export const BufferUsage = {
  MAP_READ: 0x1,
  COPY_SRC: 0x4,
  COPY_DST: 0x8,
  UNIFORM: 0x40,
  STORAGE: 0x80,
  QUERY_RESOLVE: 0x200,
} as const;
const MAP_MODE_READ = 0x1;

/** An open device with its pipeline cache and counters. Destroy it when done. */
export class GpuDevice {
  readonly pipelines: PipelineCache;
  private counts: GpuCounts = emptyCounts();
  private allocated = 0;
  private lost: string | undefined;
  private readonly errors: string[] = [];

  constructor(
    readonly device: GPUDevice,
    readonly adapter: GpuAdapterSummary,
    readonly features: ReadonlySet<GpuFeature>,
  ) {
    this.pipelines = new PipelineCache(device);
    void device.lost.then((info) => {
      if (info.reason !== 'destroyed') this.lost = info.message;
    });
    device.onuncapturederror = (event) => {
      this.errors.push(event.error.message);
    };
  }

  /** Whether the device has `feature` enabled. */
  has(feature: GpuFeature): boolean {
    return this.features.has(feature);
  }

  /** A storage buffer of `bytes` (rounded up to 16), readable and writable by kernels and copies. */
  storageBuffer(bytes: number, label: string): GPUBuffer {
    return this.buffer(
      bytes,
      label,
      BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST,
    );
  }

  /** A uniform buffer of `bytes` (rounded up to 16). */
  uniformBuffer(bytes: number, label: string): GPUBuffer {
    return this.buffer(bytes, label, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
  }

  /** A buffer of `bytes` (rounded up to 16, at least 16), counted in {@link allocatedBytes}. */
  buffer(bytes: number, label: string, usage: number): GPUBuffer {
    const size = Math.max(16, Math.ceil(bytes / 16) * 16);
    this.allocated += size;
    return this.device.createBuffer({ label, size, usage });
  }

  /**
   * Bytes of every buffer made through this device's methods (not the short-lived read staging):
   * what a program holds in GPU memory, the figure the planner's terms are checked against.
   */
  get allocatedBytes(): number {
    return this.allocated;
  }

  /** Writes `data` into `buffer` at `byteOffset` (queued before the next submit). */
  write(buffer: GPUBuffer, byteOffset: number, data: ArrayBufferView): void {
    this.device.queue.writeBuffer(
      buffer,
      byteOffset,
      data.buffer,
      data.byteOffset,
      data.byteLength,
    );
    this.counts.uploadBytes += data.byteLength;
  }

  /** Submits `encoder`'s commands, with the dispatches they hold counted. */
  submit(encoder: GPUCommandEncoder, dispatches: number): void {
    this.device.queue.submit([encoder.finish()]);
    this.counts.submits++;
    this.counts.dispatches += dispatches;
  }

  /** Reads `bytes` of `buffer` from `byteOffset` back to the host, after all work submitted. */
  async read(buffer: GPUBuffer, byteOffset: number, bytes: number): Promise<ArrayBuffer> {
    const size = Math.ceil(bytes / 4) * 4;
    const staging = this.device.createBuffer({
      label: 'read staging',
      size,
      usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST,
    });
    try {
      const encoder = this.device.createCommandEncoder();
      encoder.copyBufferToBuffer(buffer, byteOffset, staging, 0, size);
      this.device.queue.submit([encoder.finish()]);
      await staging.mapAsync(MAP_MODE_READ);
      this.check();
      const copy = staging.getMappedRange().slice(0, bytes);
      staging.unmap();
      this.counts.downloadBytes += bytes;
      this.counts.reads++;
      return copy;
    } finally {
      staging.destroy();
    }
  }

  /** {@link read} as float32 values. */
  async readFloats(buffer: GPUBuffer, offset = 0, length?: number): Promise<Float32Array> {
    const count = length ?? (buffer.size - offset * 4) / 4;
    return new Float32Array(await this.read(buffer, offset * 4, count * 4));
  }

  /** Throws the first error the device reported (a kernel's validation error, a lost device). */
  check(): void {
    if (this.lost !== undefined)
      throw new TradelabError('BACKEND_UNAVAILABLE', `the GPU device was lost: ${this.lost}`, {
        hint: 'run again; if it repeats, run `tradelab backends` and check the GPU driver',
      });
    const first = this.errors.shift();
    if (first !== undefined)
      throw new TradelabError('INTERNAL', `a GPU kernel was refused: ${first}`, {
        hint: 'this is a bug in tradelab; run again with --backend wasm and report it',
      });
  }

  /** The counts since the last call (or since the device opened), then zeroed. */
  takeCounts(): GpuCounts {
    const counts = this.counts;
    this.counts = emptyCounts();
    return counts;
  }

  /** Releases the device and everything made on it. */
  destroy(): void {
    this.device.destroy();
  }
}

function emptyCounts(): GpuCounts {
  return { dispatches: 0, submits: 0, uploadBytes: 0, downloadBytes: 0, reads: 0 };
}

/**
 * The process's one Dawn instance. It must stay referenced while any device made from it lives:
 * once garbage-collected, Dawn frees what its devices use and the next readback crashes the
 * process (SIGSEGV or std::system_error on lavapipe).
 */
let instance: GPU | undefined;

/** Dawn's instance, from the optional `webgpu` package loaded once, or says how to get it. */
async function dawnInstance(): Promise<GPU> {
  if (instance !== undefined) return instance;
  const name = 'webgpu';
  try {
    const webgpu = (await import(name)) as WebGpuPackage;
    instance = webgpu.create(dawnFlags());
    return instance;
  } catch (error) {
    throw new TradelabError(
      'BACKEND_UNAVAILABLE',
      `the GPU engine needs the optional package webgpu, which did not load: ${(error as Error).message}`,
      { hint: 'run npm ci (it installs optional dependencies) or use --backend wasm' },
    );
  }
}

/** Opens the high-performance adapter's device with the engine's features and limits. */
export async function openGpuDevice(options: OpenGpuDeviceOptions = {}): Promise<GpuDevice> {
  if (process.env.TRADELAB_WEBGPU_ADAPTER === 'none')
    throw new TradelabError(
      'BACKEND_UNAVAILABLE',
      'no GPU adapter: TRADELAB_WEBGPU_ADAPTER=none says to act as if there were none',
      { hint: 'unset TRADELAB_WEBGPU_ADAPTER, or use --backend wasm' },
    );
  const gpu = await dawnInstance();
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (adapter === null)
    throw new TradelabError('BACKEND_UNAVAILABLE', 'Dawn found no GPU adapter here', {
      hint: 'run `tradelab backends` to see why (no Vulkan driver?), or use --backend wasm',
    });
  const skipped = new Set(options.withoutFeatures ?? []);
  const features = WANTED_FEATURES.filter((f) => adapter.features.has(f) && !skipped.has(f));
  const requiredLimits: Record<string, number> = {};
  for (const name of WANTED_LIMITS) requiredLimits[name] = adapter.limits[name];
  const device = await adapter.requestDevice({
    label: 'tradelab gpu engine',
    requiredFeatures: features as GPUFeatureName[],
    requiredLimits,
  });
  const info = adapter.info;
  const summary = {
    vendor: info.vendor,
    architecture: info.architecture,
    device: info.device,
    description: info.description,
  };
  return new GpuDevice(
    device,
    {
      ...summary,
      software:
        info.isFallbackAdapter ||
        SOFTWARE_ADAPTER.test(`${summary.architecture} ${summary.device} ${summary.description}`),
    },
    new Set(features),
  );
}
