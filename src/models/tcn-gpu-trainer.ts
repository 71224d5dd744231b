import * as tf from '../compute/tfjs.js';
import {
  TcnStepProgram,
  type GpuDevice,
  type KernelTime,
  type ParameterSlot,
} from '../gpu/index.js';
import type { Tcn } from './tcn.js';
import type { TcnBatch, TcnStepResult, TcnTrainer } from './tcn-trainer.js';

/*
 * A TcnTrainer's steps on tradelab's GPU engine. The network's tfjs variables and the trainer's
 * ExactAdam stay the source of truth for validation, evaluation and checkpoints: the engine takes
 * them when it starts (fresh or resumed), the weights come back when the CPU needs them (once an
 * epoch, for validation) and Adam's moments before a checkpoint is written, so a run stopped and
 * resumed continues with the same bits. With the trainer's gradient checkpointing the engine
 * recomputes each block's convolutions before its backward, as the CPU does.
 */

/** The steps of `trainer` on the engine. */
export class GpuTcnTrainer {
  /** Steps run on the device since Adam's state was last brought back. */
  private stepsSinceSync = 0;

  private constructor(
    private readonly program: TcnStepProgram,
    private readonly variables: tf.Variable[],
    private readonly trainer: TcnTrainer,
  ) {}

  /**
   * The engine's program for `net` trained by `trainer` on chunks of `time` bars, micro-batches of
   * at most `chunks`, loaded with the network's weights and the trainer's Adam state.
   */
  static async create(
    gpu: GpuDevice,
    net: Tcn,
    trainer: TcnTrainer,
    time: number,
    chunks: number,
  ): Promise<GpuTcnTrainer> {
    const c = net.config;
    const program = await TcnStepProgram.build(
      gpu,
      {
        inputs: c.inputs,
        hidden: c.hidden,
        layers: c.layers,
        kernel: c.kernel,
        norm: c.norm,
        pooling: c.pooling,
        headHidden: c.headHidden,
        dropout: c.dropout,
        time,
        batch: chunks,
        checkpoint: trainer.options.checkpoint,
      },
      { beta1: 0.9, beta2: 0.999, epsilon: 1e-8, maxGradNorm: trainer.options.maxGradNorm ?? 1 },
    );
    const named = net.namedVariables();
    const variables = program.slots.map((slot: ParameterSlot) => {
      const variable = named[slot.name];
      if (variable === undefined) throw new Error(`no TCN variable for GPU slot ${slot.name}`);
      return variable;
    });
    const engine = new GpuTcnTrainer(program, variables, trainer);
    await engine.load();
    return engine;
  }

  /** Uploads the variables and the trainer's Adam state. */
  private async load(): Promise<void> {
    const { program } = this;
    const flat = new Float32Array(program.size);
    for (const [i, slot] of program.slots.entries())
      flat.set(await (this.variables[i] as tf.Variable).data(), slot.offset);
    // Adam's slots follow the order the trainer's gradients were keyed in: net.variables.
    const order = this.trainer.net.variables;
    const moments = await this.trainer.optimizer.moments(order);
    const m = new Float32Array(program.size);
    const v = new Float32Array(program.size);
    for (const [i, slot] of program.slots.entries()) {
      const at = order.indexOf(this.variables[i] as tf.Variable);
      m.set(moments.m[at] as Float32Array, slot.offset);
      v.set(moments.v[at] as Float32Array, slot.offset);
    }
    program.writeState(flat, { m, v, accBeta1: moments.accBeta1, accBeta2: moments.accBeta2 });
    this.stepsSinceSync = 0;
  }

  /** One step over `batches` (as TcnTrainer.step, at the trainer's learning rate). */
  async step(batches: readonly TcnBatch[], seed: number): Promise<TcnStepResult> {
    const result = await this.program.step(batches, seed, this.trainer.optimizer.rate);
    this.stepsSinceSync++;
    return result;
  }

  /**
   * One step of one micro-batch with each kernel timed by the device (undefined without timestamp
   * queries). It trains, and counts as a step.
   */
  async profileStep(batch: TcnBatch, seed: number): Promise<KernelTime[] | undefined> {
    const times = await this.program.profileStep(batch, seed, this.trainer.optimizer.rate);
    this.stepsSinceSync++;
    return times;
  }

  /** Bytes the engine's program holds on the device. */
  get deviceBytes(): number {
    return this.program.allocatedBytes;
  }

  /** Brings the weights back into the network's variables. */
  async syncWeights(): Promise<void> {
    const flat = await this.program.readParameters();
    tf.tidy(() => {
      for (const [i, slot] of this.program.slots.entries())
        (this.variables[i] as tf.Variable).assign(
          tf.tensor(flat.subarray(slot.offset, slot.offset + slot.size), slot.shape),
        );
    });
  }

  /** Brings Adam's state back into the trainer's optimizer (before a checkpoint). */
  async syncOptimizer(): Promise<void> {
    const moments = await this.program.readMoments();
    const order = this.trainer.net.variables;
    const m: Float32Array[] = [];
    const v: Float32Array[] = [];
    for (const variable of order) {
      const slot = this.program.slots[this.variables.indexOf(variable)] as ParameterSlot;
      m.push(moments.m.slice(slot.offset, slot.offset + slot.size));
      v.push(moments.v.slice(slot.offset, slot.offset + slot.size));
    }
    this.trainer.optimizer.setMoments(
      order,
      { m, v, accBeta1: moments.accBeta1, accBeta2: moments.accBeta2 },
      this.stepsSinceSync,
    );
    this.stepsSinceSync = 0;
  }
}
