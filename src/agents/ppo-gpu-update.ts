import * as tf from '../compute/tfjs.js';
import { TradelabError } from '../core/index.js';
import {
  PpoUpdateProgram,
  type GpuDevice,
  type ParameterSlot,
  type PpoProgramConstants,
  type RolloutArrays,
} from '../gpu/index.js';
import type { ExactAdam } from '../models/index.js';
import { Mlp } from '../models/mlp.js';
import { PPO_DEFAULTS, type PpoConfig } from './ppo-config.js';
import { ppoVariables, type PpoNetworks } from './ppo-update.js';

/*
 * PPO's update on tradelab's GPU engine, for a trainer whose networks are tfjs variables: the
 * variables stay the source of truth for acting, evaluation and checkpoints, and the engine holds
 * a copy that it trains. The weights come back after every update (the next rollout acts with
 * them), Adam's moments only when a checkpoint is written. The GPU program lays the parameters
 * out its own way; the slots' names map them to the tfjs variables.
 */

/** The actor as an MLP, or the error that the engine does not train it. */
function mlpActor(nets: PpoNetworks): Mlp {
  if (nets.actor instanceof Mlp) return nets.actor;
  throw new TradelabError(
    'INVALID_ARGUMENT',
    "the GPU engine trains an MLP actor; this run's actor is an FT-Transformer",
    { hint: 'train the FT-Transformer with --backend wasm (it stays on the CPU this release)' },
  );
}

/** The GPU program's loss and optimizer constants from a PPO config (Adam's β as cleanrl's). */
export function ppoProgramConstants(
  config: Pick<
    PpoConfig,
    'ratioClip' | 'lambdaEntropy' | 'valueCoef' | 'maxGradNorm' | 'adamEpsilon'
  >,
): PpoProgramConstants {
  return {
    ratioClip: config.ratioClip,
    entropyCoef: config.lambdaEntropy,
    valueCoef: config.valueCoef,
    maxGradNorm: config.maxGradNorm,
    beta1: 0.9,
    beta2: 0.999,
    epsilon: config.adamEpsilon,
  };
}

/** The tfjs variable behind each of the program's parameter slots. */
export function variablesBySlot(nets: PpoNetworks, slots: readonly ParameterSlot[]): tf.Variable[] {
  const actor = mlpActor(nets);
  const { critic } = nets;
  return slots.map((slot) => {
    if (slot.name === 'logStd') return nets.logStd;
    const [net, tensor] = slot.name.split('/') as [string, string];
    const mlp = net === 'actor' ? actor : critic;
    const layer = Number(tensor.slice(1));
    const variable = tensor.startsWith('w') ? mlp.weights[layer] : mlp.biases[layer];
    if (variable === undefined) throw new Error(`no variable for GPU slot ${slot.name}`);
    return variable;
  });
}

/** PPO's update on the GPU engine for one trainer's networks and optimizer. */
export class GpuPpoUpdate {
  /** Minibatch steps run on the device since the optimizer was last brought back. */
  private stepsSinceSync = 0;

  private constructor(
    readonly program: PpoUpdateProgram,
    private readonly variables: tf.Variable[],
    private readonly nets: PpoNetworks,
  ) {}

  /** Builds the program for `nets` and `config` and loads the weights and Adam's state into it. */
  static async create(
    gpu: GpuDevice,
    nets: PpoNetworks,
    optimizer: ExactAdam,
    config: Readonly<PpoConfig>,
  ): Promise<GpuPpoUpdate> {
    mlpActor(nets);
    const program = await PpoUpdateProgram.build(
      gpu,
      {
        stateDim: nets.config.stateDim,
        actionDim: nets.config.actionDim,
        hidden: Array.from(
          { length: nets.config.layers ?? PPO_DEFAULTS.layers },
          () => nets.config.netDim,
        ),
        activation: nets.config.activation ?? PPO_DEFAULTS.activation,
        tanhMean: (nets.config.meanSquash ?? PPO_DEFAULTS.meanSquash) === 'tanh',
        rolloutRows: config.targetStep,
        batchSize: config.batchSize,
        passes: config.repeatTimes,
        normalizeAdvantages:
          config.normalizeAdvantages && config.normalizeAdvantagesOver === 'minibatch',
        clipValueLoss: config.clipValueLoss,
      },
      ppoProgramConstants(config),
    );
    const update = new GpuPpoUpdate(program, variablesBySlot(nets, program.slots), nets);
    await update.load(optimizer);
    return update;
  }

  /** Uploads the variables and Adam's state (from `optimizer`, in ppoVariables' order). */
  async load(optimizer: ExactAdam): Promise<void> {
    const { program } = this;
    const flat = new Float32Array(program.size);
    for (const [i, slot] of program.slots.entries())
      flat.set(await (this.variables[i] as tf.Variable).data(), slot.offset);
    program.writeParameters(flat);
    const order = ppoVariables(this.nets);
    const moments = await optimizer.moments(order);
    const m = new Float32Array(program.size);
    const v = new Float32Array(program.size);
    for (const [i, slot] of program.slots.entries()) {
      const at = order.indexOf(this.variables[i] as tf.Variable);
      m.set(moments.m[at] as Float32Array, slot.offset);
      v.set(moments.v[at] as Float32Array, slot.offset);
    }
    program.writeMoments({ m, v, accBeta1: moments.accBeta1, accBeta2: moments.accBeta2 });
    this.stepsSinceSync = 0;
  }

  /** Trains on a rollout (see {@link PpoUpdateProgram.train}), then brings the weights back. */
  async train(
    rollout: RolloutArrays,
    order: (pass: number) => Int32Array,
    options: { learningRate: number; targetKl: number | null },
  ): Promise<{ statSums: Float32Array; steps: number; passes: number; dispatches: number }> {
    const result = await this.program.train(rollout, order, options);
    this.stepsSinceSync += result.steps;
    const flat = await this.program.readParameters();
    tf.tidy(() => {
      for (const [i, slot] of this.program.slots.entries())
        (this.variables[i] as tf.Variable).assign(
          tf.tensor(flat.subarray(slot.offset, slot.offset + slot.size), slot.shape),
        );
    });
    return result;
  }

  /** Brings Adam's state back into `optimizer` (before a checkpoint is written). */
  async syncOptimizer(optimizer: ExactAdam): Promise<void> {
    const moments = await this.program.readMoments();
    const order = ppoVariables(this.nets);
    const m: Float32Array[] = [];
    const v: Float32Array[] = [];
    for (const variable of order) {
      const slot = this.program.slots[this.variables.indexOf(variable)] as ParameterSlot;
      m.push(moments.m.slice(slot.offset, slot.offset + slot.size));
      v.push(moments.v.slice(slot.offset, slot.offset + slot.size));
    }
    optimizer.setMoments(
      order,
      { m, v, accBeta1: moments.accBeta1, accBeta2: moments.accBeta2 },
      this.stepsSinceSync,
    );
    this.stepsSinceSync = 0;
  }
}
