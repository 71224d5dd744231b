import { TradelabError } from '../core/index.js';

/*
 * Compute pipelines, made once per kernel source and kept. Layouts are explicit, not 'auto': every
 * kernel's group 0 holds its own buffers, and kernels that work on one minibatch read its row range
 * from group 1, one uniform buffer bound at a dynamic offset, so a whole update's minibatches share
 * one bind group per kernel and change only an offset between dispatches.
 */

/** How a kernel uses a binding of group 0. */
export type BindingKind = 'uniform' | 'read' | 'write';

/** A kernel: its WGSL, the kinds of its group-0 bindings in order, and whether it reads group 1. */
export interface KernelSpec {
  /** Names the kernel in errors and timings, e.g. "gemm nt relu 64x64". */
  label: string;
  code: string;
  bindings: readonly BindingKind[];
  /** Reads the minibatch's range from group 1 (binding 0, dynamic offset). */
  perMinibatch: boolean;
}

/** A pipeline with the layout of its group 0. */
export interface Kernel {
  spec: KernelSpec;
  pipeline: GPUComputePipeline;
  group0: GPUBindGroupLayout;
}

/** Bytes between two minibatches' ranges in the group-1 buffer (WebGPU's uniform offset alignment). */
export const MINIBATCH_STRIDE = 256;

const BUFFER_TYPE: Record<BindingKind, GPUBufferBindingType> = {
  uniform: 'uniform',
  read: 'read-only-storage',
  write: 'storage',
};

/** The pipelines of one device, by kernel source. */
export class PipelineCache {
  private readonly kernels = new Map<string, Kernel>();
  /** Group 1: the minibatch's range, one uniform buffer at a dynamic offset. */
  readonly rangeLayout: GPUBindGroupLayout;

  constructor(private readonly device: GPUDevice) {
    this.rangeLayout = device.createBindGroupLayout({
      label: 'minibatch range',
      entries: [
        {
          binding: 0,
          visibility: 0x4, // GPUShaderStage.COMPUTE
          buffer: { type: 'uniform', hasDynamicOffset: true },
        },
      ],
    });
  }

  /** The kernel for `spec`, compiled on first use; a WGSL error names the kernel and the line. */
  async kernel(spec: KernelSpec): Promise<Kernel> {
    const key = `${spec.bindings.join(',')}|${spec.perMinibatch}|${spec.code}`;
    const known = this.kernels.get(key);
    if (known !== undefined) return known;
    const module = this.device.createShaderModule({ label: spec.label, code: spec.code });
    const info = await module.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === 'error');
    if (errors.length > 0)
      throw new TradelabError(
        'INTERNAL',
        `GPU kernel "${spec.label}" does not compile: ${errors
          .map((m) => `line ${m.lineNum}:${m.linePos} ${m.message}`)
          .join('; ')}`,
        { hint: 'this is a bug in tradelab; use --backend wasm meanwhile and report it' },
      );
    const group0 = this.device.createBindGroupLayout({
      label: `${spec.label} buffers`,
      entries: spec.bindings.map((kind, binding) => ({
        binding,
        visibility: 0x4,
        buffer: { type: BUFFER_TYPE[kind] },
      })),
    });
    const layouts = spec.perMinibatch ? [group0, this.rangeLayout] : [group0];
    this.device.pushErrorScope('validation');
    const pipeline = await this.device.createComputePipelineAsync({
      label: spec.label,
      layout: this.device.createPipelineLayout({ bindGroupLayouts: layouts }),
      compute: { module, entryPoint: 'main' },
    });
    const refused = await this.device.popErrorScope();
    if (refused !== null)
      throw new TradelabError(
        'INTERNAL',
        `GPU kernel "${spec.label}" was refused: ${refused.message}`,
        {
          hint: 'this is a bug in tradelab; use --backend wasm meanwhile and report it',
        },
      );
    const kernel = { spec, pipeline, group0 };
    this.kernels.set(key, kernel);
    return kernel;
  }

  /** Kernels compiled so far. */
  get size(): number {
    return this.kernels.size;
  }
}
