import { TradelabError } from '../core/index.js';
import {
  dispatchOf,
  encodeDispatches,
  uniformOf,
  type Dispatch,
  type MinibatchBinding,
} from './dispatch.js';
import type { GpuDevice } from './gpu-device.js';
import { OptimizerState, type AdamMoments } from './optimizer-state.js';

export type { AdamMoments } from './optimizer-state.js';
import { profileDispatches, type KernelTime } from './kernel-profile.js';
import { MINIBATCH_STRIDE } from './pipeline-cache.js';
import {
  gemmKernel,
  gemmUniform,
  gemmWorkgroups,
  type GemmCall,
  type GemmVariant,
} from './kernels/gemm.js';
import {
  gatherKernel,
  gatherWorkgroups,
  minibatchLayout,
  PPO_LOSS_STATS,
  ppoLossKernel,
  ppoLossUniform,
  type MinibatchLayout,
} from './kernels/ppo-loss.js';

/*
 * PPO's update of an MLP actor (Gaussian, state-independent log-std) and an MLP critic, resident
 * on the GPU. Every parameter lives in one buffer, beside Adam's moments ([weights | m | v]; the
 * bias-correction products in a small buffer of their own), so the optimizer state is one upload when training
 * starts or resumes and one read when a checkpoint is written. An update uploads its rollout and
 * its shuffled orders once, then records every minibatch of every pass as one compute pass:
 * gather, forward (one fused GEMM per layer), the loss, backward (one GEMM per weight gradient with
 * its bias gradient as an extra row, one per input gradient with the activation's derivative
 * fused), the gradient norm and Adam. The minibatch's range is the only thing that changes between
 * minibatches: an offset into one uniform buffer. Nothing is read back inside an update; the
 * statistics are summed on the device and read once (once per pass with a target KL).
 */

/** The networks and loss the program is built for; they fix every kernel's shape. */
export interface PpoProgramShape {
  stateDim: number;
  actionDim: number;
  /** Units of each hidden layer, the same for the actor and the critic. */
  hidden: readonly number[];
  activation: 'relu' | 'tanh';
  /** The mean is tanh of the actor's output (PPO's meanSquash 'tanh'); else the output itself. */
  tanhMean: boolean;
  /** Rows of the largest rollout (targetStep). */
  rolloutRows: number;
  /** Rows of the largest minibatch. */
  batchSize: number;
  /** Passes over a rollout (repeatTimes). */
  passes: number;
  /** Normalize advantages over each minibatch on the device. */
  normalizeAdvantages: boolean;
  clipValueLoss: boolean;
}

/** The loss and optimizer constants. */
export interface PpoProgramConstants {
  ratioClip: number;
  entropyCoef: number;
  valueCoef: number;
  maxGradNorm: number;
  beta1: number;
  beta2: number;
  epsilon: number;
}

/** One parameter tensor in the flat buffer. */
export interface ParameterSlot {
  /** `actor/w0`, `actor/b0`, …, `logStd`, `critic/w0`, …. */
  name: string;
  offset: number;
  shape: number[];
  size: number;
}

/** A rollout as the trainer holds it (rows of `rows`; row-major states and actions). */
export interface RolloutArrays {
  rows: number;
  states: Float32Array;
  actions: Float32Array;
  logProbs: Float32Array;
  advantages: Float32Array;
  returns: Float32Array;
  /** The critic's values at collection (read only with clipValueLoss). */
  values: Float32Array;
}

/**
 * A rollout already on the device (a GPU rollout program's): `rows` rows in
 * minibatchLayout(stateDim, actionDim, rows) in `buffer`.
 */
export interface DeviceRollout {
  rows: number;
  buffer: GPUBuffer;
}

/** Options of {@link PpoUpdateProgram.train}. */
export interface PpoTrainOptions {
  learningRate: number;
  /** Stop after the first pass whose last minibatch's approximate KL exceeds it; null: never. */
  targetKl: number | null;
}

/** What {@link PpoUpdateProgram.train} ran. */
export interface PpoTrainResult {
  /** Sums over the minibatch steps, in PPO_STEP_STATS' order. */
  statSums: Float32Array;
  steps: number;
  passes: number;
  /** Dispatches recorded. */
  dispatches: number;
}

/** One network's layers: sizes from input to output, and where each layer's weights sit. */
interface NetworkPlan {
  sizes: number[];
  weights: number[];
  biases: number[];
  /** Outputs of each layer (post-activation for hidden layers), [capacity × size]. */
  outputs: GPUBuffer[];
  /** Gradients at each layer's pre-activation, [capacity × size]. */
  deltas: GPUBuffer[];
}

/** The parameter layout of the networks: actor layers, the log-std, critic layers. */
export function ppoParameterSlots(shape: PpoProgramShape): ParameterSlot[] {
  const slots: ParameterSlot[] = [];
  let offset = 0;
  const add = (name: string, dims: number[]): void => {
    const size = dims.reduce((a, b) => a * b, 1);
    slots.push({ name, offset, shape: dims, size });
    offset += size;
  };
  const network = (name: string, outputs: number): void => {
    const sizes = [shape.stateDim, ...shape.hidden, outputs];
    for (let l = 0; l + 1 < sizes.length; l++) {
      // A layer's bias directly after its weights: the weight-gradient GEMM writes both.
      add(`${name}/w${l}`, [sizes[l] as number, sizes[l + 1] as number]);
      add(`${name}/b${l}`, [sizes[l + 1] as number]);
    }
  };
  network('actor', shape.actionDim);
  add('logStd', [shape.actionDim]);
  network('critic', 1);
  return slots;
}

/** PPO's minibatch update as a GPU program. Build it with {@link PpoUpdateProgram.build}. */
export class PpoUpdateProgram {
  readonly slots: ParameterSlot[];
  /** Parameters in the flat buffer. */
  readonly size: number;
  /** Dispatches of one minibatch step. */
  readonly dispatchesPerStep: number;
  private readonly rolloutLayout: MinibatchLayout;
  private readonly maxSteps: number;

  private constructor(
    private readonly gpu: GpuDevice,
    readonly shape: PpoProgramShape,
    private readonly buffers: {
      rollout: GPUBuffer;
      order: GPUBuffer;
      ranges: GPUBuffer;
      stats: GPUBuffer;
    },
    private readonly optimizer: OptimizerState,
    private readonly step: Dispatch[],
    private readonly rangeGroup: GPUBindGroup,
    slots: ParameterSlot[],
  ) {
    this.slots = slots;
    const last = slots[slots.length - 1] as ParameterSlot;
    this.size = last.offset + last.size;
    this.dispatchesPerStep = step.length;
    this.rolloutLayout = minibatchLayout(shape.stateDim, shape.actionDim, shape.rolloutRows);
    this.maxSteps = shape.passes * Math.ceil(shape.rolloutRows / shape.batchSize);
  }

  /** Compiles the kernels and allocates every buffer of an update of `shape`. */
  static async build(
    gpu: GpuDevice,
    shape: PpoProgramShape,
    constants: PpoProgramConstants,
  ): Promise<PpoUpdateProgram> {
    refuseShape(shape);
    const slots = ppoParameterSlots(shape);
    const last = slots[slots.length - 1] as ParameterSlot;
    const size = last.offset + last.size;
    const offsetOf = (name: string): number =>
      (slots.find((s) => s.name === name) as ParameterSlot).offset;
    const cap = Math.min(shape.batchSize, shape.rolloutRows);
    const batchLayout = minibatchLayout(shape.stateDim, shape.actionDim, cap);
    const rolloutLayout = minibatchLayout(shape.stateDim, shape.actionDim, shape.rolloutRows);
    const maxSteps = shape.passes * Math.ceil(shape.rolloutRows / shape.batchSize);

    const optimizer = new OptimizerState(gpu, size, constants, 'ppo');
    const state = optimizer.state;
    const grads = gpu.storageBuffer(size * 4, 'ppo gradients');
    const rollout = gpu.storageBuffer(rolloutLayout.size * 4, 'ppo rollout');
    const order = gpu.storageBuffer(shape.passes * shape.rolloutRows * 4, 'ppo order');
    const batch = gpu.storageBuffer(batchLayout.size * 4, 'ppo minibatch');
    const ranges = gpu.uniformBuffer(maxSteps * MINIBATCH_STRIDE, 'ppo minibatch ranges');
    const stats = gpu.storageBuffer(8 * 4, 'ppo statistics');

    const plan = (name: string, outputs: number): NetworkPlan => {
      const sizes = [shape.stateDim, ...shape.hidden, outputs];
      const layers = sizes.length - 1;
      return {
        sizes,
        weights: Array.from({ length: layers }, (_, l) => offsetOf(`${name}/w${l}`)),
        biases: Array.from({ length: layers }, (_, l) => offsetOf(`${name}/b${l}`)),
        outputs: sizes
          .slice(1)
          .map((width, l) => gpu.storageBuffer(cap * width * 4, `${name} output ${l}`)),
        deltas: sizes
          .slice(1)
          .map((width, l) => gpu.storageBuffer(cap * width * 4, `${name} delta ${l}`)),
      };
    };
    const actor = plan('actor', shape.actionDim);
    const critic = plan('critic', 1);

    const step: Dispatch[] = [];
    const gemm = async (
      variant: GemmVariant,
      call: GemmCall,
      operands: GPUBuffer[],
      rowsOf: (rows: number) => { m: number; n: number },
    ): Promise<void> => {
      const kernel = await gpu.pipelines.kernel(gemmKernel({ ...variant, perMinibatch: true }));
      const uniform = uniformOf(gpu, gemmUniform(call), kernel.spec.label);
      step.push(
        dispatchOf(gpu, kernel, [uniform, ...operands], (rows) => {
          const { m, n } = rowsOf(rows);
          return gemmWorkgroups(variant, m, n);
        }),
      );
    };

    step.push(
      dispatchOf(
        gpu,
        await gpu.pipelines.kernel(gatherKernel(rolloutLayout, batchLayout)),
        [order, rollout, batch],
        (rows) => gatherWorkgroups(batchLayout, rows),
      ),
    );

    // Forward: layer l reads the states (l = 0) or layer l − 1's output.
    const activation = shape.activation === 'relu' ? 'bias-relu' : 'bias-tanh';
    for (const net of [actor, critic]) {
      const layers = net.sizes.length - 1;
      for (let l = 0; l < layers; l++) {
        const inputs = net.sizes[l] as number;
        const outputs = net.sizes[l + 1] as number;
        await gemm(
          { transposeA: false, transposeB: false, epilogue: l + 1 < layers ? activation : 'bias' },
          {
            m: 0,
            n: outputs,
            k: inputs,
            lda: inputs,
            ldb: outputs,
            ldc: outputs,
            offsetA: l === 0 ? batchLayout.states : 0,
            offsetB: net.weights[l] as number,
            offsetBias: net.biases[l] as number,
          },
          [
            l === 0 ? batch : (net.outputs[l - 1] as GPUBuffer),
            state,
            net.outputs[l] as GPUBuffer,
            state,
          ],
          (rows) => ({ m: rows, n: outputs }),
        );
      }
    }

    const lossKernel = await gpu.pipelines.kernel(
      ppoLossKernel({
        layout: batchLayout,
        tanhMean: shape.tanhMean,
        normalizeAdvantages: shape.normalizeAdvantages,
        clipValueLoss: shape.clipValueLoss,
      }),
    );
    const lossParams = gpu.uniformBuffer(16, 'ppo loss constants');
    gpu.write(
      lossParams,
      0,
      new Uint8Array(
        ppoLossUniform({
          ratioClip: constants.ratioClip,
          entropyCoef: constants.entropyCoef,
          valueCoef: constants.valueCoef,
          logStdOffset: offsetOf('logStd'),
        }),
      ),
    );
    step.push(
      dispatchOf(
        gpu,
        lossKernel,
        [
          lossParams,
          batch,
          actor.outputs[actor.outputs.length - 1] as GPUBuffer,
          critic.outputs[critic.outputs.length - 1] as GPUBuffer,
          state,
          actor.deltas[actor.deltas.length - 1] as GPUBuffer,
          critic.deltas[critic.deltas.length - 1] as GPUBuffer,
          grads,
          stats,
        ],
        [1],
      ),
    );

    // Backward, from the output layer down: the weight and bias gradients of layer l, then the
    // gradient at layer l − 1's pre-activation through its activation's derivative.
    const derivative = shape.activation === 'relu' ? 'relu-grad' : 'tanh-grad';
    for (const net of [actor, critic]) {
      const layers = net.sizes.length - 1;
      for (let l = layers - 1; l >= 0; l--) {
        const inputs = net.sizes[l] as number;
        const outputs = net.sizes[l + 1] as number;
        const input = l === 0 ? batch : (net.outputs[l - 1] as GPUBuffer);
        await gemm(
          { transposeA: true, transposeB: false, epilogue: 'none', onesRow: true },
          {
            m: inputs,
            n: outputs,
            k: 0,
            lda: inputs,
            ldb: outputs,
            ldc: outputs,
            offsetA: l === 0 ? batchLayout.states : 0,
            offsetC: net.weights[l] as number,
          },
          [input, net.deltas[l] as GPUBuffer, grads],
          () => ({ m: inputs, n: outputs }),
        );
        if (l > 0)
          await gemm(
            { transposeA: false, transposeB: true, epilogue: derivative },
            {
              m: 0,
              n: inputs,
              k: outputs,
              lda: outputs,
              ldb: outputs,
              ldc: inputs,
              offsetB: net.weights[l] as number,
              ldAux: inputs,
            },
            [
              net.deltas[l] as GPUBuffer,
              state,
              net.deltas[l - 1] as GPUBuffer,
              net.outputs[l - 1] as GPUBuffer,
            ],
            (rows) => ({ m: rows, n: inputs }),
          );
      }
    }

    // The optimizer: ‖g‖ in two steps, then Adam with the clip scale, on the flat buffers.
    step.push(...(await optimizer.stepDispatches(grads)));

    const rangeGroup = gpu.device.createBindGroup({
      label: 'minibatch ranges',
      layout: gpu.pipelines.rangeLayout,
      entries: [{ binding: 0, resource: { buffer: ranges, size: 8 } }],
    });
    const program = new PpoUpdateProgram(
      gpu,
      shape,
      { rollout, order, ranges, stats },
      optimizer,
      step,
      rangeGroup,
      slots,
    );
    gpu.check();
    return program;
  }

  /** Sets the parameters (flat, in {@link slots}' layout). */
  writeParameters(values: Float32Array): void {
    this.refuseLength('parameters', values.length);
    this.optimizer.writeParameters(values);
  }

  /** Sets Adam's moments and products (a fresh optimizer: zeros and β₁, β₂). */
  writeMoments(moments: AdamMoments): void {
    this.refuseLength('first moments', moments.m.length);
    this.refuseLength('second moments', moments.v.length);
    this.optimizer.writeMoments(moments);
  }

  /** The parameters now (one read). */
  async readParameters(): Promise<Float32Array> {
    return this.optimizer.readParameters();
  }

  /** Adam's state now (one read of the moments, one of the products). */
  async readMoments(): Promise<AdamMoments> {
    return this.optimizer.readMoments();
  }

  /**
   * Trains on `rollout`: for each pass, `order(pass)` gives the rows in the pass's order (the
   * caller shuffles), cut into minibatches of batchSize. One submit and one read without a target
   * KL; one of each per pass with it.
   */
  async train(
    rollout: RolloutArrays | DeviceRollout,
    order: (pass: number) => Int32Array,
    options: PpoTrainOptions,
  ): Promise<PpoTrainResult> {
    const { gpu, shape, buffers } = this;
    if (rollout.rows > shape.rolloutRows)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `a rollout of ${rollout.rows} rows is larger than the ${shape.rolloutRows} the GPU program was built for`,
        { hint: 'build the program with rolloutRows at least targetStep' },
      );
    let encoder = gpu.device.createCommandEncoder({ label: 'ppo update' });
    if ('buffer' in rollout) this.copyRollout(encoder, rollout);
    else this.uploadRollout(rollout);
    this.optimizer.setLearningRate(options.learningRate);
    gpu.write(buffers.stats, 0, new Float32Array(8));

    const perPass = options.targetKl !== null;
    const ranges = new Uint32Array((this.maxSteps * MINIBATCH_STRIDE) / 4);
    let steps = 0;
    let passes = 0;
    let dispatches = 0;
    let stats: Float32Array = new Float32Array(PPO_LOSS_STATS);
    let pass = encoder.beginComputePass();
    let recorded = 0;
    const orders = new Uint32Array(shape.passes * rollout.rows);
    for (let p = 0; p < shape.passes; p++) {
      const rows = order(p);
      orders.set(rows, p * rollout.rows);
      const minibatches: MinibatchBinding[] = [];
      for (let start = 0; start < rows.length; start += shape.batchSize) {
        const slot = steps + minibatches.length;
        const count = Math.min(shape.batchSize, rows.length - start);
        ranges[(slot * MINIBATCH_STRIDE) / 4] = p * rollout.rows + start;
        ranges[(slot * MINIBATCH_STRIDE) / 4 + 1] = count;
        minibatches.push({ group: this.rangeGroup, slot, rows: count });
      }
      for (const minibatch of minibatches) recorded += encodeDispatches(pass, this.step, minibatch);
      steps += minibatches.length;
      passes++;
      if (perPass || p === shape.passes - 1) {
        // What these commands read goes up before them: this pass's order (all passes' when
        // there is one submit) and the ranges of every minibatch so far.
        const from = perPass ? p * rollout.rows : 0;
        gpu.write(buffers.order, from * 4, orders.subarray(from, (p + 1) * rollout.rows));
        gpu.write(buffers.ranges, 0, ranges.subarray(0, (steps * MINIBATCH_STRIDE) / 4));
        pass.end();
        gpu.submit(encoder, recorded);
        dispatches += recorded;
        recorded = 0;
        stats = await gpu.readFloats(buffers.stats, 0, PPO_LOSS_STATS);
        gpu.check();
        if (perPass && (stats[5] as number) > (options.targetKl as number)) break;
        encoder = gpu.device.createCommandEncoder({ label: 'ppo update' });
        pass = encoder.beginComputePass();
      }
    }
    return { statSums: stats.slice(0, 5), steps, passes, dispatches };
  }

  /**
   * GPU time per kernel of one minibatch step on the first `batchSize` rows of `rollout` (device
   * timestamps, each dispatch timed alone; undefined without timestamp queries). It trains: the
   * weights and Adam's state move by one step.
   */
  async profileStep(
    rollout: RolloutArrays,
    learningRate: number,
  ): Promise<KernelTime[] | undefined> {
    const { gpu, shape, buffers } = this;
    this.uploadRollout(rollout);
    this.optimizer.setLearningRate(learningRate);
    const rows = Math.min(shape.batchSize, rollout.rows);
    gpu.write(
      buffers.order,
      0,
      Uint32Array.from({ length: rows }, (_, i) => i),
    );
    gpu.write(buffers.ranges, 0, Uint32Array.from([0, rows]));
    const times = await profileDispatches(gpu, this.step, {
      group: this.rangeGroup,
      slot: 0,
      rows,
    });
    gpu.check();
    return times;
  }

  /**
   * The flat parameters (ppoParameterSlots' layout, from offset 0) as the program trains them: a
   * rollout program on the same device acts with them, without a copy.
   */
  get parameters(): GPUBuffer {
    return this.optimizer.state;
  }

  /** A device rollout's columns into the rollout buffer (copies encoded before the update). */
  private copyRollout(encoder: GPUCommandEncoder, rollout: DeviceRollout): void {
    const from = minibatchLayout(this.shape.stateDim, this.shape.actionDim, rollout.rows);
    const to = this.rolloutLayout;
    const n = rollout.rows;
    const S = this.shape.stateDim;
    const A = this.shape.actionDim;
    const blocks: [keyof MinibatchLayout, number][] = [
      ['states', n * S],
      ['actions', n * A],
      ['oldLogProbs', n],
      ['advantages', n],
      ['returns', n],
      ['oldValues', n],
    ];
    for (const [block, length] of blocks)
      encoder.copyBufferToBuffer(
        rollout.buffer,
        from[block] * 4,
        this.buffers.rollout,
        to[block] * 4,
        length * 4,
      );
  }

  /** The rollout's columns into the rollout buffer, at the layout's offsets. */
  private uploadRollout(rollout: RolloutArrays): void {
    const { gpu } = this;
    const layout = this.rolloutLayout;
    const n = rollout.rows;
    const S = this.shape.stateDim;
    const A = this.shape.actionDim;
    const put = (offset: number, values: Float32Array, length: number): void => {
      if (values.length < length)
        throw new TradelabError(
          'INVALID_ARGUMENT',
          `a rollout column has ${values.length} values where ${length} are needed`,
          { hint: 'pass the rollout buffer of the trainer the program was built for' },
        );
      gpu.write(this.buffers.rollout, offset * 4, values.subarray(0, length));
    };
    put(layout.states, rollout.states, n * S);
    put(layout.actions, rollout.actions, n * A);
    put(layout.oldLogProbs, rollout.logProbs, n);
    put(layout.advantages, rollout.advantages, n);
    put(layout.returns, rollout.returns, n);
    if (this.shape.clipValueLoss) put(layout.oldValues, rollout.values, n);
  }

  private refuseLength(what: string, length: number): void {
    if (length !== this.size)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `the GPU program holds ${this.size} parameters; ${length} ${what} were given`,
        { hint: 'give values in the layout of ppoParameterSlots() for the same shape' },
      );
  }
}

/** Refuses shapes the kernels cannot take. */
function refuseShape(shape: PpoProgramShape): void {
  const positive = [
    shape.stateDim,
    shape.actionDim,
    shape.rolloutRows,
    shape.batchSize,
    shape.passes,
  ];
  if (positive.some((v) => !Number.isInteger(v) || v < 1) || shape.hidden.some((v) => v < 1))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `a GPU PPO program needs positive sizes; got ${JSON.stringify(shape)}`,
      {
        hint: 'check stateDim, actionDim, hidden, targetStep, batchSize and repeatTimes',
      },
    );
  if (shape.actionDim > 64)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `the GPU engine's PPO loss takes at most 64 action dimensions; this env has ${shape.actionDim}`,
      { hint: 'use --backend wasm for this many assets' },
    );
}
