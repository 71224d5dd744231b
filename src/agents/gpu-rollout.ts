import {
  dispatchOf,
  encodeDispatches,
  ENV_FLOATS,
  ENV_WORDS,
  GAE_WORKGROUP,
  gaeKernel,
  gaeUniform,
  MINIBATCH_STRIDE,
  minibatchLayout,
  recordKernel,
  rewardScalingKernels,
  ROLLOUT_WORKGROUP,
  sampleKernel,
  sampleUniform,
  SCALING_STATS,
  scalingUniform,
  scalingWorkgroups,
  uniformOf,
  type DeviceRollout,
  type Dispatch,
  type GpuDevice,
  type Kernel,
  type MinibatchLayout,
  type ParameterSlot,
} from '../gpu/index.js';
import { mlpForward } from './gpu-mlp-forward.js';
import type { GpuTradingEnv } from './gpu-trading-env.js';

/*
 * A PPO rollout resident on the GPU: for each of `steps` steps, the actor's and the critic's
 * forward GEMMs on the env's observations, a Gaussian sample (gpu/kernels/rollout.ts), the env's
 * step (agents/gpu-trading-env.ts) and the record of its reward and flags; then the critic on the
 * last observations and GAE (gpu/kernels/gae.ts). All of it is one command buffer: nothing crosses
 * to the host. The rollout is written in the update program's layout (states, actions,
 * log-probabilities, advantages, returns, values: gpu/kernels/ppo-loss.ts's minibatchLayout over
 * steps × nEnvs rows, time-major), which the update program copies on the device
 * (PpoUpdateProgram.train with {@link GpuRollout.deviceRollout}); the host reads only which rows
 * train ({@link GpuRollout.trainingRows}), to shuffle them.
 *
 * With `rewardScaling` (the trainer's default normalizeRewards), each step's rewards are scaled on
 * the device as agents/return-normalizer.ts does (gpu/kernels/reward-scaling.ts), its running
 * statistics kept in a device buffer that a checkpoint reads and a resume writes.
 */

/** The networks' shape, as the update program's. */
export interface GpuRolloutShape {
  stateDim: number;
  actionDim: number;
  hidden: readonly number[];
  activation: 'relu' | 'tanh';
  tanhMean: boolean;
  /** Steps per rollout (targetStep / nEnvs). */
  steps: number;
}

/** GAE's constants, and reward scaling's when it is on. */
export interface GpuRolloutConstants {
  gamma: number;
  lambda: number;
  /** Scale rewards by the running sd of the discounted returns (γ of those returns). */
  rewardScaling?: { gamma: number };
}

/** Reward scaling's running statistics, as ReturnNormalizer's. */
export interface GpuReturnStatistics {
  count: number;
  mean: number;
  variance: number;
}

/** A rollout read back (tests and diagnostics; training never reads it). */
export interface GpuRolloutArrays {
  states: Float32Array;
  actions: Float32Array;
  logProbs: Float32Array;
  values: Float32Array;
  advantages: Float32Array;
  returns: Float32Array;
  rewards: Float32Array;
  terminated: Uint32Array;
  truncated: Uint32Array;
  resetMask: Uint32Array;
}

/** A rollout program over one device env and one set of parameters. */
export class GpuRollout {
  private constructor(
    private readonly gpu: GpuDevice,
    readonly layout: MinibatchLayout,
    readonly rows: number,
    /** The rollout in {@link layout}. */
    readonly rollout: GPUBuffer,
    private readonly buffers: Record<
      | 'rewards'
      | 'terminated'
      | 'truncated'
      | 'resetMask'
      | 'values'
      | 'lastValues'
      | 'advantages'
      | 'returns'
      | 'criticOut'
      | 'sampleParams'
      | 'steps'
      | 'discounted'
      | 'scalingStats',
      GPUBuffer
    >,
    private readonly owned: GPUBuffer[],
    private readonly perStep: Dispatch[],
    private readonly lastValues: Dispatch[],
    private readonly gae: Dispatch,
    private readonly stepGroup: GPUBindGroup,
    private readonly shape: GpuRolloutShape,
    private readonly nEnvs: number,
    private readonly logStdOffset: number,
  ) {}

  /**
   * Builds the rollout of `shape` over `env`, its networks read from `parameters` at `slots`
   * (ppoParameterSlots' layout, as the update program holds them).
   */
  static async build(
    gpu: GpuDevice,
    env: GpuTradingEnv,
    shape: GpuRolloutShape,
    parameters: GPUBuffer,
    slots: readonly ParameterSlot[],
    constants: GpuRolloutConstants,
  ): Promise<GpuRollout> {
    const n = env.nEnvs;
    const rows = shape.steps * n;
    const layout = minibatchLayout(shape.stateDim, shape.actionDim, rows);
    const owned: GPUBuffer[] = [];
    const storage = (bytes: number, label: string): GPUBuffer => {
      const b = gpu.storageBuffer(bytes, label);
      owned.push(b);
      return b;
    };
    const offsetOf = (name: string): number => {
      const slot = slots.find((s) => s.name === name);
      if (slot === undefined) throw new Error(`no parameter slot ${name}`);
      return slot.offset;
    };
    const rollout = storage(layout.size * 4, 'rollout');
    const buffers = {
      rewards: storage(rows * 4, 'rollout rewards'),
      terminated: storage(rows * 4, 'rollout terminated'),
      truncated: storage(rows * 4, 'rollout truncated'),
      resetMask: storage(rows * 4, 'rollout reset mask'),
      values: storage(rows * 4, 'rollout values'),
      lastValues: storage(n * 4, 'rollout last values'),
      advantages: storage(rows * 4, 'rollout advantages'),
      returns: storage(rows * 4, 'rollout returns'),
      criticOut: storage(n * 4, 'critic output'),
      sampleParams: gpu.uniformBuffer(16, 'rollout sample'),
      steps: gpu.uniformBuffer(shape.steps * MINIBATCH_STRIDE, 'rollout steps'),
      discounted: storage(n * 4, 'discounted returns'),
      scalingStats: storage(SCALING_STATS * 4, 'reward scaling statistics'),
    };
    owned.push(buffers.sampleParams, buffers.steps);
    const ranges = new Uint32Array((shape.steps * MINIBATCH_STRIDE) / 4);
    for (let t = 0; t < shape.steps; t++) ranges.set([t * n, n], (t * MINIBATCH_STRIDE) / 4);
    gpu.write(buffers.steps, 0, ranges);

    // The networks' forward passes on the env's observations, n rows, one GEMM per layer.
    const forward = (name: 'actor' | 'critic', outputs: number, out: GPUBuffer) =>
      mlpForward(gpu, {
        name,
        sizes: [shape.stateDim, ...shape.hidden, outputs],
        activation: shape.activation,
        lastEpilogue: 'bias',
        rows: n,
        input: env.obs,
        output: out,
        parameters,
        slots,
        owned,
      });
    const actorOut = storage(n * shape.actionDim * 4, 'actor output');
    const actor = await forward('actor', shape.actionDim, actorOut);
    const critic = await forward('critic', 1, buffers.criticOut);

    const groups = [Math.ceil(n / ROLLOUT_WORKGROUP)] as const;
    const sample = dispatchOf(
      gpu,
      await gpu.pipelines.kernel(sampleKernel(layout, shape.tanhMean)),
      [
        buffers.sampleParams,
        env.obs,
        actorOut,
        buffers.criticOut,
        parameters,
        rollout,
        buffers.values,
        env.actions,
      ],
      groups,
    );
    const record = dispatchOf(
      gpu,
      await gpu.pipelines.kernel(
        recordKernel({
          reward: ENV_FLOATS.reward,
          terminated: ENV_WORDS.terminated,
          truncated: ENV_WORDS.truncated,
          resetMask: ENV_WORDS.resetMask,
        }),
      ),
      [
        env.floats,
        env.words,
        buffers.rewards,
        buffers.terminated,
        buffers.truncated,
        buffers.resetMask,
      ],
      groups,
    );
    const scaling: Dispatch[] = [];
    if (constants.rewardScaling !== undefined) {
      const [returns, batchMean, squares, update, scale] = await Promise.all(
        rewardScalingKernels().map((spec) => gpu.pipelines.kernel(spec)),
      );
      const params = uniformOf(
        gpu,
        new Uint32Array(scalingUniform(n, constants.rewardScaling.gamma)),
        'reward scaling',
      );
      const partials = storage(2 * scalingWorkgroups(n) * 4, 'reward scaling partials');
      owned.push(params);
      const wide = [scalingWorkgroups(n)] as const;
      const { rewards, resetMask, discounted, scalingStats: stats } = buffers;
      scaling.push(
        dispatchOf(
          gpu,
          returns as Kernel,
          [params, rewards, resetMask, discounted, partials],
          wide,
        ),
        dispatchOf(gpu, batchMean as Kernel, [params, partials, stats], [1]),
        dispatchOf(gpu, squares as Kernel, [params, resetMask, discounted, stats, partials], wide),
        dispatchOf(gpu, update as Kernel, [params, partials, stats], [1]),
        dispatchOf(
          gpu,
          scale as Kernel,
          [params, buffers.terminated, buffers.truncated, stats, rewards, discounted],
          wide,
        ),
      );
    }
    const gaeParams = uniformOf(
      gpu,
      new Uint32Array(gaeUniform(n, shape.steps, constants.gamma, constants.lambda)),
      'gae',
    );
    owned.push(gaeParams);
    const gae = dispatchOf(
      gpu,
      await gpu.pipelines.kernel(gaeKernel()),
      [
        gaeParams,
        buffers.rewards,
        buffers.values,
        buffers.lastValues,
        buffers.terminated,
        buffers.truncated,
        buffers.resetMask,
        buffers.advantages,
        buffers.returns,
      ],
      [Math.ceil(n / GAE_WORKGROUP)],
    );
    const stepGroup = gpu.device.createBindGroup({
      label: 'rollout steps',
      layout: gpu.pipelines.rangeLayout,
      entries: [{ binding: 0, resource: { buffer: buffers.steps, size: 8 } }],
    });
    const rolloutProgram = new GpuRollout(
      gpu,
      layout,
      rows,
      rollout,
      buffers,
      owned,
      [...actor, ...critic, sample, env.stepKernel, record, ...scaling],
      critic,
      gae,
      stepGroup,
      shape,
      n,
      offsetOf('logStd'),
    );
    rolloutProgram.writeReturnStatistics({ count: 1e-4, mean: 0, variance: 1 });
    gpu.check();
    return rolloutProgram;
  }

  /**
   * Sets reward scaling's running statistics (a resume's; a new run's are count 1e-4, mean 0,
   * variance 1) and forgets the running episodes' discounted returns.
   */
  writeReturnStatistics(statistics: GpuReturnStatistics): void {
    const stats = new Float32Array(SCALING_STATS);
    stats.set([statistics.count, statistics.mean, statistics.variance]);
    this.gpu.write(this.buffers.scalingStats, 0, stats);
    this.gpu.write(this.buffers.discounted, 0, new Float32Array(this.nEnvs));
  }

  /** Reward scaling's running statistics now (for a checkpoint). */
  async readReturnStatistics(): Promise<GpuReturnStatistics> {
    const [count, mean, variance] = await this.gpu.readFloats(this.buffers.scalingStats, 0, 3);
    return { count: count ?? 0, mean: mean ?? 0, variance: variance ?? 1 };
  }

  /**
   * Collects one rollout with the parameters as they are now, from where the env stands, its
   * noise drawn from `seed`: one submit, nothing read.
   */
  collect(seed: number): void {
    const { gpu, buffers, shape, nEnvs: n } = this;
    gpu.write(buffers.sampleParams, 0, sampleUniform(seed, this.logStdOffset));
    const encoder = gpu.device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    let count = 0;
    for (let t = 0; t < shape.steps; t++)
      count += encodeDispatches(pass, this.perStep, { group: this.stepGroup, slot: t, rows: n });
    count += encodeDispatches(pass, this.lastValues);
    pass.end();
    encoder.copyBufferToBuffer(buffers.criticOut, 0, buffers.lastValues, 0, n * 4);
    const gaePass = encoder.beginComputePass();
    count += encodeDispatches(gaePass, [this.gae]);
    gaePass.end();
    const rows = this.rows;
    const { layout } = this;
    encoder.copyBufferToBuffer(buffers.values, 0, this.rollout, layout.oldValues * 4, rows * 4);
    encoder.copyBufferToBuffer(
      buffers.advantages,
      0,
      this.rollout,
      layout.advantages * 4,
      rows * 4,
    );
    encoder.copyBufferToBuffer(buffers.returns, 0, this.rollout, layout.returns * 4, rows * 4);
    gpu.submit(encoder, count);
  }

  /** The rollout as the update program takes it, without leaving the device. */
  get deviceRollout(): DeviceRollout {
    return { rows: this.rows, buffer: this.rollout };
  }

  /**
   * The rows of the last rollout that train (the others are autoreset steps): one read of a u32 a
   * row, what the host needs to shuffle the minibatches.
   */
  async trainingRows(): Promise<Int32Array> {
    const mask = new Uint32Array(await this.gpu.read(this.buffers.resetMask, 0, this.rows * 4));
    const rows: number[] = [];
    mask.forEach((reset, i) => {
      if (reset === 0) rows.push(i);
    });
    return Int32Array.from(rows);
  }

  /** The last rollout, read back. */
  async read(): Promise<GpuRolloutArrays> {
    const { gpu, buffers, layout, rows } = this;
    const all = await gpu.readFloats(this.rollout, 0, layout.size);
    const words = async (b: GPUBuffer): Promise<Uint32Array> =>
      new Uint32Array(await gpu.read(b, 0, rows * 4));
    return {
      states: all.slice(layout.states, layout.states + rows * layout.stateDim),
      actions: all.slice(layout.actions, layout.actions + rows * layout.actionDim),
      logProbs: all.slice(layout.oldLogProbs, layout.oldLogProbs + rows),
      values: all.slice(layout.oldValues, layout.oldValues + rows),
      advantages: all.slice(layout.advantages, layout.advantages + rows),
      returns: all.slice(layout.returns, layout.returns + rows),
      rewards: await gpu.readFloats(buffers.rewards, 0, rows),
      terminated: await words(buffers.terminated),
      truncated: await words(buffers.truncated),
      resetMask: await words(buffers.resetMask),
    };
  }

  /** Releases the rollout's buffers (not the env's, nor the parameters). */
  destroy(): void {
    for (const b of this.owned) b.destroy();
  }
}
