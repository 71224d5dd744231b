import { TradelabError } from '../core/index.js';
import { dispatchOf, encodeDispatches, uniformOf, type Dispatch } from './dispatch.js';
import type { GpuDevice } from './gpu-device.js';
import { profileDispatches, type KernelTime } from './kernel-profile.js';
import { OptimizerState, type AdamMoments } from './optimizer-state.js';
import type { ParameterSlot } from './ppo-update-program.js';
import {
  gemmKernel,
  gemmUniform,
  gemmWorkgroups,
  type GemmCall,
  type GemmVariant,
} from './kernels/gemm.js';
import { mseLossKernel, mseUniform } from './kernels/mse-loss.js';
import {
  addKernel,
  addReluKernel,
  elementwiseUniform,
  elementwiseWorkgroups,
  reluMaskKernel,
} from './kernels/residual-relu.js';
import {
  poolingBackwardKernel,
  poolingKernel,
  poolingUniform,
  POOLING_THREADS,
  type Pooling,
} from './kernels/sequence-pooling.js';
import {
  weightNormBackwardKernel,
  weightNormForwardKernel,
  weightNormUniform,
  weightNormWorkgroups,
} from './kernels/weight-norm.js';

/*
 * One TCN regression step on the GPU engine, as models/tcn-trainer.ts runs it on the CPU: for each
 * micro-batch of chunks, the blocks forward (weight-normalized causal convolutions with ReLU and
 * dropout, the residual, relu(h + residual)), the chunk encoder, the head, the MSE as the
 * micro-batch's share of the step's mean, and every gradient back; the micro-batches' gradients
 * summed; then the global norm clip and Adam. With checkpointing the blocks' convolutions run
 * again, one block at a time, before its backward; the backward's buffers are shared by all
 * blocks either way (profiles/planner/tcn-size.ts counts what a step holds). Parameters,
 * Adam's moments and products live on the device as in the PPO program; the host uploads each
 * micro-batch's chunks and reads the loss and forecasts once per step.
 */

/** The network and step the program is built for. */
export interface TcnProgramShape {
  inputs: number;
  hidden: number;
  layers: number;
  /** Taps of every convolution. */
  kernel: number;
  norm: 'weight' | 'none';
  pooling: Pooling;
  headHidden: number;
  dropout: number;
  /** Bars per chunk. */
  time: number;
  /** Chunks of the largest micro-batch. */
  batch: number;
  /**
   * Gradient checkpointing: keep each block's output only, and recompute its convolutions'
   * outputs on the device before its backward (the same bits). Default off.
   */
  checkpoint?: boolean;
}

/** The optimizer's constants (models/tcn-trainer.ts: β 0.9, 0.999, ε 1e-8, clip 1). */
export interface TcnProgramConstants {
  beta1: number;
  beta2: number;
  epsilon: number;
  maxGradNorm: number;
}

/** A micro-batch: chunks [rows, time, inputs] and their targets [rows]. */
export interface TcnMicroBatch {
  x: Float32Array;
  y: Float32Array;
  rows: number;
}

/** The parameters in the flat buffer, named as Tcn.namedVariables() names them. */
export function tcnParameterSlots(shape: TcnProgramShape): ParameterSlot[] {
  const slots: ParameterSlot[] = [];
  let offset = 0;
  const add = (name: string, dims: number[]): void => {
    const size = dims.reduce((a, b) => a * b, 1);
    slots.push({ name, offset, shape: dims, size });
    // 256-byte aligned: weight norm and GEMMs read at any offset, but a view might not.
    offset += size;
  };
  let width = shape.inputs;
  for (let i = 0; i < shape.layers; i++) {
    for (const [conv, inWidth] of [
      ['conv1', width],
      ['conv2', shape.hidden],
    ] as const) {
      // The bias right after the kernel: the weight-gradient GEMM writes both.
      add(`block${i}/${conv}/v`, [shape.kernel, inWidth, shape.hidden]);
      add(`block${i}/${conv}/b`, [shape.hidden]);
      if (shape.norm === 'weight') add(`block${i}/${conv}/g`, [shape.hidden]);
    }
    if (width !== shape.hidden) {
      add(`block${i}/residual/w`, [1, width, shape.hidden]);
      add(`block${i}/residual/b`, [shape.hidden]);
    }
    width = shape.hidden;
  }
  add('head/w1', [shape.hidden, shape.headHidden]);
  add('head/b1', [shape.headHidden]);
  add('head/w2', [shape.headHidden, 1]);
  add('head/b2', [1]);
  return slots;
}

/** What one step did. */
export interface TcnStepOutput {
  loss: number;
  predictions: Float32Array;
}

/** The TCN's training step as a GPU program. Build it with {@link TcnStepProgram.build}. */
export class TcnStepProgram {
  readonly slots: ParameterSlot[];
  readonly size: number;

  private constructor(
    private readonly gpu: GpuDevice,
    readonly shape: TcnProgramShape,
    private readonly optimizer: OptimizerState,
    private readonly parts: {
      x: GPUBuffer;
      y: GPUBuffer;
      loss: GPUBuffer;
      predictions: GPUBuffer;
      forecast: GPUBuffer;
      grads: GPUBuffer;
      sums: [GPUBuffer, GPUBuffer];
      /** Per micro-batch: the uniforms that depend on its rows and seed, rewritten each time. */
      rowUniforms: { buffer: GPUBuffer; words: (rows: number, seed: number) => Uint32Array }[];
      mseParams: GPUBuffer;
      /** The forward and backward dispatches of one micro-batch; accumulate per parity. */
      microBatch: Dispatch[];
      accumulate: [Dispatch, Dispatch];
      /** The optimizer step on either sum. */
      optimizer: [Dispatch[], Dispatch[]];
    },
    slots: ParameterSlot[],
    /** Bytes of every buffer the program made (what it holds on the device). */
    readonly allocatedBytes: number,
  ) {
    this.slots = slots;
    const last = slots[slots.length - 1] as ParameterSlot;
    this.size = last.offset + last.size;
  }

  /** Compiles the kernels and allocates the buffers of a step of `shape`. */
  static async build(
    gpu: GpuDevice,
    shape: TcnProgramShape,
    constants: TcnProgramConstants,
  ): Promise<TcnStepProgram> {
    const allocatedBefore = gpu.allocatedBytes;
    const slots = tcnParameterSlots(shape);
    const last = slots[slots.length - 1] as ParameterSlot;
    const size = last.offset + last.size;
    const at = (name: string): number => {
      const slot = slots.find((s) => s.name === name);
      if (slot === undefined) throw new Error(`no TCN slot ${name}`);
      return slot.offset;
    };
    const { hidden: H, time: T, kernel: K } = shape;
    const maxRows = shape.batch * T;
    const floats = (n: number, label: string): GPUBuffer => gpu.storageBuffer(n * 4, label);

    const optimizerState = new OptimizerState(gpu, size, constants, 'tcn');
    const state = optimizerState.state;
    const grads = floats(size, 'tcn gradients');
    const sums: [GPUBuffer, GPUBuffer] = [floats(size, 'tcn sum 0'), floats(size, 'tcn sum 1')];
    const effective = floats(size, 'tcn effective kernels');
    const scratch = floats(size, 'tcn kernel gradients');
    const x = floats(maxRows * shape.inputs, 'tcn chunks');
    const y = floats(shape.batch, 'tcn targets');
    const loss = floats(1, 'tcn loss');
    const forecast = floats(shape.batch, 'tcn forecasts');
    const dForecast = floats(shape.batch, 'tcn forecast gradient');
    const predictions = floats(64 * shape.batch, 'tcn predictions');
    const z = floats(shape.batch * H, 'tcn encodings');
    const dz = floats(shape.batch * H, 'tcn encoding gradient');
    const a1 = floats(shape.batch * shape.headHidden, 'tcn head hidden');
    const da1 = floats(shape.batch * shape.headHidden, 'tcn head hidden gradient');

    const rowUniforms: { buffer: GPUBuffer; words: (rows: number, seed: number) => Uint32Array }[] =
      [];
    /** A uniform whose words depend on the micro-batch's rows (chunks) and step seed. */
    const perBatch = (
      label: string,
      words: (rows: number, seed: number) => Uint32Array,
    ): GPUBuffer => {
      const buffer = uniformOf(gpu, words(shape.batch, 0), label);
      rowUniforms.push({ buffer, words });
      return buffer;
    };
    const forward: Dispatch[] = [];
    const backward: Dispatch[] = [];
    const gemm = async (
      list: Dispatch[],
      variant: GemmVariant,
      call: (chunks: number, seed: number) => GemmCall,
      operands: GPUBuffer[],
      grid: (chunks: number) => { m: number; n: number },
    ): Promise<void> => {
      const kernel = await gpu.pipelines.kernel(gemmKernel(variant));
      const uniform = perBatch(kernel.spec.label, (chunks, seed) =>
        gemmUniform(call(chunks, seed)),
      );
      list.push(
        dispatchOf(gpu, kernel, [uniform, ...operands], (chunks) => {
          const { m, n } = grid(chunks);
          return gemmWorkgroups(variant, m, n);
        }),
      );
    };
    const elementwise = async (
      list: Dispatch[],
      spec: ReturnType<typeof addReluKernel>,
      operands: GPUBuffer[],
      width: number,
      scale = 1,
    ): Promise<void> => {
      const kernel = await gpu.pipelines.kernel(spec);
      const uniform = perBatch(spec.label, (chunks) =>
        elementwiseUniform(chunks * T * width, [0, 0, 0], scale),
      );
      list.push(
        dispatchOf(gpu, kernel, [uniform, ...operands], (chunks) =>
          elementwiseWorkgroups(chunks * T * width),
        ),
      );
    };

    const dropout = shape.dropout;
    const scale = dropout > 0 ? Math.fround(1 / (1 - dropout)) : 1;
    const rowsBuffer = (label: string, width: number): GPUBuffer => floats(maxRows * width, label);
    const checkpoint = shape.checkpoint === true;
    // With checkpointing only each block's output is kept; its convolutions' outputs go to one
    // pair of buffers and are recomputed, block by block, before its backward.
    const sharedH = checkpoint
      ? [rowsBuffer('recomputed h1', H), rowsBuffer('recomputed h2', H)]
      : undefined;
    // The backward's buffers serve every block in turn: the output's gradient alternates between
    // two (a block reads one and writes its input's gradient to the other), and a buffer is reused
    // once what it held is dead (dz2 after conv2's backward, dh1 after dz1 is made).
    const dOuts = [rowsBuffer('d out even', H), rowsBuffer('d out odd', H)] as const;
    const g = rowsBuffer('block d sum', H);
    const dz2 = rowsBuffer('block dz2', H);
    const dh1 = rowsBuffer('block dh1 / dx conv', H);
    const dz1 = rowsBuffer('block dz1', H);
    // Each block's backward, recorded in reverse at the end.
    const blocks: (() => Promise<void>)[] = [];
    let input = x;
    let width = shape.inputs;
    for (let i = 0; i < shape.layers; i++) {
      const dilation = 2 ** i;
      const blockInput = input;
      const inWidth = width;
      const h1 = sharedH?.[0] ?? rowsBuffer(`block${i} h1`, H);
      const h2 = sharedH?.[1] ?? rowsBuffer(`block${i} h2`, H);
      const out = rowsBuffer(`block${i} out`, H);
      const residualConv = inWidth !== H;
      if (residualConv && i > 0) throw new Error('only the first TCN block may change width');
      const residual = residualConv ? rowsBuffer(`block${i} residual`, H) : blockInput;
      const convs = [
        { name: `block${i}/conv1`, source: blockInput, channels: inWidth, output: h1, offset: 0 },
        { name: `block${i}/conv2`, source: h1, channels: H, output: h2, offset: 1 },
      ];
      const weighted = shape.norm === 'weight';
      const kernelBuffer = weighted ? effective : state;
      /** The convolution's GEMM with bias, ReLU and dropout (its masks drawn from the step's seed). */
      const convForward = async (list: Dispatch[], conv: (typeof convs)[number]): Promise<void> => {
        const v = at(`${conv.name}/v`);
        await gemm(
          list,
          {
            transposeA: false,
            transposeB: false,
            epilogue: dropout > 0 ? 'bias-relu-dropout' : 'bias-relu',
            conv: 'forward',
          },
          (chunks, seed) => ({
            m: chunks * T,
            n: H,
            k: K * conv.channels,
            lda: conv.channels,
            ldb: H,
            ldc: H,
            offsetB: v,
            offsetBias: at(`${conv.name}/b`),
            conv: { taps: K, dilation, channels: conv.channels, time: T },
            dropout: { rate: dropout, seed: seed * 1009 + i * 2 + conv.offset },
          }),
          [conv.source, kernelBuffer, conv.output, state],
          (chunks) => ({ m: chunks * T, n: H }),
        );
      };
      for (const conv of convs) {
        if (weighted) {
          // The effective kernel at v's offset of `effective`, kept for the backward.
          const v = at(`${conv.name}/v`);
          const params = uniformOf(
            gpu,
            weightNormUniform({
              rows: K * conv.channels,
              columns: H,
              offsetV: v,
              offsetG: at(`${conv.name}/g`),
              offsetW: v,
              offsetNorm: at(`${conv.name}/g`),
            }),
            'weight norm',
          );
          forward.push(
            dispatchOf(
              gpu,
              await gpu.pipelines.kernel(weightNormForwardKernel()),
              [params, state, effective],
              weightNormWorkgroups(H),
            ),
          );
        }
        await convForward(forward, conv);
      }
      if (residualConv)
        await gemm(
          forward,
          { transposeA: false, transposeB: false, epilogue: 'bias' },
          (chunks) => ({
            m: chunks * T,
            n: H,
            k: inWidth,
            lda: inWidth,
            ldb: H,
            ldc: H,
            offsetB: at(`block${i}/residual/w`),
            offsetBias: at(`block${i}/residual/b`),
          }),
          [blockInput, state, residual, state],
          (chunks) => ({ m: chunks * T, n: H }),
        );
      await elementwise(forward, addReluKernel(), [h2, residual, out], H);

      const dOut = dOuts[i % 2] as GPUBuffer;
      const first = i === 0;
      blocks.push(async () => {
        // The same kernels on the same inputs and seeds: the recomputed outputs are the same bits.
        if (checkpoint) for (const conv of convs) await convForward(backward, conv);
        await elementwise(backward, reluMaskKernel(), [dOut, out, g], H);
        const convBackward = async (
          conv: (typeof convs)[number],
          dZ: GPUBuffer,
          dInput: GPUBuffer | undefined,
        ): Promise<void> => {
          const v = at(`${conv.name}/v`);
          const rows = K * conv.channels;
          await gemm(
            backward,
            {
              transposeA: true,
              transposeB: false,
              epilogue: 'none',
              onesRow: true,
              conv: 'weight-gradient',
            },
            (chunks) => ({
              m: rows,
              n: H,
              k: chunks * T,
              lda: conv.channels,
              ldb: H,
              ldc: H,
              offsetC: v,
              conv: { taps: K, dilation, channels: conv.channels, time: T },
            }),
            [conv.source, dZ, weighted ? scratch : grads],
            () => ({ m: rows, n: H }),
          );
          if (dInput !== undefined)
            await gemm(
              backward,
              { transposeA: false, transposeB: false, epilogue: 'none', conv: 'input-gradient' },
              (chunks) => ({
                m: chunks * T,
                n: conv.channels,
                k: K * H,
                lda: H,
                ldb: H,
                ldc: conv.channels,
                offsetB: v,
                conv: { taps: K, dilation, channels: H, time: T },
              }),
              [dZ, kernelBuffer, dInput],
              (chunks) => ({ m: chunks * T, n: conv.channels }),
            );
          if (weighted) {
            const params = uniformOf(
              gpu,
              weightNormUniform({
                rows,
                columns: H,
                offsetV: v,
                offsetG: at(`${conv.name}/g`),
                offsetW: v,
                offsetNorm: at(`${conv.name}/g`),
                offsetDv: v,
                offsetDg: at(`${conv.name}/g`),
                offsetDb: at(`${conv.name}/b`),
              }),
              'weight norm backward',
            );
            backward.push(
              dispatchOf(
                gpu,
                await gpu.pipelines.kernel(weightNormBackwardKernel()),
                [params, state, effective, scratch, grads],
                weightNormWorkgroups(H),
              ),
            );
          }
        };
        const [conv1, conv2] = convs as [(typeof convs)[number], (typeof convs)[number]];
        await elementwise(backward, reluMaskKernel(), [g, h2, dz2], H, scale);
        await convBackward(conv2, dz2, dh1);
        await elementwise(backward, reluMaskKernel(), [dh1, h1, dz1], H, scale);
        // Blocks after the first take their input at width H, so dh1 (dead now) holds dx.
        const dPrevious = first ? undefined : (dOuts[(i + 1) % 2] as GPUBuffer);
        const dConv = first ? undefined : dh1;
        await convBackward(conv1, dz1, dConv);
        // The residual's gradient is g itself: only the first block changes width (its 1×1
        // convolution needs no input gradient).
        if (residualConv) {
          await gemm(
            backward,
            { transposeA: true, transposeB: false, epilogue: 'none', onesRow: true },
            (chunks) => ({
              m: inWidth,
              n: H,
              k: chunks * T,
              lda: inWidth,
              ldb: H,
              ldc: H,
              offsetC: at(`block${i}/residual/w`),
            }),
            [blockInput, g, grads],
            () => ({ m: inWidth, n: H }),
          );
        }
        if (dPrevious !== undefined && dConv !== undefined)
          await elementwise(backward, addKernel(), [dConv, g, dPrevious], H);
      });
      input = out;
      width = H;
    }

    // The chunk encoder and the head, forward.
    const pool = await gpu.pipelines.kernel(poolingKernel(shape.pooling));
    const poolParams = perBatch('pooling', (chunks) => poolingUniform(chunks, T, H));
    forward.push(
      dispatchOf(gpu, pool, [poolParams, input, z], (chunks) => [
        Math.ceil((chunks * H) / POOLING_THREADS),
      ]),
    );
    await gemm(
      forward,
      { transposeA: false, transposeB: false, epilogue: 'bias-relu' },
      (chunks) => ({
        m: chunks,
        n: shape.headHidden,
        k: H,
        lda: H,
        ldb: shape.headHidden,
        ldc: shape.headHidden,
        offsetB: at('head/w1'),
        offsetBias: at('head/b1'),
      }),
      [z, state, a1, state],
      (chunks) => ({ m: chunks, n: shape.headHidden }),
    );
    await gemm(
      forward,
      { transposeA: false, transposeB: false, epilogue: 'bias' },
      (chunks) => ({
        m: chunks,
        n: 1,
        k: shape.headHidden,
        lda: shape.headHidden,
        ldb: 1,
        ldc: 1,
        offsetB: at('head/w2'),
        offsetBias: at('head/b2'),
      }),
      [a1, state, forecast, state],
      (chunks) => ({ m: chunks, n: 1 }),
    );
    const mseParams = gpu.uniformBuffer(16, 'mse');
    forward.push(
      dispatchOf(
        gpu,
        await gpu.pipelines.kernel(mseLossKernel()),
        [mseParams, forecast, y, dForecast, loss],
        [1],
      ),
    );

    // The head and the encoder, backward; then the blocks from the last.
    await gemm(
      backward,
      { transposeA: true, transposeB: false, epilogue: 'none', onesRow: true },
      (chunks) => ({
        m: shape.headHidden,
        n: 1,
        k: chunks,
        lda: shape.headHidden,
        ldb: 1,
        ldc: 1,
        offsetC: at('head/w2'),
      }),
      [a1, dForecast, grads],
      () => ({ m: shape.headHidden, n: 1 }),
    );
    await gemm(
      backward,
      { transposeA: false, transposeB: true, epilogue: 'relu-grad' },
      (chunks) => ({
        m: chunks,
        n: shape.headHidden,
        k: 1,
        lda: 1,
        ldb: 1,
        ldc: shape.headHidden,
        offsetB: at('head/w2'),
        ldAux: shape.headHidden,
      }),
      [dForecast, state, da1, a1],
      (chunks) => ({ m: chunks, n: shape.headHidden }),
    );
    await gemm(
      backward,
      { transposeA: true, transposeB: false, epilogue: 'none', onesRow: true },
      (chunks) => ({
        m: H,
        n: shape.headHidden,
        k: chunks,
        lda: H,
        ldb: shape.headHidden,
        ldc: shape.headHidden,
        offsetC: at('head/w1'),
      }),
      [z, da1, grads],
      () => ({ m: H, n: shape.headHidden }),
    );
    await gemm(
      backward,
      { transposeA: false, transposeB: true, epilogue: 'none' },
      (chunks) => ({
        m: chunks,
        n: H,
        k: shape.headHidden,
        lda: shape.headHidden,
        ldb: shape.headHidden,
        ldc: H,
        offsetB: at('head/w1'),
      }),
      [da1, state, dz],
      (chunks) => ({ m: chunks, n: H }),
    );
    backward.push(
      dispatchOf(
        gpu,
        await gpu.pipelines.kernel(poolingBackwardKernel(shape.pooling)),
        [poolParams, dz, dOuts[(shape.layers - 1) % 2] as GPUBuffer],
        (chunks) => elementwiseWorkgroups(chunks * T * H),
      ),
    );
    for (const block of blocks.reverse()) await block();

    // Gradients summed over the micro-batches, ping-pong between two buffers.
    const add = await gpu.pipelines.kernel(addKernel());
    const sumParams = uniformOf(gpu, elementwiseUniform(size, [0, 0, 0]), 'sum gradients');
    const accumulate: [Dispatch, Dispatch] = [
      dispatchOf(gpu, add, [sumParams, sums[1], grads, sums[0]], elementwiseWorkgroups(size)),
      dispatchOf(gpu, add, [sumParams, sums[0], grads, sums[1]], elementwiseWorkgroups(size)),
    ];

    // The optimizer step on each of the two sums, made once.
    const optimizer: [Dispatch[], Dispatch[]] = [
      await optimizerState.stepDispatches(sums[0]),
      await optimizerState.stepDispatches(sums[1]),
    ];
    gpu.check();
    return new TcnStepProgram(
      gpu,
      shape,
      optimizerState,
      {
        x,
        y,
        loss,
        predictions,
        forecast,
        grads,
        sums,
        rowUniforms,
        mseParams,
        microBatch: [...forward, ...backward],
        accumulate,
        optimizer,
      },
      slots,
      gpu.allocatedBytes - allocatedBefore,
    );
  }

  /** Sets the parameters (flat, in {@link slots}' layout) and a fresh or restored Adam state. */
  writeState(parameters: Float32Array, moments: AdamMoments): void {
    this.optimizer.writeParameters(parameters);
    this.optimizer.writeMoments(moments);
  }

  /** The parameters now. */
  async readParameters(): Promise<Float32Array> {
    return this.optimizer.readParameters();
  }

  /** Adam's moments (in the parameters' layout) and products now. */
  async readMoments(): Promise<AdamMoments> {
    return this.optimizer.readMoments();
  }

  /**
   * One step over `batches` (their chunks [rows, time, inputs] and targets), dropout seeded from
   * `seed` as the CPU trainer seeds it; returns the loss and the forecasts in batch order.
   */
  async step(
    batches: readonly TcnMicroBatch[],
    seed: number,
    learningRate: number,
  ): Promise<TcnStepOutput> {
    const { gpu, shape, parts } = this;
    const total = batches.reduce((n, b) => n + b.rows, 0);
    if (batches.some((b) => b.rows > shape.batch) || batches.length > 64)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `a micro-batch has more chunks than the ${shape.batch} the GPU program was built for (or there are over 64 of them)`,
        { hint: 'build the program with batch at least the largest micro-batch' },
      );
    this.startStep(learningRate);
    let offset = 0;
    let finalSum = 1;
    for (const [m, batch] of batches.entries()) {
      // Each micro-batch is its own submit: its uniforms and inputs are rewritten before it.
      finalSum = m % 2 === 0 ? 0 : 1;
      this.prepareMicroBatch(batch, total, seed * 64 + m);
      const encoder = gpu.device.createCommandEncoder({ label: 'tcn micro-batch' });
      const pass = encoder.beginComputePass();
      // The first micro-batch's gradients are copied into the sum, not added to a zeroed one.
      const dispatches =
        m === 0
          ? this.parts.microBatch.map((d) => ({ ...d, workgroups: () => d.workgroups(batch.rows) }))
          : this.microBatchDispatches(batch.rows, finalSum);
      encodeDispatches(pass, dispatches);
      pass.end();
      if (m === 0) encoder.copyBufferToBuffer(parts.grads, 0, parts.sums[0], 0, this.size * 4);
      encoder.copyBufferToBuffer(parts.forecast, 0, parts.predictions, offset * 4, batch.rows * 4);
      gpu.submit(encoder, dispatches.length);
      offset += batch.rows;
    }
    const encoder = gpu.device.createCommandEncoder({ label: 'tcn optimizer' });
    const pass = encoder.beginComputePass();
    const count = encodeDispatches(pass, parts.optimizer[finalSum] as Dispatch[]);
    pass.end();
    gpu.submit(encoder, count);
    const loss = (await gpu.readFloats(parts.loss, 0, 1))[0] as number;
    const predictions = await gpu.readFloats(parts.predictions, 0, total);
    gpu.check();
    return { loss, predictions };
  }

  /**
   * A step of one micro-batch with every dispatch timed alone by the device's timestamps, summed
   * by kernel (undefined without timestamp queries). It trains: the state moves by one step.
   */
  async profileStep(
    batch: TcnMicroBatch,
    seed: number,
    learningRate: number,
  ): Promise<KernelTime[] | undefined> {
    this.startStep(learningRate);
    // The sum the micro-batch is added to starts at zero, as in a step of several.
    const encoder = this.gpu.device.createCommandEncoder({ label: 'tcn profile' });
    encoder.clearBuffer(this.parts.sums[1]);
    this.gpu.submit(encoder, 0);
    this.prepareMicroBatch(batch, batch.rows, seed * 64);
    const times = await profileDispatches(this.gpu, [
      ...this.microBatchDispatches(batch.rows, 0),
      ...this.parts.optimizer[0],
    ]);
    this.gpu.check();
    return times;
  }

  /** Zeroes the loss and sets the rate. */
  private startStep(learningRate: number): void {
    this.gpu.write(this.parts.loss, 0, new Float32Array(1));
    this.optimizer.setLearningRate(learningRate);
  }

  /** Uploads a micro-batch of a step of `total` chunks, with its rows' and seed's uniforms. */
  private prepareMicroBatch(batch: TcnMicroBatch, total: number, seed: number): void {
    const { gpu, parts } = this;
    gpu.write(parts.x, 0, batch.x);
    gpu.write(parts.y, 0, batch.y);
    gpu.write(parts.mseParams, 0, new Uint8Array(mseUniform(batch.rows, total)));
    for (const uniform of parts.rowUniforms)
      gpu.write(uniform.buffer, 0, uniform.words(batch.rows, seed));
  }

  /** A micro-batch's forward and backward for `rows` chunks, and its gradients added into sum `into`. */
  private microBatchDispatches(rows: number, into: number): Dispatch[] {
    return [
      ...this.parts.microBatch.map((d) => ({ ...d, workgroups: () => d.workgroups(rows) })),
      this.parts.accumulate[into] as Dispatch,
    ];
  }
}
