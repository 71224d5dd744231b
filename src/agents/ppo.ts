import * as tf from '../compute/tfjs.js';
import { memoryReport } from '../compute/memory-report.js';
import { TransferMeter } from '../compute/transfer-meter.js';
import { Rng } from '../core/random.js';
import type { VectorTradingEnv } from '../env/trading-env.js';
import type { Policy } from '../eval/evaluate.js';
import { EventLoopTurns, TradelabError } from '../core/index.js';
import { computeGae, type GaeOutput } from './gae.js';
import { GaussianActor } from './gaussian-policy.js';
import { isExactAdam, type ExactAdam } from '../models/index.js';
import { Mlp } from '../models/mlp.js';
import { resolvePpoConfig, type PpoConfig } from './ppo-config.js';
import {
  createPpoNetworks,
  disposeMinibatch,
  disposePpoNetworks,
  PPO_STEP_STATS,
  ppoGradientStep,
  ppoOptimizer,
  ppoStepStats,
  type PpoMinibatch,
  type PpoNetworks,
  type PpoStepStats,
} from './ppo-update.js';
import { RolloutBuffer, RolloutCollector } from './rollout.js';
import { ReturnNormalizer, type ReturnStatistics } from './return-normalizer.js';
import type { GpuDevice } from '../gpu/index.js';
import { GpuPpoUpdate } from './ppo-gpu-update.js';

/*
 * PPO (cleanrl's ppo_continuous_action.py is the model): collect targetStep env steps from all
 * envs together, compute GAE, then repeatTimes passes of shuffled minibatches through the clipped
 * update. The rollout is uploaded once per update and minibatches are gathered on the device; the
 * losses are summed there and read once (once per pass with a targetKl, which needs the KL on the
 * host to decide whether to go on). Every random choice (action noise, minibatch order, env starts)
 * comes from a generator seeded by (seed, update), and the annealed learning rate is a function of
 * the update's index, so a run resumed from a checkpoint continues exactly as it would have.
 */

/** What one update measured: the rollout/update phase split, throughput, losses. */
export interface PpoUpdateReport {
  /** 1-based update number. */
  update: number;
  /** Env steps collected so far, across all envs. */
  envSteps: number;
  /** Transitions trained on in this update (autoreset steps excluded). */
  samples: number;
  rolloutSeconds: number;
  /** Of the rollout: stepping the envs, and the policy's forward passes. */
  envSeconds: number;
  policySeconds: number;
  updateSeconds: number;
  /** Env steps per second of the rollout phase. */
  envStepsPerSecond: number;
  /** Minibatch samples per second of the update phase (samples × passes / updateSeconds). */
  samplesPerSecond: number;
  /** Adam's learning rate in this update (annealed: learningRate × (1 − (update − 1) / total)). */
  learningRate: number;
  /** Passes over the rollout: fewer than repeatTimes when targetKl stopped the update. */
  passes: number;
  /** Minibatch gradient steps run in this update. */
  minibatches: number;
  /** Episodes that ended in this rollout, and their mean return (null when none ended). */
  episodes: number;
  meanEpisodeReturn: number | null;
  /** Means over the minibatch steps run: losses, approximate KL and the fraction of clipped ratios. */
  policyLoss: number;
  valueLoss: number;
  entropy: number;
  approxKl: number;
  clipFraction: number;
  /** 1 − Var(returns − values) / Var(returns): how much of the return the critic explains. */
  explainedVariance: number;
  /** Mean of the policy's standard deviations. */
  actionStd: number;
  /** Host→device and device→host bytes of this update (rollout and update phases). */
  uploadBytes: number;
  downloadBytes: number;
  /** Reads from the device: one per rollout step, plus four per update (3 + passes with a targetKl). */
  reads: number;
  /** Seconds in those transfers; on webgpu reads include waiting for queued device work. */
  transferSeconds: number;
  /** Tensors alive and the backend's heap after the update (constant tensors: no leak). */
  tensors: number;
  backendHeapBytes: number | null;
}

/** Where a trainer's state comes from when it does not start fresh. */
export interface PpoTrainerState {
  nets: PpoNetworks;
  optimizer: tf.Optimizer;
  updatesDone: number;
  envSteps: number;
  /** The reward scaling's running statistics (normalizeRewards; absent in older checkpoints). */
  returnStatistics?: ReturnStatistics;
}

/** Options of {@link PpoTrainer}. */
export interface PpoTrainerOptions {
  /** Reset every env (new seeded starts) before updates whose 0-based index is a multiple of this. 0: only before the first. */
  resetEvery?: number;
  /**
   * Networks, optimizer and counters to continue from (a loaded checkpoint). With annealLr the
   * optimizer must be ppoOptimizer()'s, whose rate can be set (loadPpoModel gives one).
   */
  resume?: PpoTrainerState;
  /**
   * tradelab's GPU engine: the update runs there (an MLP actor; the FT-Transformer stays on the
   * CPU). The networks stay tfjs variables, brought up to date after every update. Default none.
   */
  gpu?: GpuDevice;
}

/** Trains PPO on one {@link VectorTradingEnv}. Dispose it when done. */
export class PpoTrainer {
  readonly config: Readonly<PpoConfig>;
  readonly nets: PpoNetworks;
  readonly optimizer: tf.Optimizer;
  readonly actor: GaussianActor;
  /** Updates completed. */
  updatesDone: number;
  /** Env steps collected so far. */
  envSteps: number;
  private readonly buffer: RolloutBuffer;
  private readonly collector: RolloutCollector;
  private readonly returnNormalizer: ReturnNormalizer | undefined;
  private readonly gae: GaeOutput;
  private readonly resetEvery: number;
  private readonly transfer = new TransferMeter();
  private started = false;
  private readonly gpu: GpuDevice | undefined;
  private gpuUpdate: GpuPpoUpdate | undefined;

  constructor(
    readonly env: VectorTradingEnv,
    config: Partial<PpoConfig> = {},
    options: PpoTrainerOptions = {},
  ) {
    this.config = resolvePpoConfig({ nEnvs: env.nEnvs, ...config });
    if (this.config.nEnvs !== env.nEnvs)
      throw new TradelabError(
        'INVALID_ARGUMENT',
        `ppo nEnvs ${this.config.nEnvs} does not match the env's ${env.nEnvs}`,
        { hint: 'build the env with nEnvs equal to the PPO config, or leave nEnvs out of it' },
      );
    const c = this.config;
    this.nets =
      options.resume?.nets ??
      createPpoNetworks({
        stateDim: env.obsDim,
        actionDim: env.assets,
        policy: c.policy,
        netDim: c.netDim,
        layers: c.layers,
        activation: c.activation,
        meanSquash: c.meanSquash,
        initLogStd: c.initLogStd,
        seed: c.seed,
      });
    if (this.nets.config.stateDim !== env.obsDim || this.nets.config.actionDim !== env.assets)
      throw new TradelabError(
        'DATA_MISMATCH',
        `the networks take ${this.nets.config.stateDim} inputs and give ${this.nets.config.actionDim} actions; the env has ${env.obsDim} and ${env.assets}`,
        { hint: 'resume on the same symbols, features and lookback as the run was trained on' },
      );
    this.optimizer = options.resume?.optimizer ?? ppoOptimizer(c.learningRate, c.adamEpsilon);
    if (c.annealLr && !isExactAdam(this.optimizer))
      throw new TradelabError(
        'INVALID_ARGUMENT',
        'ppo annealLr needs an optimizer whose learning rate can be set; the one given is not',
        {
          hint: 'resume with the optimizer of ppoOptimizer() or loadPpoModel(), or set annealLr: false',
        },
      );
    this.updatesDone = options.resume?.updatesDone ?? 0;
    this.envSteps = options.resume?.envSteps ?? 0;
    this.resetEvery = options.resetEvery ?? 0;
    // The engine trains MLP actors; an FT-Transformer's update stays on the CPU.
    this.gpu = this.nets.actor instanceof Mlp ? options.gpu : undefined;
    if (this.gpu !== undefined && !isExactAdam(this.optimizer))
      throw new TradelabError(
        'INVALID_ARGUMENT',
        "the GPU engine continues Adam's state, so it needs ppoOptimizer()'s or loadPpoModel()'s optimizer",
        { hint: 'resume with the optimizer loadPpoModel() gives, or train on --backend wasm' },
      );
    this.actor = new GaussianActor(this.nets, this.transfer);
    this.buffer = new RolloutBuffer(c.targetStep / c.nEnvs, c.nEnvs, env.obsDim, env.assets);
    this.returnNormalizer = c.normalizeRewards
      ? new ReturnNormalizer(env.nEnvs, c.gamma, options.resume?.returnStatistics)
      : undefined;
    this.collector = new RolloutCollector(env, this.actor, this.returnNormalizer);
    this.gae = {
      advantages: new Float32Array(this.buffer.size),
      returns: new Float32Array(this.buffer.size),
    };
  }

  /** Updates needed to reach breakStep env steps. */
  get totalUpdates(): number {
    return Math.ceil(this.config.breakStep / this.config.targetStep);
  }

  /** Adam's learning rate for update `index` (0-based): learningRate, annealed linearly when asked. */
  learningRateAt(index: number): number {
    const c = this.config;
    return c.annealLr ? c.learningRate * (1 - index / this.totalUpdates) : c.learningRate;
  }

  /** What a checkpoint stores to resume exactly: the counters and the reward scaling's statistics. */
  trainingCounters(): Omit<PpoTrainerState, 'nets' | 'optimizer'> {
    return {
      updatesDone: this.updatesDone,
      envSteps: this.envSteps,
      ...(this.returnNormalizer === undefined
        ? {}
        : { returnStatistics: this.returnNormalizer.statistics() }),
    };
  }

  /** Whether breakStep env steps have been collected. */
  get finished(): boolean {
    return this.updatesDone >= this.totalUpdates;
  }

  /** One rollout and one update; returns what it measured. */
  async update(): Promise<PpoUpdateReport> {
    const c = this.config;
    const index = this.updatesDone;
    const rng = new Rng(c.seed, 0x9907, index);
    if (!this.started || (this.resetEvery > 0 && index % this.resetEvery === 0))
      this.collector.reset(envSeed(c.seed, index));
    this.started = true;

    const rolloutStarted = performance.now();
    this.transfer.take();
    const rollout = await this.collector.collect(this.buffer, rng);
    const rolloutSeconds = (performance.now() - rolloutStarted) / 1000;

    const updateStarted = performance.now();
    const b = this.buffer;
    computeGae(
      {
        nEnvs: c.nEnvs,
        rewards: b.rewards,
        values: b.values,
        lastValues: b.lastValues,
        terminations: b.terminations,
        truncations: b.truncations,
        valid: b.valid,
        gamma: c.gamma,
        lambda: c.lambdaGae,
      },
      this.gae,
    );
    const indices = validIndices(b.valid);
    const explained = explainedVariance(indices, this.gae.returns, b.values);
    if (c.normalizeAdvantages && c.normalizeAdvantagesOver === 'rollout')
      normalize(this.gae.advantages, indices);
    const learningRate = this.learningRateAt(index);
    // Set from the index alone, never stepped down in place: a resumed run gets the same rate.
    if (isExactAdam(this.optimizer)) this.optimizer.setLearningRate(learningRate);
    const { stats, passes, minibatches } = await this.trainOnRollout(indices, rng);
    const updateSeconds = (performance.now() - updateStarted) / 1000;

    this.updatesDone++;
    this.envSteps += c.targetStep;
    const logStd = await this.actor.logStd();
    const transfer = this.transfer.take();
    if (this.gpu !== undefined) {
      // The engine's own traffic: the rollout and orders up, the statistics and weights back.
      const engine = this.gpu.takeCounts();
      transfer.uploadBytes += engine.uploadBytes;
      transfer.downloadBytes += engine.downloadBytes;
      transfer.reads += engine.reads;
    }
    let std = 0;
    for (const v of logStd) std += Math.exp(v) / logStd.length;
    const episodes = rollout.episodeReturns.length;
    const memory = memoryReport();
    return {
      update: this.updatesDone,
      envSteps: this.envSteps,
      samples: indices.length,
      rolloutSeconds,
      envSeconds: rollout.envSeconds,
      policySeconds: rollout.policySeconds,
      updateSeconds,
      envStepsPerSecond: c.targetStep / rolloutSeconds,
      samplesPerSecond: (indices.length * passes) / updateSeconds,
      learningRate,
      passes,
      minibatches,
      episodes,
      meanEpisodeReturn:
        episodes === 0 ? null : rollout.episodeReturns.reduce((s, r) => s + r, 0) / episodes,
      ...stats,
      explainedVariance: explained,
      actionStd: std,
      ...transfer,
      tensors: memory.tensors,
      backendHeapBytes: memory.backendHeapBytes,
    };
  }

  /**
   * Updates until breakStep (or until `shouldStop` says so after an update), calling `onUpdate`
   * after each. Returns the reports of the updates it ran.
   */
  async train(
    options: {
      onUpdate?: (report: PpoUpdateReport) => void | Promise<void>;
      shouldStop?: () => boolean;
    } = {},
  ): Promise<PpoUpdateReport[]> {
    const reports: PpoUpdateReport[] = [];
    while (!this.finished) {
      const report = await this.update();
      reports.push(report);
      await options.onUpdate?.(report);
      // Let signals and other events through between updates.
      await new Promise((resolve) => setImmediate(resolve));
      if (options.shouldStop?.() === true) break;
    }
    return reports;
  }

  /** The deterministic policy (the mean action) for {@link evaluate}. */
  policy(): Policy {
    return this.actor.deterministic();
  }

  /**
   * Brings Adam's state back from the GPU engine into {@link optimizer}, so a checkpoint saves
   * it. Nothing to do on the CPU.
   */
  async syncOptimizer(): Promise<void> {
    if (this.gpuUpdate !== undefined && isExactAdam(this.optimizer))
      await this.gpuUpdate.syncOptimizer(this.optimizer);
  }

  /** Releases the networks and the optimizer's slots. */
  dispose(): void {
    this.optimizer.dispose();
    disposePpoNetworks(this.nets);
  }

  /**
   * repeatTimes passes of shuffled minibatches (fewer when targetKl stops them); the mean of each
   * statistic over the minibatch steps run. The rollout goes to the device once; each minibatch is
   * a gather by an uploaded index list. The statistics are summed on the device and read once, or,
   * with a targetKl, once per pass together with the pass's last KL: the stop is decided per pass
   * (as cleanrl), not per minibatch, which would cost a round trip to a GPU per minibatch.
   */
  private async trainOnRollout(
    indices: Int32Array,
    rng: Rng,
  ): Promise<{ stats: PpoStepStats; passes: number; minibatches: number }> {
    const c = this.config;
    const b = this.buffer;
    if (this.gpu !== undefined && isExactAdam(this.optimizer))
      return this.trainOnGpu(this.gpu, this.optimizer, indices, rng);
    const { obsDim, actionDim } = b;
    const batch = Math.min(c.batchSize, indices.length);
    const t = this.transfer;
    const rollout: PpoMinibatch = {
      states: t.upload<tf.Rank.R2>(b.obs, [b.size, obsDim]),
      actions: t.upload<tf.Rank.R2>(b.actions, [b.size, actionDim]),
      oldLogProbs: t.upload<tf.Rank.R1>(b.logProbs, [b.size]),
      advantages: t.upload<tf.Rank.R1>(this.gae.advantages, [b.size]),
      returns: t.upload<tf.Rank.R1>(this.gae.returns, [b.size]),
      // Only a clipped value loss needs the rollout's values: no upload otherwise.
      ...(c.clipValueLoss ? { oldValues: t.upload<tf.Rank.R1>(b.values, [b.size]) } : {}),
    };
    const width = PPO_STEP_STATS.length;
    let sum: tf.Tensor1D = tf.zeros([width]);
    let lastKl: tf.Scalar | undefined;
    let read: Float32Array | undefined;
    let steps = 0;
    let passes = 0;
    const order = Int32Array.from(indices);
    // Turns of the event loop between minibatches, so that a Ctrl-C is seen during an update.
    const turns = new EventLoopTurns();
    try {
      for (let pass = 0; pass < c.repeatTimes; pass++) {
        shuffle(order, rng);
        for (let start = 0; start < order.length; start += batch) {
          const rows = t.upload<tf.Rank.R1>(
            order.subarray(start, Math.min(start + batch, order.length)),
            [Math.min(batch, order.length - start)],
          );
          const minibatch = gatherRows(rollout, rows);
          rows.dispose();
          try {
            const stats = ppoGradientStep(this.nets, this.optimizer, minibatch, c);
            const next = tf.add<tf.Tensor1D>(sum, stats);
            if (c.targetKl !== null) {
              lastKl?.dispose();
              lastKl = tf.tidy(() => tf.squeeze<tf.Scalar>(tf.slice(stats, [KL_STAT], [1])));
            }
            stats.dispose();
            sum.dispose();
            sum = next;
            steps++;
          } finally {
            disposeMinibatch(minibatch);
          }
          await turns.maybeYield();
        }
        passes++;
        if (c.targetKl !== null && lastKl !== undefined) {
          const kl = lastKl;
          const both = tf.tidy(() => tf.concat([sum, tf.reshape(kl, [1])]));
          try {
            read = await t.read(both);
          } finally {
            both.dispose();
          }
          if ((read[width] ?? 0) > c.targetKl) break;
        }
      }
      read ??= await t.read(sum);
      return {
        stats: ppoStepStats(read.subarray(0, width), Math.max(1, steps)),
        passes,
        minibatches: steps,
      };
    } finally {
      sum.dispose();
      lastKl?.dispose();
      disposeMinibatch(rollout);
    }
  }

  /**
   * {@link trainOnRollout} on tradelab's GPU engine: the same passes, shuffles and statistics, one
   * command buffer per update (one per pass with a targetKl), the weights read back once.
   */
  private async trainOnGpu(
    gpu: GpuDevice,
    optimizer: ExactAdam,
    indices: Int32Array,
    rng: Rng,
  ): Promise<{ stats: PpoStepStats; passes: number; minibatches: number }> {
    const c = this.config;
    const b = this.buffer;
    this.gpuUpdate ??= await GpuPpoUpdate.create(gpu, this.nets, optimizer, c);
    const order = Int32Array.from(indices);
    const result = await this.gpuUpdate.train(
      {
        rows: b.size,
        states: b.obs,
        actions: b.actions,
        logProbs: b.logProbs,
        advantages: this.gae.advantages,
        returns: this.gae.returns,
        values: b.values,
      },
      () => {
        shuffle(order, rng);
        return order;
      },
      { learningRate: optimizer.rate, targetKl: c.targetKl },
    );
    return {
      stats: ppoStepStats(result.statSums, Math.max(1, result.steps)),
      passes: result.passes,
      minibatches: result.steps,
    };
  }
}

/** The rows `rows` of every tensor of `rollout`, gathered on the device. */
function gatherRows(rollout: PpoMinibatch, rows: tf.Tensor1D): PpoMinibatch {
  return {
    states: tf.gather(rollout.states, rows),
    actions: tf.gather(rollout.actions, rows),
    oldLogProbs: tf.gather(rollout.oldLogProbs, rows),
    advantages: tf.gather(rollout.advantages, rows),
    returns: tf.gather(rollout.returns, rows),
    ...(rollout.oldValues === undefined ? {} : { oldValues: tf.gather(rollout.oldValues, rows) }),
  };
}

/** Where the approximate KL sits in a step's statistics. */
const KL_STAT = PPO_STEP_STATS.indexOf('approxKl');

/** The env seed used when the envs are reset before update `index` (0-based). */
export function envSeed(seed: number, index: number): number {
  // Distinct per update and far apart (env i adds i), within safe integers.
  return (seed % 1_000_000) * 1_000_003 + index * 10_007;
}

function validIndices(valid: Uint8Array): Int32Array {
  let count = 0;
  for (const v of valid) count += v;
  const out = new Int32Array(count);
  let k = 0;
  for (let i = 0; i < valid.length; i++) if (valid[i] === 1) out[k++] = i;
  return out;
}

/** Fisher–Yates with the seeded generator. */
function shuffle(values: Int32Array, rng: Rng): void {
  for (let i = values.length - 1; i > 0; i--) {
    const j = Math.floor(rng.uniform() * (i + 1));
    const t = values[i] as number;
    values[i] = values[j] as number;
    values[j] = t;
  }
}

/** Normalizes `values` at `indices` to mean 0 and sd 1 (in place). */
function normalize(values: Float32Array, indices: Int32Array): void {
  if (indices.length < 2) return;
  let mean = 0;
  for (const i of indices) mean += values[i] as number;
  mean /= indices.length;
  let variance = 0;
  for (const i of indices) variance += ((values[i] as number) - mean) ** 2;
  const sd = Math.sqrt(variance / (indices.length - 1));
  for (const i of indices) values[i] = ((values[i] as number) - mean) / (sd + 1e-8);
}

function explainedVariance(
  indices: Int32Array,
  returns: Float32Array,
  values: Float32Array,
): number {
  if (indices.length < 2) return 0;
  let meanR = 0;
  let meanD = 0;
  for (const i of indices) {
    meanR += returns[i] as number;
    meanD += (returns[i] as number) - (values[i] as number);
  }
  meanR /= indices.length;
  meanD /= indices.length;
  let varR = 0;
  let varD = 0;
  for (const i of indices) {
    varR += ((returns[i] as number) - meanR) ** 2;
    varD += ((returns[i] as number) - (values[i] as number) - meanD) ** 2;
  }
  return varR === 0 ? 0 : 1 - varD / varR;
}
