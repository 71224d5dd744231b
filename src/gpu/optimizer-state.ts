import { dispatchOf, uniformOf, type Dispatch } from './dispatch.js';
import type { GpuDevice } from './gpu-device.js';
import {
  adamKernel,
  adamUniform,
  adamWorkgroups,
  clipScaleKernel,
  NORM_WORKGROUPS,
  sumOfSquaresKernel,
} from './kernels/adam.js';

/*
 * A program's parameters and Adam's state on the device, shared by every program that trains:
 * [weights | m | v] in one buffer, each section 256-byte aligned (a binding's offset must be), the
 * bias-correction products beside it, and the optimizer step on a gradient buffer as three
 * dispatches (sum of squares, clip scale with the products, Adam). The whole state is one upload
 * when training starts or resumes and one read when a checkpoint is written.
 */

/** Adam's state: the moments in the parameters' layout, and the bias-correction products. */
export interface AdamMoments {
  m: Float32Array;
  v: Float32Array;
  accBeta1: number;
  accBeta2: number;
}

/** The clip and Adam constants. */
export interface OptimizerConstants {
  maxGradNorm: number;
  beta1: number;
  beta2: number;
  epsilon: number;
}

/** Parameters, moments and products of `size` floats, and the step that updates them. */
export class OptimizerState {
  /** [weights | m | v]: kernels read the weights at offset 0. */
  readonly state: GPUBuffer;
  private readonly section: number;
  private readonly products: GPUBuffer;
  private readonly partials: GPUBuffer;
  private readonly scalars: GPUBuffer;
  private readonly adamParams: GPUBuffer;

  constructor(
    private readonly gpu: GpuDevice,
    readonly size: number,
    private readonly constants: OptimizerConstants,
    label: string,
  ) {
    this.section = Math.ceil(size / 64) * 64;
    this.state = gpu.storageBuffer(3 * this.section * 4, `${label} state`);
    this.products = gpu.storageBuffer(2 * 4, `${label} adam products`);
    this.partials = gpu.storageBuffer(NORM_WORKGROUPS * 4, `${label} gradient norm partials`);
    this.scalars = gpu.storageBuffer(4 * 4, `${label} clip scale and products`);
    this.adamParams = gpu.uniformBuffer(32, `${label} adam constants`);
  }

  /** The three dispatches of one optimizer step on the gradients in `grads`. */
  async stepDispatches(grads: GPUBuffer): Promise<Dispatch[]> {
    const { gpu, size, constants } = this;
    const view = (index: number): GPUBufferBinding => ({
      buffer: this.state,
      offset: index * this.section * 4,
      size: size * 4,
    });
    const adam = await gpu.pipelines.kernel(adamKernel());
    return [
      dispatchOf(
        gpu,
        await gpu.pipelines.kernel(sumOfSquaresKernel()),
        [uniformOf(gpu, Uint32Array.from([size]), 'gradient count'), grads, this.partials],
        [NORM_WORKGROUPS],
      ),
      dispatchOf(
        gpu,
        await gpu.pipelines.kernel(clipScaleKernel()),
        [
          uniformOf(
            gpu,
            Float32Array.from([constants.maxGradNorm, constants.beta1, constants.beta2]),
            'clip constants',
          ),
          this.partials,
          this.scalars,
          this.products,
        ],
        [1],
      ),
      // Adam reads the weights, m and v as three bindings of one buffer: views at their offsets.
      {
        kernel: adam,
        group: gpu.device.createBindGroup({
          label: 'adam',
          layout: adam.group0,
          entries: [
            { binding: 0, resource: { buffer: this.adamParams } },
            { binding: 1, resource: { buffer: grads } },
            { binding: 2, resource: { buffer: this.scalars } },
            { binding: 3, resource: view(0) },
            { binding: 4, resource: view(1) },
            { binding: 5, resource: view(2) },
          ],
        }),
        workgroups: () => adamWorkgroups(size),
      },
    ];
  }

  /** Adam's constants with the learning rate of the steps submitted next. */
  setLearningRate(learningRate: number): void {
    this.gpu.write(
      this.adamParams,
      0,
      new Uint8Array(adamUniform({ count: this.size, learningRate, ...this.constants })),
    );
  }

  /** Sets the parameters (flat). */
  writeParameters(values: Float32Array): void {
    this.gpu.write(this.state, 0, values);
  }

  /** Sets Adam's moments and products (a fresh optimizer: zeros and β₁, β₂). */
  writeMoments(moments: AdamMoments): void {
    this.gpu.write(this.state, this.section * 4, moments.m);
    this.gpu.write(this.state, 2 * this.section * 4, moments.v);
    this.gpu.write(this.products, 0, Float32Array.from([moments.accBeta1, moments.accBeta2]));
  }

  /** The parameters now (one read). */
  async readParameters(): Promise<Float32Array> {
    return this.gpu.readFloats(this.state, 0, this.size);
  }

  /** Adam's state now (one read of the moments, one of the products). */
  async readMoments(): Promise<AdamMoments> {
    const both = await this.gpu.readFloats(this.state, this.section, 2 * this.section);
    const products = await this.gpu.readFloats(this.products, 0, 2);
    return {
      m: both.slice(0, this.size),
      v: both.slice(this.section, this.section + this.size),
      accBeta1: products[0] as number,
      accBeta2: products[1] as number,
    };
  }
}
